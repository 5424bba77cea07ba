#!/usr/bin/env node
// The last step of `npm run build`: marks the page's own JavaScript with V8's explicit compile hint
// (`//# allFunctionsCalledOnLoad`, Chrome 136 and later). A browser then compiles a marked file's
// functions on the thread that streams it from the network, not one by one on the main thread the
// first time each is called: on a phone, the page's start (Next's runtime, React and the page's
// code, evaluated in one task) and each part it imports later no longer wait for their compilation.
//
// Which files: those every page starts with (Next's own, `rootMainFiles` in
// .next/build-manifest.json, and each page's entry files, `entryJSFiles` in its client reference
// manifest), and the chunks those files import themselves (the wallet stack, RainbowKit, the
// markdown renderer: named in their code), whose functions run once they are loaded. Not what
// those chunks import in turn (a wallet's SDK, loaded when a person picks that wallet): eagerly
// compiling code that may never run would only cost. A marked file keeps its name; its source map,
// when the build made one, moves down by the line the comment adds. Running it twice marks nothing
// twice.
//
//   node bin/compile-hints.mjs [app folder, default: the current one]
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { runInNewContext } from "node:vm";
import { fileURLToPath } from "node:url";

export const COMPILE_HINT = "//# allFunctionsCalledOnLoad";

/** Every `*_client-reference-manifest.js` under the server's app folder. */
function referenceManifests(folder) {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith("_client-reference-manifest.js"))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The JavaScript files (relative to .next) a page of this build loads as it starts. */
export function startupFiles(root) {
  const next = join(root, ".next");
  const files = new Set(JSON.parse(readFileSync(join(next, "build-manifest.json"), "utf8")).rootMainFiles ?? []);
  for (const manifest of referenceManifests(join(next, "server", "app"))) {
    // The manifest is a script that sets `globalThis.__RSC_MANIFEST[route]`; run it apart, in a
    // context that is its own globalThis.
    const context = {};
    runInNewContext(readFileSync(manifest, "utf8"), context);
    for (const route of Object.values(context.__RSC_MANIFEST ?? {})) {
      for (const list of Object.values(route.entryJSFiles ?? {})) for (const file of list) files.add(file);
    }
  }
  return [...files].filter((file) => file.endsWith(".js"));
}

const CHUNK_PATH = /static\/chunks\/[\w.-]+\.js/g;

/** The startup files and the chunks their code imports (named in it), relative to .next. */
export function hintedFiles(root) {
  const startup = startupFiles(root);
  const files = new Set(startup);
  for (const file of startup) {
    const text = readFileSync(join(root, ".next", file), "utf8");
    for (const [named] of text.matchAll(CHUNK_PATH)) if (existsSync(join(root, ".next", named))) files.add(named);
  }
  return [...files];
}

/** Marks one file; false when it already was. */
function mark(path) {
  const text = readFileSync(path, "utf8");
  if (text.startsWith(COMPILE_HINT)) return false;
  writeFileSync(path, `${COMPILE_HINT}\n${text}`);
  const mapName = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(text)?.[1];
  const mapPath = mapName && !mapName.startsWith("data:") ? join(path, "..", mapName) : undefined;
  if (mapPath && existsSync(mapPath)) {
    const map = JSON.parse(readFileSync(mapPath, "utf8"));
    // A line with no mappings first; an index map's sections each start a line later.
    if (Array.isArray(map.sections)) for (const section of map.sections) section.offset.line += 1;
    else map.mappings = `;${map.mappings}`;
    writeFileSync(mapPath, JSON.stringify(map));
  }
  return true;
}

/** Marks this build's startup files and the chunks they import; returns those it marked. */
export function addCompileHints(root) {
  return hintedFiles(root).filter((file) => mark(join(root, ".next", file)));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? ".");
  const marked = addCompileHints(root);
  console.log(`Compile hints: ${marked.length} file(s) marked for eager compilation.`);
}
