// The last step of `npm run build` (bin/compile-hints.mjs): the JavaScript a page runs as it starts,
// and the chunks that code imports itself, carry V8's compile hint, so a phone compiles them while
// they download, not on the main thread as they run; what those chunks import in turn (a wallet's
// SDK) does not; a source map follows its file's new first line.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { addCompileHints, COMPILE_HINT, hintedFiles, startupFiles } from "@/bin/compile-hints.mjs";

let root: string;
const chunk = (name: string) => join(root, ".next", "static", "chunks", name);

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "compile-hints-"));
  await mkdir(join(root, ".next", "static", "chunks"), { recursive: true });
  await mkdir(join(root, ".next", "server", "app", "approve", "[paymentId]"), { recursive: true });
  await writeFile(join(root, ".next", "build-manifest.json"), JSON.stringify({ rootMainFiles: ["static/chunks/framework.js", "static/chunks/runtime.js"] }));
  // As Next writes them: a script that fills in globalThis.__RSC_MANIFEST for its route.
  const manifest = (route: string, files: Record<string, string[]>) =>
    `globalThis.__RSC_MANIFEST=(globalThis.__RSC_MANIFEST||{});globalThis.__RSC_MANIFEST[${JSON.stringify(route)}]=${JSON.stringify({ entryJSFiles: files, entryCSSFiles: {} })};`;
  await writeFile(
    join(root, ".next", "server", "app", "page_client-reference-manifest.js"),
    manifest("/page", { "[project]/app/layout": ["static/chunks/layout.js"], "[project]/app/page": ["static/chunks/layout.js", "static/chunks/chat.js"] }),
  );
  await writeFile(
    join(root, ".next", "server", "app", "approve", "[paymentId]", "page_client-reference-manifest.js"),
    manifest("/approve/[paymentId]/page", { "[project]/app/approve/[paymentId]/page": ["static/chunks/approve.js", "static/chunks/styles.css"] }),
  );
  for (const name of ["framework.js", "runtime.js", "layout.js", "approve.js", "sdk.js"]) await writeFile(chunk(name), `push(${JSON.stringify(name)});\n`);
  // The page's code imports the wallet's chunk, and that chunk a wallet's SDK, as Turbopack names them.
  await writeFile(chunk("chat.js"), 'push(\'chat\', () => load(["static/chunks/wallet.js"]));\n//# sourceMappingURL=chat.js.map');
  await writeFile(chunk("wallet.js"), 'push(\'wallet\', () => load(["static/chunks/sdk.js"]));\n');
  await writeFile(chunk("chat.js.map"), JSON.stringify({ version: 3, sources: ["chat.tsx"], names: [], mappings: "AAAA" }));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("compile hints", () => {
  it("lists Next's own startup files and every page's entry files, once each, and no stylesheet", () => {
    expect(startupFiles(root).sort()).toEqual(
      ["approve.js", "chat.js", "framework.js", "layout.js", "runtime.js"].map((name) => `static/chunks/${name}`),
    );
  });

  it("adds the chunks the startup files import themselves, not what those chunks import", () => {
    expect(hintedFiles(root).sort()).toEqual(
      ["approve.js", "chat.js", "framework.js", "layout.js", "runtime.js", "wallet.js"].map((name) => `static/chunks/${name}`),
    );
  });

  it("marks them at their top and leaves the others as they were", async () => {
    expect(addCompileHints(root)).toHaveLength(6);
    expect(COMPILE_HINT).toBe("//# allFunctionsCalledOnLoad");
    expect(await readFile(chunk("framework.js"), "utf8")).toBe(`${COMPILE_HINT}\npush("framework.js");\n`);
    expect((await readFile(chunk("wallet.js"), "utf8")).startsWith(`${COMPILE_HINT}\n`)).toBe(true);
    expect(await readFile(chunk("sdk.js"), "utf8")).toBe('push("sdk.js");\n');
  });

  it("moves a marked file's source map down by the line the hint adds", async () => {
    addCompileHints(root);
    expect(JSON.parse(await readFile(chunk("chat.js.map"), "utf8")).mappings).toBe(";AAAA");
  });

  it("marks nothing twice: a second run changes no file", async () => {
    addCompileHints(root);
    const first = await readFile(chunk("chat.js"), "utf8");
    expect(addCompileHints(root)).toEqual([]);
    expect(await readFile(chunk("chat.js"), "utf8")).toBe(first);
    expect(JSON.parse(await readFile(chunk("chat.js.map"), "utf8")).mappings).toBe(";AAAA");
  });
});
