// The bench's results: their shape (results.json), the marks as ratios from the same
// run, and RESULTS.md.
import type { DiscoveryResult } from "./discovery";
import type { EnsureBuildReturnType } from "@/sandbox/next-app";
import { BEFORE, CAVEAT, CHANGES, HOLDS_BACK } from "./changes";
import type { FirstByteResult, ThroughputResult } from "./chat-load";
import type { FirstLoadJsResult } from "./first-load-js";
import type { FirstTextLineResult } from "./first-text-line";
import type { LedgerScaleResult } from "./ledger-scale";
import { PHONE_MARKS, type LighthouseResult, type PhoneCategory } from "./lighthouse";
import type { MachineInfo, Versions } from "./machine";
import type { ChannelCallsResult } from "./channel-calls";
import type { PaidResult, PaidRoundTrip } from "./paid-round-trip";
import type { CpuPart, Percentiles, PaymentsPerSecondResult } from "./payments-per-second";
import { ratio, spread, type Spread } from "./stats";

export type DatabaseResults = {
  database: string;
  coldStartMs: Spread;
  firstTextLine: FirstTextLineResult;
  paid: PaidResult;
};

export type Mark = {
  figure: string;
  mark: string;
  database?: string;
  value: string;
  ratio?: number;
  pass: boolean;
  note?: string;
};

export type BenchResults = {
  generatedAt: string;
  durationSeconds: number;
  machine: MachineInfo & { loadAverageAtEnd: number[] };
  versions: Versions;
  settings: Record<string, number>;
  builds: Record<string, EnsureBuildReturnType>;
  /** How long each part of the bench took, in seconds. */
  phases: Record<string, number>;
  replyLines: number;
  replyBytes: number;
  bareColdStartMs: Spread;
  firstByte: FirstByteResult[];
  throughput: ThroughputResult[];
  databases: DatabaseResults[];
  notRun: string[];
  firstLoadJs: FirstLoadJsResult;
  discovery: DiscoveryResult;
  ledger: LedgerScaleResult[];
  /** Sustained approvals per second, two instances on one PostgreSQL database and one sandbox (only with DATABASE_URL). */
  paymentsPerSecond?: PaymentsPerSecondResult;
  /** The chat page on a phone: Lighthouse's mobile preset on the empty chat and on a quote. */
  phone: LighthouseResult;
  /** Calls on one pay-as-you-go channel after its deposit (x402 `batch-settlement`), PGlite. */
  channels?: ChannelCallsResult;
  marks: Mark[];
};

export const AI_SDK = "AI SDK default";
export const BARE = "bare";
const productName = (database: string) => `product (${database})`;

const FIRST_LOAD_JS_LIMIT_BYTES = 250_000;

const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));
const withRange = (value: Spread, unit = " ms", format = ms) =>
  value.n === 0 ? "n/a" : `${format(value.median)}${unit} (${format(value.min)}-${format(value.max)})`;
const times = (value: number) => `${value.toFixed(2)}×`;
const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

function byName<T extends { name: string }>(list: T[], name: string): T {
  const found = list.find((entry) => entry.name === name);
  if (!found) throw new Error(`no results for ${name}`);
  return found;
}

/** Round by round ratios of one contender's figure to another's (the pairs ran back to back). */
function roundRatios(results: ThroughputResult[], numerator: string, denominator: string, figure: (round: ThroughputResult["rounds"][number]) => number): Spread {
  const top = byName(results, numerator).rounds;
  const bottom = byName(results, denominator).rounds;
  return spread(top.map((round, index) => figure(round) / figure(bottom[index] ?? round)));
}

export function computeMarks(results: BenchResults): Mark[] {
  const marks: Mark[] = [];
  const aiSdk = byName(results.throughput, AI_SDK);
  const bareFirstByte = byName(results.firstByte, BARE);
  for (const db of results.databases) {
    const product = byName(results.throughput, productName(db.database));
    const throughputRatio = ratio(product.requestsPerSecond, aiSdk.requestsPerSecond);
    marks.push({
      figure: "chat throughput, zero-latency model",
      mark: "at least 1.5× the AI SDK default route",
      database: db.database,
      value: `${product.requestsPerSecond.median.toFixed(0)} vs ${aiSdk.requestsPerSecond.median.toFixed(0)} req/s`,
      ratio: throughputRatio,
      pass: throughputRatio >= 1.5,
    });
    const cpuRatio = ratio(product.serverCpuMsPerRequest, aiSdk.serverCpuMsPerRequest);
    marks.push({
      figure: "server CPU per chat request",
      mark: "at most 0.7× the AI SDK default route",
      database: db.database,
      value: `${ms(product.serverCpuMsPerRequest.median)} vs ${ms(aiSdk.serverCpuMsPerRequest.median)} ms`,
      ratio: cpuRatio,
      pass: cpuRatio <= 0.7,
    });
    const firstByte = byName(results.firstByte, productName(db.database));
    const firstByteRatio = ratio(firstByte.firstByteMs, bareFirstByte.firstByteMs);
    marks.push({
      figure: "time to first byte",
      mark: "at most 1.5× the bare route",
      database: db.database,
      value: `${ms(firstByte.firstByteMs.median)} vs ${ms(bareFirstByte.firstByteMs.median)} ms`,
      ratio: firstByteRatio,
      pass: firstByteRatio <= 1.5,
    });
    const text = db.firstTextLine;
    marks.push({
      figure: "first `0:` line after the model's first chunk",
      mark: "within 20 ms, no batching",
      database: db.database,
      value: `${ms(text.firstLineDelayMs.median)} ms (max ${ms(text.firstLineDelayMs.max)}), ${text.batched ? "batched" : "not batched"}`,
      pass: text.firstLineDelayMs.median <= 20 && !text.batched,
      ...(text.batched ? { note: text.batchingSeen.join("; ") } : {}),
    });
    const paid = db.paid;
    const approvalRatio = ratio(paid.approvalToDeliveredMs, paid.serviceCallMs);
    const median = (get: (round: PaidRoundTrip) => number) => spread(paid.rounds.map(get)).median;
    marks.push({
      figure: "approval → `payment-complete` on the sandbox, model excluded",
      mark: "at most 1.2× settlement + service call",
      database: db.database,
      value: `${ms(paid.approvalToDeliveredMs.median)} vs ${ms(paid.serviceCallMs.median)} ms`,
      ratio: approvalRatio,
      pass: approvalRatio <= 1.2,
      note: `before the service call ${ms(median((round) => round.requestB.beforeServiceCallMs))} ms, after it ${ms(median((round) => round.requestB.afterServiceCallMs))} ms`,
    });
    marks.push({
      figure: "a whole paid request with a fast fake model (A + B)",
      mark: "under 1 s",
      database: db.database,
      value: `${ms(paid.wholeMs.median)} ms (A ${ms(paid.requestAMs.median)} + B ${ms(paid.requestBMs.median)})`,
      ratio: paid.wholeMs.median / 1000,
      pass: paid.wholeMs.median < 1000,
      note: `the first round trip after a start (cold caches): ${ms(paid.first.requestA.totalMs + paid.first.requestB.totalMs)} ms`,
    });
    const coldRatio = ratio(db.coldStartMs, results.bareColdStartMs);
    marks.push({
      figure: "cold start to first 200",
      mark: "at most 1.2× the bare app's",
      database: db.database,
      value: `${ms(db.coldStartMs.median)} vs ${ms(results.bareColdStartMs.median)} ms`,
      ratio: coldRatio,
      pass: coldRatio <= 1.2,
    });
  }
  if (results.channels) {
    const channel = results.channels;
    marks.push({
      figure: "a paid call on an open channel: approval → `p: delivered`",
      mark: "at most 1.2× the service's own answer (no transaction on the path)",
      value: `${ms(channel.approvalMs.median)} vs ${ms(channel.serviceMs.median)} ms`,
      ratio: channel.ratio,
      pass: channel.ratio <= 1.2,
      note: `the quote before it ${ms(channel.quoteMs.median)} ms, the channel key's signature ${ms(channel.signMs.median)} ms; beside the exact paid request's approval above, which waits for settlement`,
    });
    marks.push({
      figure: `${channel.calls} calls in a row on one channel`,
      mark: "one wallet signature",
      value: `${channel.walletSignatures} wallet signature${channel.walletSignatures === 1 ? "" : "s"}`,
      pass: channel.walletSignatures === 1,
    });
  }
  const js = results.firstLoadJs;
  const largest = js.chunks[0];
  marks.push({
    figure: "chat page First Load JS (gzip)",
    mark: "at most 250 kB gzip",
    value: kB(js.gzipBytes),
    ratio: js.gzipBytes / FIRST_LOAD_JS_LIMIT_BYTES,
    pass: js.gzipBytes <= FIRST_LOAD_JS_LIMIT_BYTES,
    ...(largest ? { note: `${js.chunks.length} chunks; the largest, ${largest.path}, is ${kB(largest.gzipBytes)}` } : {}),
  });
  const discovery = results.discovery;
  const slowest = Math.max(discovery.search.coldMs, discovery.search.warmMs.median, discovery.index.firstAnswerMs, discovery.index.warmMs.median, discovery.distant.coldMs, discovery.distant.warmMs.median);
  marks.push({
    figure: `discovery answer, ${discovery.listings.toLocaleString("en-US")}-listing registry`,
    mark: `within 2 s, cold and warm, with and without the registry's search, and with it ${discovery.distant.delayMs} ms away; the listing at 15,000 found`,
    value: `search ${ms(discovery.search.coldMs)} / ${ms(discovery.search.warmMs.median)} ms; index ${ms(discovery.index.firstAnswerMs)} / ${ms(discovery.index.warmMs.median)} ms; ${discovery.distant.delayMs} ms away ${ms(discovery.distant.coldMs)} / ${ms(discovery.distant.warmMs.median)} ms (cold / warm)`,
    ratio: slowest / DISCOVERY_LIMIT_MS,
    pass: slowest <= DISCOVERY_LIMIT_MS && discovery.search.found && discovery.index.found && discovery.distant.found,
    note: `without search, the whole catalogue was read in the background in ${ms(discovery.index.readMs)} ms`,
  });
  for (const ledger of results.ledger) {
    const ratios = ledger.paths.flatMap((path) => [
      { path: path.path, wallet: "typical", ratio: path.typicalMs.median / path.emptyMs.median },
      { path: path.path, wallet: "agent", ratio: path.heavyMs.median / path.emptyMs.median },
    ]);
    const worst = ratios.reduce((a, b) => (b.ratio > a.ratio ? b : a));
    marks.push({
      figure: `ledger of ${ledger.payments.toLocaleString("en-US")} payments: pre-flight, reservation, GET /api/spending`,
      mark: "each within 1.5× of the same on an empty ledger, for a typical wallet and one with 100,000 payments",
      database: ledger.database,
      value: ledger.paths.map((path) => `${path.path} ${ms(path.emptyMs.median)} → ${ms(path.typicalMs.median)} / ${ms(path.heavyMs.median)} ms`).join("; "),
      ratio: worst.ratio,
      pass: worst.ratio <= LEDGER_LIMIT_RATIO,
      note: `the largest ratio: ${worst.path}, ${worst.wallet} wallet, ${times(worst.ratio)}`,
    });
  }
  if (results.paymentsPerSecond) marks.push(paymentsPerSecondMark(results.paymentsPerSecond));
  marks.push(phoneMark(results.phone));
  return marks;
}

const DISCOVERY_LIMIT_MS = 2_000;
const LEDGER_LIMIT_RATIO = 1.5;

const PHONE_CATEGORIES: Array<[PhoneCategory, string]> = [
  ["performance", "performance"],
  ["accessibility", "accessibility"],
  ["best-practices", "best practices"],
];

/** One page's median scores, largest contentful paint and total blocking time. */
function phoneFigure(page: LighthouseResult["pages"][number]): string {
  const scores = PHONE_CATEGORIES.map(([category, name]) => `${name} ${page.scores[category].median}`).join(", ");
  return `${page.page}: ${scores}, LCP ${ms(page.largestContentfulPaintMs.median)} ms, TBT ${ms(page.totalBlockingTimeMs.median)} ms`;
}

function phoneMark(phone: LighthouseResult): Mark {
  const misses = phone.pages.flatMap((page) =>
    PHONE_CATEGORIES.filter(([category]) => page.scores[category].median < PHONE_MARKS[category]).map(([category, name]) => {
      const audits = page.medianRun.failing.filter((audit) => audit.category === category).map((audit) => audit.id);
      return `${page.page}, ${name} ${page.scores[category].median}${audits.length > 0 ? ` (${audits.join(", ")})` : ""}`;
    }),
  );
  return {
    figure: "the chat page on a phone (Lighthouse mobile)",
    mark: `performance ≥ ${PHONE_MARKS.performance}, accessibility ${PHONE_MARKS.accessibility}, best practices ≥ ${PHONE_MARKS["best-practices"]}`,
    value: `${phone.pages.map(phoneFigure).join("; ")} (median of ${phone.runsPerPage})`,
    pass: misses.length === 0,
    ...(misses.length > 0 ? { note: `under the mark: ${misses.join("; ")}` } : {}),
  };
}

const PPS_PARTS: CpuPart[] = ["app instances", "sandbox servers", "anvil", "PostgreSQL", "load generator", "rest of the machine"];
const medianP95 = (value: Percentiles) => (value.n === 0 ? "n/a" : `${ms(value.median)} / ${ms(value.p95)} ms`);

/** No numeric mark in the issue: a figure, passed when every approved payment was paid exactly once and the rate had stopped rising. */
function paymentsPerSecondMark(pps: PaymentsPerSecondResult): Mark {
  const best = pps.levels.find((level) => level.concurrency === pps.ceiling.concurrency);
  const failed = pps.levels.reduce((sum, level) => sum + level.failed, 0);
  const check = pps.verification;
  const problems = [
    failed > 0 ? `${failed} approvals did not end with payment-complete (${pps.levels.find((level) => level.firstFailure)?.firstFailure ?? ""})` : undefined,
    check.allPaidOnce ? undefined : `not every payment was paid exactly once: ${check.chainAuthorizations} authorizations used on chain, ${check.ledgerSettledWithStreamTx} settled ledger rows, ${check.exactBalances} exact balances, ${check.doublePayments} double payments, of ${check.approved}`,
    pps.ceilingFound ? undefined : "the rate still rose at the highest level: the ceiling is above it",
  ].filter(Boolean);
  return {
    figure: "payments per second: sustained approvals, two instances, one sandbox",
    mark: "a figure (no mark): every approved payment paid exactly once, and the ceiling found",
    database: "PostgreSQL",
    value: `${pps.ceiling.approvalsPerSecond.toFixed(1)} approvals/s at ${pps.ceiling.concurrency} in flight${best ? ` (latency median ${ms(best.latencyMs.median)} ms, p95 ${ms(best.latencyMs.p95)} ms)` : ""}; ${check.approved} paid, each once`,
    pass: problems.length === 0,
    note: [`what sets it: ${pps.setBy}`, ...problems].join("; "),
  };
}

function paymentsPerSecondSection(pps: PaymentsPerSecondResult): string[] {
  const out: string[] = [];
  const parts = (level: PaymentsPerSecondResult["levels"][number]) => PPS_PARTS.map((part) => ms(level.cpuMsPerPayment[part])).join(" / ");
  out.push("## Payments per second (PostgreSQL, two instances, one sandbox)");
  out.push("");
  out.push(
    `Two \`next start\` instances of the product on one PostgreSQL database (a fresh one) and one sandbox, the offline model, paying ${pps.service} (${pps.priceUsd} USDC; its handler takes 100 ms). ` +
      "The sandbox runs in a process of its own (`bench/sandbox-process.ts`), so that each part's CPU is read apart from /proc: the two apps' process trees, the sandbox's servers (facilitator, services, registry, in one Node process), anvil, PostgreSQL's server and its backends, the load generator (this process), and the rest of the machine (/proc/stat's busy time less all of these). " +
      "Every payment has its own funded wallet and its own client address (`CLIENT_IP_HEADER`), so no wallet's limit, lock or cooldown and no client's approval rate limit is the ceiling; `CHAT_COOLDOWN_SECONDS=0`. " +
      `Before each level its quotes (request A, ${pps.quoteConcurrency} at a time, median ${ms(pps.quoteMs.median)} ms) are made and signed, outside the level's window; the level then sends the approvals (request B), alternating between the instances, so many at a time, each read to its final \`payment-complete\` line. ` +
      "Approvals/s is the rate while all were in flight (the level's first and last rounds left out), the whole level's in brackets; latency is each approval's, sent → final line; CPU is per completed payment over the level; the facilitator's calls and the services' paid requests are timed in the sandbox's process.",
  );
  out.push("");
  out.push(
    table(
      [
        "in flight",
        "approvals",
        "approvals/s (whole level)",
        "latency median / p95",
        "per instance",
        `cores busy (of ${pps.cores})`,
        `CPU ms per payment: ${PPS_PARTS.join(" / ")}`,
        "facilitator `/settle` median / p95",
        "settles at once",
        "facilitator `/verify` median / p95",
        "paid service call median / p95",
        "failed",
      ],
      pps.levels.map((level) => [
        String(level.concurrency),
        String(level.sent),
        `${level.concurrency === pps.ceiling.concurrency ? "**" : ""}${level.approvalsPerSecond.toFixed(1)}${level.concurrency === pps.ceiling.concurrency ? "**" : ""} (${level.overallPerSecond.toFixed(1)})`,
        medianP95(level.latencyMs),
        level.perInstance.join(" / "),
        level.busyCores.toFixed(2),
        parts(level),
        medianP95(level.settleMs),
        String(level.settlesInFlight),
        medianP95(level.verifyMs),
        medianP95(level.serviceCallMs),
        String(level.failed),
      ]),
    ),
  );
  out.push("");
  const check = pps.verification;
  out.push(
    `Checked afterwards, payment by payment: ${check.approved} approvals ended with \`payment-complete\`, naming ${check.distinctTxHashes} distinct transactions; ` +
      `the chain shows ${check.chainAuthorizations} \`AuthorizationUsed\` events of these payers, and ${check.exactBalances} payers hold exactly what they were given less the price; ` +
      `the ledger holds ${check.ledgerRows} rows for them, ${check.ledgerSettledWithStreamTx} settled with the transaction their stream named; double payments: ${check.doublePayments}.`,
  );
  out.push("");
  const best = pps.levels.find((level) => level.concurrency === pps.ceiling.concurrency);
  const single = pps.levels[0];
  if (best && single) {
    const appMs = best.cpuMsPerPayment["app instances"];
    out.push(
      `**The ceiling**: ${pps.ceiling.approvalsPerSecond.toFixed(1)} approvals/s at ${best.concurrency} in flight${pps.ceilingFound ? "" : " (still rising: not yet the ceiling)"}. What sets it: ${pps.setBy}. ` +
        `Settlements ran up to ${best.settlesInFlight} at once: the facilitator gives each its own nonce, so they do not queue on one key; ` +
        `\`/settle\` took ${ms(best.settleMs.median)} ms at the median there against ${ms(single.settleMs.median)} ms with one in flight, and the paid service call ${ms(best.serviceCallMs.median)} against ${ms(single.serviceCallMs.median)} ms: waiting for the cores, not for a nonce or a block (anvil mines each transaction at once). ` +
        `The app instances' own share is ${ms(appMs)} ms of CPU per payment: on these ${pps.cores} cores with nothing else on them, about ${((pps.cores * 1000) / appMs).toFixed(0)} approvals/s; the rest of the CPU per payment is the sandbox's (facilitator, services, anvil), which in a deployment runs on other machines, the database's and the load generator's.`,
    );
    out.push("");
  }
  return out;
}

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

function paidTable(paid: PaidResult): string {
  const row = (step: string, get: (round: PaidRoundTrip) => number, count?: (round: PaidRoundTrip) => number) => [
    step,
    `${ms(get(paid.first))} ms${count ? ` (${count(paid.first)} ${count(paid.first) === 1 ? "call" : "calls"})` : ""}`,
    withRange(spread(paid.rounds.map(get))),
    count ? String(spread(paid.rounds.map(count)).median) : "",
  ];
  return table(
    ["step (one clock)", "first round trip (cold caches)", `next ${paid.rounds.length}: median (min-max)`, "calls"],
    [
      row("**request A** (the quote): sent → answer ended", (r) => r.requestA.totalMs),
      row("A: sent → status line", (r) => r.requestA.firstByteMs),
      row("A: registry requests (discovery, which the product caches), summed", (r) => r.requestA.registryMs, (r) => r.requestA.registryCalls),
      row("A: unpaid service requests (the 402), summed", (r) => r.requestA.serviceProbeMs, (r) => r.requestA.serviceProbes),
      row("A: chain calls (pre-flight, balance read), summed", (r) => r.requestA.chainMs, (r) => r.requestA.chainCalls),
      row("A: sent → `p: awaiting-signature` line", (r) => r.requestA.quoteLineMs),
      row("the test wallet signs (client side, between A and B)", (r) => r.signMs),
      row("**request B** (the approval): sent → answer ended", (r) => r.requestB.totalMs),
      row("B: sent → status line", (r) => r.requestB.firstByteMs),
      row("B: sent → paid request at the service (token, signature, pre-flight, reservation)", (r) => r.requestB.beforeServiceCallMs),
      row("B: of which chain calls, summed", (r) => r.requestB.chainMsBeforeService, (r) => r.requestB.chainCallsBeforeService),
      row("B: **the service call** at the service (verify + handler + settle)", (r) => r.requestB.serviceCallMs),
      row("B: of which facilitator `/verify`", (r) => r.requestB.verifyMs),
      row("B: of which facilitator `/settle` (settlement on chain)", (r) => r.requestB.settleMs),
      row("B: service answer ended → `p: delivered` line (ledger write, stream)", (r) => r.requestB.afterServiceCallMs),
      row("B: sent → `p: confirmed` line", (r) => r.requestB.confirmedLineMs),
      row("B: sent → `p: delivered` line (approval → payment-complete, model excluded)", (r) => r.requestB.deliveredLineMs),
      row("B: `p: delivered` → final `d:` line (the model's turn on the result)", (r) => r.requestB.modelTurnMs),
    ],
  );
}

export function renderResults(results: BenchResults): string {
  const { machine, versions } = results;
  const out: string[] = [];
  out.push("# Benchmarks: `npm run bench`");
  out.push("");
  out.push(
    `Written by \`bench/run.ts\` on ${results.generatedAt} in ${results.durationSeconds} s; the same figures are in \`bench/results.json\`. ` +
      "Every figure is a median over rounds or samples, with min-max in brackets; every mark is a ratio between figures from this one run.",
  );
  out.push("");
  out.push("## Machine");
  out.push("");
  out.push(
    table(
      ["", ""],
      [
        ["CPU", `${machine.cpuModel}`],
        ["cores", String(machine.cores)],
        ["memory", `${machine.memoryGb} GB`],
        ["OS", machine.os],
        ["load average (1, 5, 15 min) at start / end", `${machine.loadAverageAtStart.join(", ")} / ${machine.loadAverageAtEnd.join(", ")}`],
        [
          "client and server share cores",
          `yes: the load generator (this process), the servers and the sandbox all run on these ${machine.cores} cores, and the machine may be shared with other work; absolute figures are noisy, compare the ratios`,
        ],
        ...Object.entries(versions).map(([name, version]) => [name, version]),
      ],
    ),
  );
  out.push("");
  out.push(
    `Builds: ${Object.entries(results.builds)
      .map(([name, build]) => `${name} ${build.built ? `built (${build.reason}, ${build.seconds.toFixed(0)} s)` : "reused (fresh)"}`)
      .join("; ")}. Settings: ${Object.entries(results.settings)
      .map(([name, value]) => `${name} ${value}`)
      .join(", ")}. Time spent: ${Object.entries(results.phases)
      .map(([name, seconds]) => `${name} ${seconds} s`)
      .join(", ")}.`,
  );
  out.push("");
  out.push("## Marks");
  out.push("");
  out.push(
    table(
      ["figure", "mark", "database", "figure (this run)", "ratio", "result", "what holds it back / notes"],
      results.marks.map((mark) => [
        mark.figure,
        mark.mark,
        mark.database ?? "",
        mark.value,
        mark.ratio === undefined ? "" : times(mark.ratio),
        mark.pass ? "pass" : "**fail**",
        [mark.pass ? undefined : HOLDS_BACK[mark.figure], mark.note].filter(Boolean).join("; "),
      ]),
    ),
  );
  out.push("");
  out.push("## What changed and what each change bought");
  out.push("");
  out.push(
    "Each change was found and checked with `npm run bench:profile` (V8's profiler on the production server under the same load, samples mapped back to their sources); the evidence is the profile's, the marks below are this run's. Listed in `bench/changes.ts`.",
  );
  out.push("");
  out.push(table(["change", "files", "what it bought (profile)"], CHANGES.map((change) => [change.change, change.files, change.bought])));
  out.push("");
  out.push(
    table(
      ["figure", "before the changes (run of 2026-11-23 12:03 UTC)", "this run"],
      results.marks.map((mark) => [
        `${mark.figure}${mark.database ? ` (${mark.database})` : ""}`,
        BEFORE[mark.figure] ?? "",
        `${mark.ratio === undefined || mark.figure.startsWith("chat page") || mark.figure.startsWith("a whole") ? mark.value : `${times(mark.ratio)} (${mark.value})`}${mark.pass ? "" : ", not reached"}`,
      ]),
    ),
  );
  out.push("");
  out.push(CAVEAT);
  out.push("");
  out.push("## Chat route: throughput and server CPU per request");
  out.push("");
  out.push(
    `Zero-latency models. The product's \`POST /api/chat\` with the offline model answering "hello" (${results.replyLines} \`0:\` lines, ${results.replyBytes} bytes); ` +
      "the reference app (`bench/reference-app`, built and served by the same `next`) streams the same text pieces: `/ai-sdk` is what chat templates ship " +
      "(`streamText` with a mock model from `ai/test` → `toUIMessageStreamResponse()`), `/bare` is a plain `ReadableStream` of the same lines (the framework's floor). " +
      `${results.settings.connections} keep-alive connections, ${results.settings.rounds} interleaved rounds of ${(results.settings.roundMs ?? 0) / 1000} s after a warm-up. ` +
      "Server CPU is the user + system time of the server's process tree (/proc/<pid>/stat) over the round ÷ requests completed; client CPU is the load generator's.",
  );
  out.push("");
  out.push(
    table(
      ["route", "req/s", "server CPU per request", "client CPU per request", "latency under load", "failed"],
      results.throughput.map((entry) => [
        entry.name,
        withRange(entry.requestsPerSecond, "", (value) => value.toFixed(0)),
        withRange(entry.serverCpuMsPerRequest),
        withRange(entry.clientCpuMsPerRequest),
        withRange(entry.latencyMs),
        String(entry.failed),
      ]),
    ),
  );
  out.push("");
  const ratioRows: string[][] = [];
  for (const db of results.databases) {
    const name = productName(db.database);
    for (const other of [AI_SDK, BARE]) {
      ratioRows.push([
        `${name} ÷ ${other}`,
        withRange(roundRatios(results.throughput, name, other, (round) => round.requestsPerSecond), "×", (value) => value.toFixed(2)),
        withRange(roundRatios(results.throughput, name, other, (round) => round.serverCpuMsPerRequest), "×", (value) => value.toFixed(2)),
      ]);
    }
  }
  ratioRows.push([
    `${AI_SDK} ÷ ${BARE}`,
    withRange(roundRatios(results.throughput, AI_SDK, BARE, (round) => round.requestsPerSecond), "×", (value) => value.toFixed(2)),
    withRange(roundRatios(results.throughput, AI_SDK, BARE, (round) => round.serverCpuMsPerRequest), "×", (value) => value.toFixed(2)),
  ]);
  out.push("Ratios, round by round (each pair ran back to back):");
  out.push("");
  out.push(table(["pair", "throughput ratio", "server CPU ratio"], ratioRows));
  out.push("");
  out.push("## Time to first byte (single requests, idle server)");
  out.push("");
  out.push(`${results.settings.firstByteSamples} requests per route, interleaved, each on a new connection.`);
  out.push("");
  out.push(
    table(
      ["route", "sent → status line", "sent → first body bytes"],
      results.firstByte.map((entry) => [entry.name, withRange(entry.firstByteMs), withRange(entry.firstBodyMs)]),
    ),
  );
  out.push("");
  out.push("## Cold start: spawn of `next start` → first 200");
  out.push("");
  out.push(
    `One unmeasured warm-up start, then ${results.settings.coldStartRounds} rounds, interleaved; the route is polled every 5 ms: the product's \`POST /api/chat\` ("hello", an existing database), the bare app's \`POST /bare\`.`,
  );
  out.push("");
  out.push(
    table(
      ["app", "spawn → first 200"],
      [...results.databases.map((db) => [productName(db.database), withRange(db.coldStartMs)]), ["bare reference app", withRange(results.bareColdStartMs)]],
    ),
  );
  out.push("");
  out.push("## First `0:` line after the model's first chunk");
  out.push("");
  for (const db of results.databases) {
    const text = db.firstTextLine;
    out.push(
      `${db.database}: a fake Gemini (\`tests/fixtures/fake-gemini.ts\`, reached by the real \`@ai-sdk/google\` provider through \`GOOGLE_GENERATIVE_AI_BASE_URL\`) sends ${text.pieces} text chunks ${text.intervalMs} ms apart; ` +
        `${text.requests} requests after a warm-up. From the fake's write of a chunk to the client's read of its \`0:\` line, one clock: ` +
        `first chunk ${withRange(text.firstLineDelayMs)}, every chunk ${withRange(text.everyLineDelayMs)}. ` +
        (text.batched ? `Batching seen: ${text.batchingSeen.join("; ")}.` : "Every chunk arrived as its own line in its own read: no batching."),
    );
    out.push("");
  }
  out.push("## The paid round trip on the sandbox");
  out.push("");
  for (const db of results.databases) {
    const paid = db.paid;
    out.push(
      `${db.database}: "${paid.prompt}" with the offline model (zero latency) on the sandbox (anvil, USDC, facilitator, services, registry), ` +
        `paying ${paid.first.service}; the first round trip after the server started (discovery and clients not yet cached), then ${paid.rounds.length} more. ` +
        "The sandbox runs in the bench's process: its servers' requests are timed as they start and end, and the product's chain calls pass through a timing relay in front of anvil.",
    );
    out.push("");
    out.push(paidTable(paid));
    out.push("");
  }
  out.push(
    "Not yet broken down: inside the product, the approval token check, the signature check, the reservation and the ledger writes are not timed separately " +
      "(they are the gaps before and after the service call above), nor are the model's turns in request A (between the registry, the 402 and the chain calls). " +
      "Settlement is timed as the facilitator's `/settle` (the transaction and its receipt on anvil).",
  );
  out.push("");
  out.push("## Discovery in a registry of 20,000 listings");
  out.push("");
  const discovery = results.discovery;
  out.push(
    "The sandbox's registry filled with 20,000 listings, read through `lib/x402/discovery.ts` in the bench's process as the tools read it; the listing searched for sits at position 15,000. " +
      "Cold: the first query after a fresh start (the first pages, then the search; without search, the answer given at the deadline while the catalogue is read in the background). Warm: the next queries.",
  );
  out.push("");
  out.push(
    table(
      ["registry", "cold", "warm: median (min-max)", "whole catalogue read", "found at 15,000"],
      [
        ["with `GET /discovery/search`", `${ms(discovery.search.coldMs)} ms`, withRange(discovery.search.warmMs), "not needed for a query", discovery.search.found ? "yes" : "**no**"],
        ["without search (local index)", `${ms(discovery.index.firstAnswerMs)} ms`, withRange(discovery.index.warmMs), `${ms(discovery.index.readMs)} ms, in the background`, discovery.index.found ? "yes" : "**no**"],
        [`with search, ${discovery.distant.delayMs} ms away`, `${ms(discovery.distant.coldMs)} ms`, withRange(discovery.distant.warmMs), "not needed for a query", discovery.distant.found ? "yes" : "**no**"],
      ],
    ),
  );
  out.push("");
  out.push("## The ledger at 1,000,000 payments");
  out.push("");
  out.push(
    "What every payment asks of the ledger, timed through `lib/payments` as the routes call it (median of 30, after one untimed run): pre-flight's limit check, the reservation (its lock, its limit check and its insert), and `GET /api/spending`'s report. " +
      "First on an empty ledger, then on one of 1,000,000 payments over 10,000 wallets, seeded in SQL, its totals made as the migration makes them, then ANALYZE: a typical wallet (about 90 payments over a year) and an agent's wallet with 100,000 (about 1,700 a day for 60 days). " +
      "The limits and the report read the hourly and daily totals (migration 8), and the lists each wallet's newest payments from an index, so neither grows with a wallet's history.",
  );
  out.push("");
  for (const ledger of results.ledger) {
    out.push(`${ledger.database}, seeded in ${ledger.seedSeconds} s:`);
    out.push("");
    out.push(
      table(
        ["path", "empty ledger", "typical wallet", "agent wallet (100,000 payments)", "ratios to empty"],
        ledger.paths.map((path) => [
          path.path,
          withRange(path.emptyMs),
          withRange(path.typicalMs),
          withRange(path.heavyMs),
          `${times(path.typicalMs.median / path.emptyMs.median)} / ${times(path.heavyMs.median / path.emptyMs.median)}`,
        ]),
      ),
    );
    out.push("");
  }
  if (results.paymentsPerSecond) out.push(...paymentsPerSecondSection(results.paymentsPerSecond));
  out.push("## The chat page's First Load JS");
  out.push("");
  const js = results.firstLoadJs;
  out.push(
    `\`${js.route}\`: ${js.chunks.length} chunks, ${kB(js.bytes)} raw, **${kB(js.gzipBytes)} gzip** (each chunk gzipped alone, default level), from \`${js.source}\`.`,
  );
  out.push("");
  out.push(table(["chunk", "raw", "gzip"], js.chunks.map((chunk) => [chunk.path, kB(chunk.bytes), kB(chunk.gzipBytes)])));
  out.push("");
  out.push("## The chat page on a phone (Lighthouse)");
  out.push("");
  const phone = results.phone;
  out.push(
    `Lighthouse ${phone.lighthouse}, its mobile preset (${phone.settings}), in the Chromium the end-to-end tests drive (${phone.chromium}), headless, ` +
      "against the production build on the sandbox as `npm run demo` serves it (the offline model, the sandbox's demo wallet among the wallets), " +
      `each run in a fresh browser profile; one unmeasured run of each page, then ${phone.runsPerPage} of each, in turns. ` +
      "**The empty chat**: a first visit. **A quote**: the page opened, the sandbox demo wallet connected and " +
      `"${phone.prompt}" asked, as a person would, until the quote card waits for approval; then Lighthouse loads the page again in that tab, and the conversation comes back from the tab's session storage with the wallet reconnecting. ` +
      "Scores are Lighthouse's (0-100); figures are medians (min-max). The simulated phone's CPU is this machine's slowed 4×, so its CPU time, shared with other work, weighs in every run.",
  );
  out.push("");
  out.push(
    table(
      ["page", ...PHONE_CATEGORIES.map(([, name]) => name), "largest contentful paint", "total blocking time", "first contentful paint", "layout shift"],
      phone.pages.map((page) => [
        page.page,
        ...PHONE_CATEGORIES.map(([category]) => withRange(page.scores[category], "", (value) => value.toFixed(0))),
        withRange(page.largestContentfulPaintMs),
        withRange(page.totalBlockingTimeMs),
        withRange(spread(page.runs.map((run) => run.firstContentfulPaintMs))),
        withRange(spread(page.runs.map((run) => run.cumulativeLayoutShift)), "", (value) => value.toFixed(3)),
      ]),
    ),
  );
  out.push("");
  for (const page of phone.pages) {
    const run = page.medianRun;
    const failing = run.failing.map((audit) => `\`${audit.id}\`${audit.displayValue ? ` (${audit.displayValue})` : ""}`);
    out.push(
      `- ${page.page}, the run with the median performance: largest contentful paint ${run.lcpElement ? `of \`${run.lcpElement.replace(/`/g, "'")}\`` : "(element not named)"}; ` +
        `Lighthouse's benchmark index of this machine ${run.benchmarkIndex.toFixed(0)}; ` +
        (failing.length > 0 ? `the audits that cost points in a category under its mark: ${failing.join(", ")}.` : "every category at its mark."),
    );
  }
  out.push("");
  if (results.notRun.length > 0) {
    out.push("## Not run");
    out.push("");
    for (const line of results.notRun) out.push(`- ${line}`);
    out.push("");
  }
  return out.join("\n");
}
