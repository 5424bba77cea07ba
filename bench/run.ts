/**
 * `npm run bench`: the product's speed beside references, in one run on one machine. Builds
 * (when stale) the product and a reference app, starts them with `next start`, and measures
 * cold start, time to first byte, chat throughput and server CPU per request (interleaved
 * rounds), the delay from the model's first chunk to the first `0:` line, the paid round trip on
 * the sandbox, discovery in a registry of 20,000 listings, the ledger's hot paths at 1,000,000 payments, the chat page's First Load JS, the chat page on a phone (Lighthouse's mobile preset), and sustained payments per second with two instances on PostgreSQL; with PGlite, and with PostgreSQL when
 * DATABASE_URL is set. Writes bench/RESULTS.md and bench/results.json afresh.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { decodeLine, isFinishLine } from "@/lib/protocol/lines";
import { onShutdown } from "@/sandbox/lifecycle";
import { ensureBuild, productBuild, type EnsureBuildReturnType, type NextAppBuild } from "@/sandbox/next-app";
import { measureFirstByte, measureThroughput, type Contender } from "./chat-load";
import { measureDiscovery } from "./discovery";
import { measureFirstLoadJs } from "./first-load-js";
import { measureFirstTextLine } from "./first-text-line";
import { measureLedgerAtScale } from "./ledger-scale";
import { measureLighthouse } from "./lighthouse";
import { machineInfo, versions } from "./machine";
import { measureChannelCalls } from "./channel-calls";
import { measurePaidRoundTrip } from "./paid-round-trip";
import { DEFAULT_LEVELS, measurePaymentsPerSecond, type PaymentsPerSecondResult } from "./payments-per-second";
import { canReadProcessCpu } from "./process-cpu";
import { computeMarks, renderResults, type BenchResults, type DatabaseResults } from "./report";
import { appEnv, createTeardown, startApp, type RunningApp } from "./servers";
import { spread } from "./stats";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BENCH_DIR = join(ROOT, "bench");

const settings = {
  connections: 10,
  rounds: 5,
  roundMs: 3_000,
  warmUpMs: 2_000,
  firstByteSamples: 20,
  coldStartRounds: 5,
  textPieces: 10,
  textIntervalMs: 50,
  textRequests: 5,
  paidRounds: 7,
  lighthouseRuns: 5,
};

const referenceBuild: NextAppBuild = {
  root: join(BENCH_DIR, "reference-app"),
  sources: ["app", "next.config.ts", "tsconfig.json", "../../lib/protocol", "../../package.json"],
  publicEnv: {},
};

const HELLO = JSON.stringify({ messages: [{ role: "user", content: "hello" }] });
const HELLO_UI = JSON.stringify({ messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "hello" }] }] });

/** A chat answer in the product's line format that ran to its end: text, then a final `d:` with `stop`. */
function isCompleteLineAnswer(body: string): boolean {
  const trimmed = body.trimEnd();
  const last = trimmed.slice(trimmed.lastIndexOf("\n") + 1);
  if (!last.startsWith("d:") || body.startsWith("e:") || body.includes("\ne:") || !body.includes('0:"')) return false;
  const line = decodeLine(last);
  return isFinishLine(line) && line.data.finishReason === "stop";
}

const isCompleteUiStream = (body: string) => body.includes('"type":"finish"') && body.trimEnd().endsWith("data: [DONE]");

function textPiecesOf(body: string): string[] {
  return body
    .split("\n")
    .filter((raw) => raw.startsWith("0:"))
    .map((raw) => {
      const line = decodeLine(raw);
      return line.type === "text" ? line.text : "";
    });
}

type Database = { name: "PGlite" | "PostgreSQL"; env: (purpose: string) => Record<string, string | undefined> };

function databases(dataRoot: string): { run: Database[]; notRun: string[] } {
  const pglite: Database = {
    name: "PGlite",
    // Each server its own folder: PGlite is one process's database.
    env: (purpose) => ({ DATABASE_URL: undefined, DATA_DIR: join(dataRoot, purpose) }),
  };
  const url = process.env.DATABASE_URL;
  if (!url) return { run: [pglite], notRun: ["PostgreSQL: not run (DATABASE_URL is not set)"] };
  const postgres: Database = { name: "PostgreSQL", env: (purpose) => ({ DATABASE_URL: url, DATA_DIR: join(dataRoot, purpose) }) };
  return { run: [pglite, postgres], notRun: [] };
}

// Production mode, as deployed: a production start needs the approval key (lib/env.ts).
const BENCH_TOKEN_SECRET = randomBytes(32).toString("base64");

const productEnv = (database: Database, purpose: string): Record<string, string | undefined> => ({
  PAYMENT_TOKEN_SECRET: BENCH_TOKEN_SECRET,
  // A production start names its public origin; the bench signs no one in, so any one serves.
  APP_URL: "https://bench.example",
  // One load generator: every caller is one client, on purpose.
  CLIENT_IDENTITY: "shared",
  MODEL_PROVIDER: "offline",
  CHAT_COOLDOWN_SECONDS: "0",
  X402_DISCOVERY_URLS: undefined,
  ...database.env(purpose),
});

const productName = (database: Database) => `product (${database.name})`;

/** The reference routes send the product's own text pieces (see reference-app/app/reply.ts). */
const referenceEnv = (productAnswer: string | undefined) =>
  productAnswer ? { BENCH_REPLY_PIECES: JSON.stringify(textPiecesOf(productAnswer)) } : {};

/** Seconds since the last call (or since it was made). */
function phaseClock(): () => number {
  let last = performance.now();
  return () => {
    const now = performance.now();
    const seconds = Math.round((now - last) / 1000);
    last = now;
    return seconds;
  };
}

const log = (line: string) => console.log(`[bench] ${line}`);

async function main(): Promise<void> {
  const startedAt = performance.now();
  const teardown = createTeardown();
  onShutdown(async (reason) => {
    log(`${reason}: stopping the servers...`);
    await teardown.run();
  });
  if (!canReadProcessCpu()) throw new Error("the bench reads process CPU from /proc: it runs on Linux only");
  const machine = machineInfo();
  log(`${machine.cores} cores (${machine.cpuModel}), load average ${machine.loadAverageAtStart.join(" ")}`);

  const phases: Record<string, number> = {};
  const buildClock = phaseClock();
  const buildEnv = appEnv({});
  const builds: Record<string, EnsureBuildReturnType> = {
    product: await ensureBuild(productBuild(ROOT, {}), { env: buildEnv, log }),
    reference: await ensureBuild(referenceBuild, { env: buildEnv, log }),
  };
  phases.builds = buildClock();

  const dataRoot = await mkdtemp(join(tmpdir(), "x402-bench-"));
  const { run: dbs, notRun } = databases(dataRoot);
  const perDatabase = new Map<string, DatabaseResults>();
  try {
    const phase = phaseClock();
    // Cold starts first, one app after the other. The product's first answer to "hello" is what
    // the reference app sends too; its folder then serves the chat servers (one at a time).
    log(`cold start: 1 warm-up + ${settings.coldStartRounds} rounds...`);
    const coldStarts = new Map<string, number[]>();
    let hello: string | undefined;
    for (let round = 0; round <= settings.coldStartRounds; round++) {
      for (const database of dbs) {
        const name = productName(database);
        const app = await startApp({ teardown, name, root: ROOT, env: productEnv(database, "chat"), probe: { path: "/api/chat", body: HELLO } });
        await app.stop();
        hello ??= app.firstAnswer.body;
        if (round > 0) coldStarts.set(name, [...(coldStarts.get(name) ?? []), app.coldStartMs]);
      }
      const bare = await startApp({ teardown, name: "bare", root: referenceBuild.root, env: referenceEnv(hello), probe: { path: "/bare", body: HELLO } });
      await bare.stop();
      if (round > 0) coldStarts.set("bare", [...(coldStarts.get("bare") ?? []), bare.coldStartMs]);
      if (round > 0) log(`  round ${round}: ${[...coldStarts].map(([name, list]) => `${name} ${list.at(-1)?.toFixed(0)} ms`).join(" | ")}`);
    }
    if (!hello) throw new Error("the product did not answer");
    const pieces = textPiecesOf(hello);
    log(`the product answers "hello" with ${pieces.length} text lines, ${Buffer.byteLength(hello)} bytes`);
    phases["cold start"] = phase();

    log("starting the chat servers...");
    const chatApps = new Map<string, RunningApp>();
    for (const database of dbs) {
      const name = productName(database);
      chatApps.set(database.name, await startApp({ teardown, name, root: ROOT, env: productEnv(database, "chat"), probe: { path: "/api/chat", body: HELLO } }));
    }
    const reference = await startApp({ teardown, name: "reference app", root: referenceBuild.root, env: referenceEnv(hello), probe: { path: "/bare", body: HELLO } });
    const contenders: Contender[] = [
      ...dbs.map((database): Contender => ({
        name: productName(database),
        app: chatApps.get(database.name) as RunningApp,
        path: "/api/chat",
        body: HELLO,
        isComplete: isCompleteLineAnswer,
      })),
      { name: "AI SDK default", app: reference, path: "/ai-sdk", body: HELLO_UI, isComplete: isCompleteUiStream },
      { name: "bare", app: reference, path: "/bare", body: HELLO, isComplete: isCompleteLineAnswer },
    ];
    log(`time to first byte: ${settings.firstByteSamples} single requests each, interleaved...`);
    const firstByte = await measureFirstByte(contenders, settings.firstByteSamples);
    phases["chat servers, time to first byte"] = phase();
    log(`throughput: ${settings.connections} connections, ${settings.rounds} interleaved rounds of ${settings.roundMs / 1000} s...`);
    const throughput = await measureThroughput(contenders, { ...settings, log });
    await reference.stop();
    for (const app of chatApps.values()) await app.stop();
    phases.throughput = phase();

    for (const database of dbs) {
      log(`${database.name}: first 0: line, ${settings.textPieces} model chunks ${settings.textIntervalMs} ms apart...`);
      const firstTextLine = await measureFirstTextLine({
        teardown,
        root: ROOT,
        env: productEnv(database, "streaming"),
        pieces: settings.textPieces,
        intervalMs: settings.textIntervalMs,
        requests: settings.textRequests,
      });
      phases[`first 0: line (${database.name})`] = phase();
      log(`${database.name}: the paid round trip on the sandbox, the first one after a start + ${settings.paidRounds} more...`);
      const paid = await measurePaidRoundTrip({ teardown, root: ROOT, env: productEnv(database, "paid"), rounds: settings.paidRounds });
      phases[`paid round trip (${database.name})`] = phase();
      perDatabase.set(database.name, {
        database: database.name,
        coldStartMs: spread(coldStarts.get(productName(database)) ?? []),
        firstTextLine,
        paid,
      });
    }

    log("a hundred calls on one pay-as-you-go channel, after its deposit...");
    const channels = await measureChannelCalls({ calls: 100 });
    phases["channel calls"] = phase();

    log("discovery in a registry of 20,000 listings, with and without its search...");
    const discovery = await measureDiscovery();
    phases["discovery at size"] = phase();

    const ledger = [];
    for (const database of dbs) {
      log(`${database.name}: the ledger's hot paths on an empty ledger and on one of 1,000,000 payments...`);
      ledger.push(await measureLedgerAtScale({ database: database.name, ...(process.env.DATABASE_URL ? { serverUrl: process.env.DATABASE_URL } : {}) }));
      phases[`ledger at scale (${database.name})`] = phase();
    }

    // Two instances on one PostgreSQL database and one sandbox: PGlite is one process's database.
    const postgres = dbs.find((database) => database.name === "PostgreSQL");
    let paymentsPerSecond: PaymentsPerSecondResult | undefined;
    if (postgres) {
      log(`PostgreSQL: payments per second, two instances on one sandbox, ${DEFAULT_LEVELS.join(", ")} approvals in flight...`);
      paymentsPerSecond = await measurePaymentsPerSecond({ teardown, root: ROOT, env: productEnv(postgres, "payments-per-second"), log });
      phases["payments per second (PostgreSQL)"] = phase();
    } else notRun.push("Payments per second: not run (two instances share one PostgreSQL database; DATABASE_URL is not set)");

    // Last, on an otherwise idle machine: Lighthouse's simulated phone multiplies the page's CPU time.
    log(`the chat page on a phone: Lighthouse's mobile preset on the empty chat and on a quote, 1 warm-up + ${settings.lighthouseRuns} runs each...`);
    const phone = await measureLighthouse({ teardown, root: ROOT, env: productEnv(dbs[0] as Database, "phone"), runs: settings.lighthouseRuns, log });
    phases["the chat page on a phone"] = phase();

    const results: BenchResults = {
      generatedAt: new Date().toISOString(),
      durationSeconds: 0,
      machine: { ...machine, loadAverageAtEnd: loadavg().map((value) => Math.round(value * 100) / 100) },
      versions: versions(ROOT),
      settings,
      builds,
      phases,
      replyLines: pieces.length,
      replyBytes: Buffer.byteLength(hello),
      bareColdStartMs: spread(coldStarts.get("bare") ?? []),
      firstByte,
      throughput,
      databases: [...perDatabase.values()],
      notRun,
      firstLoadJs: measureFirstLoadJs(ROOT),
      discovery,
      ledger,
      ...(paymentsPerSecond ? { paymentsPerSecond } : {}),
      phone,
      channels,
      marks: [],
    };
    results.marks = computeMarks(results);
    results.durationSeconds = Math.round((performance.now() - startedAt) / 1000);
    await writeFile(join(BENCH_DIR, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
    await writeFile(join(BENCH_DIR, "RESULTS.md"), renderResults(results));
    log(`wrote bench/RESULTS.md and bench/results.json in ${results.durationSeconds} s`);
    for (const mark of results.marks) log(`  ${mark.pass ? "pass" : "FAIL"}  ${mark.figure}${mark.database ? ` (${mark.database})` : ""}: ${mark.value}`);
  } finally {
    await teardown.run();
    await rm(dataRoot, { recursive: true, force: true });
  }
}

try {
  await main();
  process.exit(0);
} catch (error) {
  console.error(`[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
}
