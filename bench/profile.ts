/**
 * `npm run bench:profile`: where the product's chat route spends its CPU. Starts the production
 * build (`npm run bench` or `next build` first) with V8's CPU profiler on, loads `POST /api/chat`
 * ("hello", the offline model) with the bench's own load generator, stops the server so that it
 * writes its profile, and prints the functions and the packages with the most self time and the
 * most total time. The raw `.cpuprofile` files stay in the folder it prints, for a flame graph
 * (Chrome DevTools, speedscope).
 *
 *   npm run bench:profile -- [seconds of load, default 15] [--cold] [--no-profile] [--reference] [--only=<package>]
 *   npm run bench:profile -- --read=<file.cpuprofile> [--only=<package>]
 *   npm run bench:profile -- --versus [rounds, default 3]
 *
 * `--cold` profiles a start instead: spawn to the first 200, and no load. `--no-profile` only
 * measures the server's CPU per request, without the profiler's cost. `--reference`
 * profiles the reference app's AI SDK default route instead. `--only=ai` lists one
 * package's (or one of the app's files') functions. `--read` reads an earlier profile, whole.
 * `--versus` loads the product and the AI SDK default route in turns, unprofiled, for their ratio.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { SourceMap, type SourceMapPayload } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { measureThroughput } from "./chat-load";
import { runLoad } from "./http-client";
import { appEnv, createTeardown, startApp } from "./servers";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const HELLO = JSON.stringify({ messages: [{ role: "user", content: "hello" }] });
const HELLO_UI = JSON.stringify({ messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "hello" }] }] });

type ProfileNode = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
};
type CpuProfile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

/** A bundled chunk's source map (Next writes them beside the server chunks), read once. */
const chunkMaps = new Map<string, SourceMap | undefined>();

function sourceMapOf(url: string): SourceMap | undefined {
  if (!chunkMaps.has(url)) {
    let map: SourceMap | undefined;
    try {
      map = new SourceMap(JSON.parse(readFileSync(new URL(`${url}.map`), "utf8")) as SourceMapPayload);
    } catch {
      map = undefined;
    }
    chunkMaps.set(url, map);
  }
  return chunkMaps.get(url);
}

/** The package a script belongs to (`next`, `zod`, `ai`...), or the app's own module, or V8's. */
function owner(url: string, line = 0, column = 0): string {
  if (!url) return "(native)";
  if (url.includes("/.next/") && url.startsWith("file:")) {
    const entry = sourceMapOf(url)?.findEntry(line, column);
    const source = entry && "originalSource" in entry ? entry.originalSource : undefined;
    // Relative to the chunk (../../../lib/x.ts), or turbopack:///[project]/lib/x.ts.
    const path = source && decodeURIComponent(source).replace(/^.*\[project\]\//, "").replace(/^(\.\.\/)+/, "");
    if (path) return owner(`file:///${path}`);
  }
  const modules = url.lastIndexOf("node_modules/");
  if (modules >= 0) {
    const rest = url.slice(modules + "node_modules/".length).split("/");
    return rest[0]?.startsWith("@") ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  if (url.includes("/.next/")) return `app: ${url.slice(url.indexOf("/.next/") + 1)}`;
  if (url.startsWith("file:///lib/") || url.startsWith("file:///app/") || url.startsWith("file:///proxy")) return url.slice("file:///".length);
  if (url.startsWith("node:")) return "node";
  return url.replace(/^file:\/\//, "");
}

type Totals = Map<string, { self: number; total: number }>;

/** Microseconds on the monotonic clock that V8's profiler stamps its samples with. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** Only the samples taken within `window` (the load), when given. */
function summarize(profile: CpuProfile, window?: { from: number; to: number }): { ms: number; byFunction: Totals; byOwner: Totals; byCaller: Totals } {
  const owners = new Map<number, string>();
  const ownerOf = (node: ProfileNode) => {
    let found = owners.get(node.id);
    if (found === undefined) {
      found = owner(node.callFrame.url, node.callFrame.lineNumber, node.callFrame.columnNumber);
      owners.set(node.id, found);
    }
    return found;
  };
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfMs = new Map<number, number>();
  let at = profile.startTime;
  let windowMs = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    at += delta;
    if (window && (at < window.from || at > window.to)) return;
    windowMs += delta / 1000;
    selfMs.set(id, (selfMs.get(id) ?? 0) + delta / 1000);
  });
  const byFunction: Totals = new Map();
  const byOwner: Totals = new Map();
  const byCaller: Totals = new Map();
  const add = (totals: Totals, key: string, self: number, total: number) => {
    const entry = totals.get(key) ?? { self: 0, total: 0 };
    entry.self += self;
    entry.total += total;
    totals.set(key, entry);
  };
  for (const [id, ms] of selfMs) {
    const node = nodes.get(id);
    if (!node) continue;
    const frame = (n: ProfileNode) => `${n.callFrame.functionName || "(anonymous)"} ${ownerOf(n)}:${n.callFrame.lineNumber + 1}`;
    add(byFunction, frame(node), ms, 0);
    add(byOwner, ownerOf(node), ms, 0);
    // Self time of the runtime (streams, promises, hooks) charged to the nearest code that called it.
    let caller: ProfileNode | undefined = node;
    while (caller && ["node", "(native)"].includes(ownerOf(caller))) caller = nodes.get(parent.get(caller.id) ?? -1);
    add(byCaller, caller ? ownerOf(caller) : "(runtime, no caller on the stack)", ms, 0);
    // Total time: once per distinct function and package on the sample's stack (recursion counted once).
    const seenFunctions = new Set<string>();
    const seenOwners = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const current = nodes.get(at);
      if (!current) break;
      const name = frame(current);
      if (!seenFunctions.has(name)) {
        seenFunctions.add(name);
        add(byFunction, name, 0, ms);
      }
      const pkg = ownerOf(current);
      if (!seenOwners.has(pkg)) {
        seenOwners.add(pkg);
        add(byOwner, pkg, 0, ms);
      }
    }
  }
  return { ms: windowMs, byFunction, byOwner, byCaller };
}

function table(title: string, totals: Totals, key: "self" | "total", rows: number, perRequest: number | undefined): string {
  const sorted = [...totals].sort(([, a], [, b]) => b[key] - a[key]).slice(0, rows);
  const unit = perRequest ? "ms/request" : "ms";
  const lines = sorted.map(([name, entry]) => {
    const value = perRequest ? entry[key] / perRequest : entry[key];
    return `  ${value.toFixed(3).padStart(10)} ${unit}  ${name}`;
  });
  return [`${title} (by ${key} time)`, ...lines].join("\n");
}

function print(file: string, profile: CpuProfile, window: { from: number; to: number } | undefined, requests: number | undefined, only: string | undefined): void {
  const summary = summarize(profile, window);
  if (summary.ms < 1) return;
  console.log(`\n${file}: ${summary.ms.toFixed(0)} ms of samples${window ? " during the load" : ""}`);
  if (only) {
    const mine = (totals: Totals) => new Map([...totals].filter(([name]) => name.includes(` ${only}:`)));
    console.log(table(`functions of ${only}`, mine(summary.byFunction), "self", 40, requests));
    console.log(table(`functions of ${only}`, mine(summary.byFunction), "total", 40, requests));
    return;
  }
  console.log(table("packages", summary.byOwner, "self", 15, requests));
  console.log(table("packages", summary.byOwner, "total", 25, requests));
  console.log(table("packages, with the runtime's work charged to its caller", summary.byCaller, "self", 25, requests));
  console.log(table("functions", summary.byFunction, "self", 30, requests));
  console.log(table("functions", summary.byFunction, "total", 60, requests));
}

/**
 * The product beside the AI SDK's default route (the reference app, built by `npm run bench`),
 * in interleaved rounds, without the profiler: a quick check of a change, as the bench's ratio.
 */
async function versus(rounds: number): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "x402-profile-data-"));
  const teardown = createTeardown();
  try {
    const product = await startApp({ teardown, name: "product", root: ROOT, env: productEnv(dataDir), probe: { path: "/api/chat", body: HELLO } });
    const reference = await startApp({ teardown, name: "reference", root: join(ROOT, "bench", "reference-app"), env: {}, probe: { path: "/bare", body: HELLO } });
    const results = await measureThroughput(
      [
        { name: "product", app: product, path: "/api/chat", body: HELLO, isComplete: (body) => body.includes("\nd:") },
        { name: "AI SDK default", app: reference, path: "/ai-sdk", body: HELLO_UI, isComplete: (body) => body.includes("[DONE]") },
      ],
      { rounds, roundMs: 3000, warmUpMs: 2000, connections: 10, log: console.log },
    );
    const [ours, theirs] = results;
    if (ours && theirs) {
      const ratios = ours.rounds.map((round, index) => {
        const other = theirs.rounds[index];
        return other ? `${(round.requestsPerSecond / other.requestsPerSecond).toFixed(2)}x req/s, ${(round.serverCpuMsPerRequest / other.serverCpuMsPerRequest).toFixed(2)}x CPU` : "";
      });
      console.log(`product ÷ AI SDK default, round by round: ${ratios.join(" | ")}`);
    }
  } finally {
    await teardown.run();
  }
}

function productEnv(dataDir: string): Record<string, string | undefined> {
  return {
    PAYMENT_TOKEN_SECRET: randomBytes(32).toString("base64"),
    APP_URL: "https://bench.example",
    CLIENT_IDENTITY: "shared",
    MODEL_PROVIDER: "offline",
    CHAT_COOLDOWN_SECONDS: "0",
    X402_DISCOVERY_URLS: undefined,
    DATABASE_URL: undefined,
    DATA_DIR: dataDir,
  };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes("--versus")) {
    await versus(Number(args.find((arg) => /^\d+$/.test(arg)) ?? 3));
    return;
  }
  const only = args.find((arg) => arg.startsWith("--only="))?.slice("--only=".length);
  const read = args.find((arg) => arg.startsWith("--read="))?.slice("--read=".length);
  if (read) {
    // An earlier profile, whole (no load window), in ms.
    print(read, JSON.parse(await readFile(read, "utf8")) as CpuProfile, undefined, undefined, only);
    return;
  }
  const cold = args.includes("--cold");
  // Only the server's CPU per request, without the profiler's own cost.
  const noProfile = args.includes("--no-profile");
  // The AI SDK default route of the reference app instead of the product, for comparison.
  const reference = args.includes("--reference");
  const target = reference
    ? { root: join(ROOT, "bench", "reference-app"), path: "/ai-sdk", body: HELLO_UI }
    : { root: ROOT, path: "/api/chat", body: HELLO };
  const seconds = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 15);
  const profileDir = await mkdtemp(join(tmpdir(), "x402-profile-"));
  const dataDir = await mkdtemp(join(tmpdir(), "x402-profile-data-"));
  const teardown = createTeardown();
  let requests: number | undefined;
  let window: { from: number; to: number } | undefined;
  try {
    if (cold) {
      // As the bench times it: a start on an existing database, made by an unprofiled start first.
      const first = await startApp({ teardown, name: "product", root: target.root, env: productEnv(dataDir), probe: { path: target.path, body: target.body } });
      await first.stop();
    }
    const app = await startApp({
      teardown,
      name: "product",
      root: target.root,
      env: {
        ...productEnv(dataDir),
        ...(noProfile ? {} : { NODE_OPTIONS: `${appEnv({}).NODE_OPTIONS ?? ""} --cpu-prof --cpu-prof-dir=${profileDir} --cpu-prof-interval=200`.trim() }),
      },
      probe: { path: target.path, body: target.body },
    });
    console.log(`started in ${app.coldStartMs.toFixed(0)} ms`);
    if (!cold) {
      // A warm-up outside the window: the first requests compile and fill caches.
      await runLoad({ url: new URL(target.path, app.origin), body: target.body, connections: 10, durationMs: 3000, isComplete: () => true });
      const from = monotonicUs();
      const cpuBefore = app.cpuSeconds();
      const load = await runLoad({
        url: new URL(target.path, app.origin),
        body: target.body,
        connections: 10,
        durationMs: seconds * 1000,
        isComplete: (body) => body.includes("\nd:") || body.includes("[DONE]"),
      });
      window = { from, to: monotonicUs() };
      requests = load.completed;
      const cpuMs = ((app.cpuSeconds() - cpuBefore) * 1000) / Math.max(1, load.completed);
      console.log(
        `${load.completed} requests in ${load.seconds.toFixed(1)} s (${load.requestsPerSecond.toFixed(0)}/s), ${load.failed} failed; ` +
          `server CPU ${cpuMs.toFixed(2)} ms per request${noProfile ? "" : " (profiler included)"}`,
      );
    }
    await app.stop();
  } finally {
    await teardown.run();
  }
  for (const file of await readdir(profileDir)) {
    const path = join(profileDir, file);
    print(path, JSON.parse(await readFile(path, "utf8")) as CpuProfile, window, requests, only);
  }
}

await main();
