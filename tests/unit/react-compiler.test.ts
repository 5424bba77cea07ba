// The React Compiler (next.config.ts: reactCompiler) memoizes the page's components and hooks, so
// that one state's change (the wallet reconnecting, its balance, a countdown's tick) renders what
// shows it, not the whole chat again. It leaves a function as written, silently, when it cannot
// compile it (a ref written during render, a bigint literal, a try with a finally, an import()),
// and a hook it leaves returns new objects on every render, which makes every component they
// reach render again. Each component and hook of the page must compile: this runs the compiler as
// the build does (Next's own Babel, the plugin's defaults) and names any it leaves, and why.
import { readdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

type Babel = { transformAsync: (code: string, options: Record<string, unknown>) => Promise<unknown> };
type CompilerEvent = { kind: string; fnName?: string | null; detail?: unknown };
const babel: Babel = require("next/dist/compiled/babel/core");

async function sources(folder: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, folder), { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts"))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .sort();
}

/** Where and why the compiler left a function, from its event. */
function describeEvent(event: CompilerEvent): string {
  const text = JSON.stringify(event.detail, (key, value: unknown) => {
    const start = (value as { start?: { line: number } } | null)?.start;
    return key === "loc" && start ? `line ${start.line}` : value;
  });
  const reason = /"reason":"([^"]+)"/.exec(text)?.[1] ?? event.kind;
  const where = /"loc":"(line \d+)"/.exec(text)?.[1] ?? "";
  return `${event.fnName ?? "a function"}${where ? ` (${where})` : ""}: ${reason}`;
}

async function compile(file: string): Promise<{ compiled: string[]; left: string[] }> {
  const events: CompilerEvent[] = [];
  await babel.transformAsync(await readFile(join(ROOT, file), "utf8"), {
    filename: join(ROOT, file),
    babelrc: false,
    configFile: false,
    presets: [[require.resolve("next/dist/compiled/babel/preset-typescript"), { isTSX: true, allExtensions: true }]],
    plugins: [[require.resolve("babel-plugin-react-compiler"), { logger: { logEvent: (_file: string, event: CompilerEvent) => events.push(event) } }]],
  });
  return {
    compiled: events.filter((event) => event.kind === "CompileSuccess").map((event) => event.fnName ?? "?"),
    left: events.filter((event) => event.kind === "CompileError" || event.kind === "PipelineError").map(describeEvent),
  };
}

describe("the React Compiler", () => {
  it("compiles every component and hook of the pages", { timeout: 120_000 }, async () => {
    const files = [...(await sources("components")), ...(await sources("app"))];
    const left: string[] = [];
    const compiled = new Set<string>();
    for (const file of files) {
      const result = await compile(file);
      for (const name of result.compiled) compiled.add(name);
      left.push(...result.left.map((what) => `${file}: ${what}`));
    }
    expect(left, "functions the React Compiler left as written").toEqual([]);
    // The check reads the compiler's own report: it did run, on the page's own parts.
    for (const name of ["Chat", "useQuoteApproval", "useChatStream", "useAgentBudget", "WalletProviders", "PaymentCard"]) expect(compiled).toContain(name);
  });
});
