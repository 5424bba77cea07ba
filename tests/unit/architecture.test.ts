// The homes docs/architecture.md names, held against the code: a chain family is named in code
// only in the rails, lib/chain and the page's own wallet code (and in the few server files that
// keep the request's and the session's older field names, listed here); a protocol's name only
// in its own folders; a scheme's extra signature in no door, wire schema or component. A new
// family, protocol or scheme named outside its home fails here, with the file and the line. The
// walls between rooms are held on the import graph (each file's imports as the TypeScript compiler
// reads them, static and dynamic, resolved as the build resolves `@/` and relative paths): a
// forbidden import fails with the importing file and what it imports.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, test } from "vitest";

const root = path.resolve(__dirname, "../..");

function sourceFiles(folder: string): string[] {
  const full = path.join(root, folder);
  if (!statSync(full).isDirectory()) return [folder];
  return readdirSync(full).flatMap((name) => {
    const relative = path.join(folder, name);
    if (statSync(path.join(root, relative)).isDirectory()) return sourceFiles(relative);
    return /\.(ts|tsx)$/.test(name) ? [relative] : [];
  });
}

/** The lines of code (comments aside) of each file that match, as "file:line". */
function namedIn(files: readonly string[], pattern: RegExp): string[] {
  return files.flatMap((file) =>
    readFileSync(path.join(root, file), "utf8")
      .split("\n")
      .flatMap((line, index) => (!/^\s*(\/\/|\*|\/\*)/.test(line) && pattern.test(line) ? [`${file}:${index + 1}`] : [])),
  );
}

const under = (prefixes: readonly string[]) => (file: string) => prefixes.some((prefix) => file.startsWith(prefix));
const server = [...sourceFiles("lib"), ...sourceFiles("app"), "proxy.ts", "instrumentation.ts"];

describe("where things are named", () => {
  test("a chain family is named in server code only in the rails and lib/chain, and in the files that keep older wire names", () => {
    const homes = under(["lib/payments/rails/", "lib/chain/", "lib/client/"]);
    // The request's `walletAddress`/`solanaAddress`, the session's `wallet`/`solanaWallet`, the
    // page's two wallet buttons, and the offline model's names for networks a person types.
    const keptWireNames = ["app/page.tsx", "lib/chat/request.ts", "lib/session.ts", "lib/chat/offline-turns.ts"];
    const files = [...new Set(namedIn(server.filter((file) => !homes(file)), /eip155|`0x\$\{string\}`|solana/i).map((hit) => hit.split(":")[0]))];
    expect(files.filter((file) => !keptWireNames.includes(file ?? ""))).toEqual([]);
    expect(files.length).toBeLessThanOrEqual(5);
  });

  test("a protocol is named only in its own folders: nothing else branches on x402 or MPP", () => {
    const homes = under(["lib/payments/protocols/", "lib/x402/", "lib/mpp/", "lib/payments/rails/evm/mpp-charge/"]);
    const files = [...server, ...sourceFiles("components")].filter((file) => !homes(file));
    expect(namedIn(files, /["'`](x402|mpp)["'`]|MPP_EVM_CHARGE|mpp-evm-charge/)).toEqual([]);
  });

  test("a scheme's extra signature is named by no door, wire schema or component: they carry the list", () => {
    const files = [...sourceFiles("lib/chat"), ...sourceFiles("lib/mcp"), ...sourceFiles("lib/protocol"), ...sourceFiles("lib/client"), ...sourceFiles("components"), ...sourceFiles("app")];
    expect(namedIn(files, /permit/i)).toEqual([]);
  });
});

/** Each file's imports, resolved to the repository's files ("lib/payments/index.ts"); packages are left out. */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(path.join(root, file), "utf8"), true, true);
  return importedFiles.flatMap(({ fileName: specifier }) => {
    const base = specifier.startsWith("@/") ? path.join(root, specifier.slice(2)) : specifier.startsWith(".") ? path.resolve(root, path.dirname(file), specifier) : undefined;
    if (!base) return [];
    const found = [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")].find((candidate) => {
      try {
        return statSync(candidate).isFile();
      } catch {
        return false;
      }
    });
    if (!found) throw new Error(`${file} imports ${specifier}, which resolves to no file`);
    return [path.relative(root, found)];
  });
}

/** Every import that crosses a wall: `from` files importing what `forbidden` says, as "file -> import". */
function crossings(from: (file: string) => boolean, forbidden: (imported: string, file: string) => boolean): string[] {
  return [...server, ...sourceFiles("components")].filter(from).flatMap((file) => importsOf(file).flatMap((imported) => (forbidden(imported, file) ? [`${file} -> ${imported}`] : [])));
}

const folderOf = (file: string) => file.split("/").slice(0, 2).join("/");
/** The doors: each turns the core's results into its own wire format, and imports no other. */
const doors = ["lib/chat", "lib/mcp", "lib/account", "lib/cron"];
/** What a remote door needs (grants, approval by link, the budget watch): shared by remote doors, itself no door. */
const remoteDoorPieces = "lib/remote";
const isDoor = (file: string) => doors.includes(folderOf(file));
const inCore = (file: string) => file.startsWith("lib/payments/") && !file.startsWith("lib/payments/rails/") && !file.startsWith("lib/payments/protocols/");
/** The modules through which the core reaches rails, schemes and protocols: their registries and interfaces. */
const coreSeams = ["lib/payments/rails/index.ts", "lib/payments/rails/rail.ts", "lib/payments/protocols/index.ts", "lib/payments/protocols/protocol.ts"];

describe("what imports what", () => {
  test("no door imports another door, nor the page's code (lib/client, components, app)", () => {
    const page = (imported: string) => imported.startsWith("lib/client/") || imported.startsWith("components/") || imported.startsWith("app/");
    expect(crossings(isDoor, (imported, file) => page(imported) || (isDoor(imported) && folderOf(imported) !== folderOf(file)))).toEqual([]);
  });

  test("what remote doors share imports no door and nothing of the page", () => {
    const forbidden = (imported: string) => isDoor(imported) || imported.startsWith("lib/client/") || imported.startsWith("components/") || imported.startsWith("app/");
    expect(crossings((file) => file.startsWith(`${remoteDoorPieces}/`), forbidden)).toEqual([]);
  });

  test("the core imports no door, no page code, and reaches rails, schemes and protocols only through their registries", () => {
    const forbidden = (imported: string) =>
      isDoor(imported) ||
      imported.startsWith(`${remoteDoorPieces}/`) ||
      imported.startsWith("lib/client/") ||
      imported.startsWith("lib/tools/") ||
      imported.startsWith("lib/mpp/") ||
      imported.startsWith("components/") ||
      imported.startsWith("app/") ||
      ((imported.startsWith("lib/payments/rails/") || imported.startsWith("lib/payments/protocols/")) && !coreSeams.includes(imported));
    expect(crossings(inCore, forbidden)).toEqual([]);
  });

  test("the stream's schemas and the tools' words import no door and nothing of the page", () => {
    const forbidden = (imported: string) => isDoor(imported) || imported.startsWith(`${remoteDoorPieces}/`) || imported.startsWith("lib/client/") || imported.startsWith("components/");
    expect(crossings((file) => file.startsWith("lib/protocol/") || file.startsWith("lib/tools/"), forbidden)).toEqual([]);
  });

  test("nothing in lib imports a route or a component", () => {
    expect(crossings((file) => file.startsWith("lib/"), (imported) => imported.startsWith("app/") || imported.startsWith("components/"))).toEqual([]);
  });

  test("the core names no registered scheme: it asks the registry, and a scheme's name is its folder's", () => {
    const schemeNames = [...new Set(sourceFiles("lib/payments/rails").flatMap((file) => [...readFileSync(path.join(root, file), "utf8").matchAll(/\bscheme: "([a-z0-9-]+)"/g)].map((match) => match[1])))];
    expect(schemeNames).toEqual(expect.arrayContaining(["exact", "upto", "batch-settlement"]));
    const named = new RegExp(`["'\`](${schemeNames.join("|")})["'\`]`);
    expect(namedIn(server.filter(inCore), named)).toEqual([]);
  });

  test("`as unknown as`, which casts past the type checker, stays at two", () => {
    expect(namedIn([...server, ...sourceFiles("components")], /as unknown as/)).toHaveLength(2);
  });
});
