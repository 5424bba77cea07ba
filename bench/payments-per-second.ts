// Payments per second: sustained approvals against one sandbox, with two `next start` instances
// of the product on one PostgreSQL database, as a host with several instances runs it. The
// sandbox runs in a process of its own (bench/sandbox-process.ts), so that the CPU of each part
// is read apart: the two apps, the sandbox's servers (facilitator, services, registry), anvil,
// PostgreSQL and the load generator. Every payment has its own funded wallet and its own client
// address, so no wallet's limit or lock and no client's rate limit is the ceiling. The quotes
// (request A) are made and signed before each level, outside its window; the level then sends
// the approvals (request B), alternating between the two instances, `concurrency` at a time,
// each read to its final `payment-complete` line. Afterwards every payment is checked on the
// chain (one `AuthorizationUsed` and exactly the price gone from each wallet) and in the ledger
// (one settled row each, with the transaction the stream named).
import { fork, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { Agent } from "node:http";
import { cpus } from "node:os";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { createPublicClient, createWalletClient, erc20Abi, http, parseAbiItem } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { decodeLine, isFinishLine, type PaymentStatus } from "@/lib/protocol/lines";
import { chainEnvOf, type SandboxInfo } from "@/sandbox";
import { MULTICALL3_ADDRESS } from "@/sandbox/chain";
import { createScratchDatabase } from "@/tests/helpers/database";
import { generousLimits, signQuote } from "@/tests/helpers/paid-chat";
import { post, type Exchange } from "./http-client";
import { PAID_PROMPT } from "./paid-round-trip";
import { treeCpuSeconds } from "./process-cpu";
import { spread } from "./stats";
import type { SandboxProcessCommand, SandboxProcessMessage, TimedSandboxCall } from "./sandbox-process";
import { startApp, type RunningApp, type Teardown } from "./servers";

/** The parts whose CPU is read apart. */
export const cpuParts = ["app instances", "sandbox servers", "anvil", "PostgreSQL", "load generator", "rest of the machine"] as const;
export type CpuPart = (typeof cpuParts)[number];

export type Percentiles = { median: number; p95: number; max: number; n: number };

export type PaymentsPerSecondLevel = {
  concurrency: number;
  /** Approvals sent in the level. */
  sent: number;
  /** Answered 200 and ended with `payment-complete`. */
  completed: number;
  failed: number;
  firstFailure?: string;
  /** From the first approval sent to the last answer read. */
  seconds: number;
  /**
   * Sustained: completed approvals per second while all `concurrency` were in flight, from the
   * `concurrency`-th answer to the `concurrency`-th from last (the level's first and last rounds,
   * when fewer were in flight, left out).
   */
  approvalsPerSecond: number;
  /** Over the whole level: completed ÷ seconds. */
  overallPerSecond: number;
  /** Sent → the final `d:` line read, per approval. */
  latencyMs: Percentiles;
  /** Completed approvals per instance (they alternate). */
  perInstance: number[];
  /** CPU ms per completed payment, by part, over the level's window. */
  cpuMsPerPayment: Record<CpuPart, number>;
  /** Cores busy over the window (the machine's /proc/stat), of `cores`. */
  busyCores: number;
  /** The facilitator's `/settle` and `/verify`, the services' paid requests (verify + handler + settle), as the sandbox timed them. */
  settleMs: Percentiles;
  verifyMs: Percentiles;
  serviceCallMs: Percentiles;
  /** The most `/settle` calls the facilitator had in flight at once. */
  settlesInFlight: number;
};

export type PaymentsPerSecondVerification = {
  approved: number;
  /** Distinct transactions named by the `payment-complete` lines. */
  distinctTxHashes: number;
  /** The ledger's rows for these payments: settled, each with the transaction its stream named. */
  ledgerRows: number;
  ledgerSettledWithStreamTx: number;
  /** `AuthorizationUsed` events of the payers' authorizations on the chain. */
  chainAuthorizations: number;
  /** Payers whose balance is exactly what they were funded less the price. */
  exactBalances: number;
  /** Payers charged more than once (by the chain's events or their balance), or payments with more than one ledger row. */
  doublePayments: number;
  /** Every approved payment paid exactly once, on the chain and in the ledger. */
  allPaidOnce: boolean;
};

export type PaymentsPerSecondResult = {
  service: string;
  priceUsd: string;
  instances: number;
  cores: number;
  /** Request A, made and signed before each level, outside its window: per quote, at `quoteConcurrency`. */
  quoteMs: Percentiles;
  quoteConcurrency: number;
  levels: PaymentsPerSecondLevel[];
  ceiling: { concurrency: number; approvalsPerSecond: number };
  /** The last two levels sent each added under 10% to the best rate before them: the curve had flattened, and no higher level was sent. */
  ceilingFound: boolean;
  /** At the ceiling, what the CPU went to, largest first, in words. */
  setBy: string;
  verification: PaymentsPerSecondVerification;
};

export type MeasurePaymentsPerSecondParameters = {
  teardown: Teardown;
  root: string;
  /** The product's environment (the bench's production settings); DATABASE_URL names the server the phase makes its own database on. */
  env: Record<string, string | undefined>;
  levels?: readonly number[];
  /** Approvals sent at a level of `concurrency`. */
  paymentsAt?: (concurrency: number) => number;
  log?: (line: string) => void;
};

/** Doubled until the rate stops rising (see the loop), up to 256 in flight. */
export const DEFAULT_LEVELS = [1, 2, 4, 8, 16, 32, 64, 128, 256] as const;
/** At least 12 rounds per connection, and never fewer than 24 payments. */
export const defaultPaymentsAt = (concurrency: number) => Math.max(24, concurrency * 12);

const QUOTE_CONCURRENCY = 4;
const PAYER_USDC = 1_000_000n;
/** The header the instances are told to read the client's address from (CLIENT_IP_HEADER). */
const CLIENT_HEADER = "x-bench-client";

const SANDBOX_PROCESS = fileURLToPath(new URL("./sandbox-process.ts", import.meta.url));

/** Whether level `index` added under 10% to the best rate of the levels before it. */
function addedLittle(levels: readonly PaymentsPerSecondLevel[], index: number): boolean {
  const level = levels[index];
  if (!level || index < 1) return false;
  const bestBefore = Math.max(...levels.slice(0, index).map((earlier) => earlier.approvalsPerSecond));
  return level.approvalsPerSecond < bestBefore * 1.1;
}

/** The ceiling is found once two doublings in a row of the approvals in flight each added under
 * 10% to the best rate before them (one alone can be a pause in a curve that still rises: one run
 * measured 34.9 and 36.6 approvals/s at 8 and 16 in flight, where others reached 41 at 64). */
function flattened(levels: readonly PaymentsPerSecondLevel[]): boolean {
  return addedLittle(levels, levels.length - 1) && addedLittle(levels, levels.length - 2);
}

/** The bench's median and maximum (bench/stats.ts), and the 95th percentile. */
function percentiles(values: readonly number[]): Percentiles {
  const { median, max, n } = spread(values);
  const sorted = [...values].sort((a, b) => a - b);
  const p95 = n === 0 ? Number.NaN : (sorted[Math.min(n - 1, Math.ceil(0.95 * n) - 1)] as number);
  return { median, p95, max, n };
}

// --- the sandbox's process -------------------------------------------------------------------

type SandboxProcess = {
  info: SandboxInfo;
  pid: number;
  anvilPid: number | undefined;
  takeCalls(): Promise<TimedSandboxCall[]>;
  stop(): Promise<void>;
};

async function startSandboxProcess(teardown: Teardown): Promise<SandboxProcess> {
  const child: ChildProcess = fork(SANDBOX_PROCESS, [], {
    // TypeScript through tsx, found from this file rather than from the working directory.
    execArgv: ["--import", import.meta.resolve("tsx")],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    serialization: "advanced",
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      child.once("exit", () => {
        clearTimeout(killer);
        resolve();
      });
      child.send({ type: "stop" } satisfies SandboxProcessCommand, (error) => {
        if (error) child.kill("SIGTERM");
      });
    });
  const forget = teardown.add(stop);
  const ready = await new Promise<Extract<SandboxProcessMessage, { type: "ready" }>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the sandbox's process did not start within 180 s")), 180_000);
    child.once("exit", (code) => reject(new Error(`the sandbox's process exited (${code}) before it was ready`)));
    child.on("message", (message: SandboxProcessMessage) => {
      if (message.type === "ready") {
        clearTimeout(timer);
        resolve(message);
      } else if (message.type === "failed") {
        clearTimeout(timer);
        reject(new Error(`the sandbox did not start: ${message.message}`));
      }
    });
  }).catch(async (error: unknown) => {
    await stop();
    forget();
    throw error;
  });
  if (child.pid === undefined) throw new Error("the sandbox's process has no pid");
  return {
    info: ready.info,
    pid: child.pid,
    anvilPid: ready.anvilPid,
    takeCalls: () =>
      new Promise((resolve) => {
        const onMessage = (message: SandboxProcessMessage) => {
          if (message.type !== "calls") return;
          child.off("message", onMessage);
          resolve(message.calls);
        };
        child.on("message", onMessage);
        child.send({ type: "take-calls" } satisfies SandboxProcessCommand);
      }),
    stop: async () => {
      await stop();
      forget();
    },
  };
}

// --- CPU of each part ------------------------------------------------------------------------

/** The PostgreSQL server listening on this URL's port: its postmaster, whose children are the backends. */
function postmasterPid(databaseUrl: string): number | undefined {
  const port = new URL(databaseUrl).port || "5432";
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (!argv[0]?.endsWith("postgres")) continue;
      const flag = argv.indexOf("-p");
      if (flag !== -1 && argv[flag + 1] === port) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** The machine's busy and total time so far, in /proc/stat's ticks (all cores). */
function machineTicks(): { busy: number; total: number } {
  const [cpuLine = ""] = readFileSync("/proc/stat", "utf8").split("\n");
  const fields = cpuLine.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already in user)
  const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

type CpuReading = { parts: Record<Exclude<CpuPart, "rest of the machine">, number>; machine: { busy: number; total: number } };

function readCpu(pids: { apps: number[]; sandbox: number; anvil: number | undefined; postgres: number | undefined }): CpuReading {
  const anvil = pids.anvil === undefined ? 0 : treeCpuSeconds(pids.anvil);
  const own = process.cpuUsage();
  return {
    parts: {
      "app instances": pids.apps.reduce((sum, pid) => sum + treeCpuSeconds(pid), 0),
      "sandbox servers": treeCpuSeconds(pids.sandbox) - anvil,
      anvil,
      PostgreSQL: pids.postgres === undefined ? 0 : treeCpuSeconds(pids.postgres),
      "load generator": (own.user + own.system) / 1e6,
    },
    machine: machineTicks(),
  };
}

// --- payers, quotes, approvals ---------------------------------------------------------------

/** Mints USDC to each payer from the sandbox's funder, many transactions in flight at once (their
 * nonces counted here, and sent in their order: a nonce that reaches the chain before the one
 * before it waits in its pool). */
async function fundPayers(info: SandboxInfo, payers: readonly PrivateKeyAccount[], usdc: bigint): Promise<void> {
  const transport = http(info.rpcUrl);
  const account = privateKeyToAccount(info.funder.privateKey);
  const wallet = createWalletClient({ account, chain: foundry, transport });
  const chain = createPublicClient({ chain: foundry, transport });
  const mintAbi = [parseAbiItem("function mint(address to, uint256 amount) returns (bool)")];
  let nonce = await chain.getTransactionCount({ address: account.address, blockTag: "pending" });
  for (let start = 0; start < payers.length; start += 32) {
    const hashes: `0x${string}`[] = [];
    for (const payer of payers.slice(start, start + 32)) {
      hashes.push(await wallet.writeContract({ address: info.usdc.address, abi: mintAbi, functionName: "mint", args: [payer.address, usdc], gas: 200_000n, nonce: nonce++ }));
    }
    for (const hash of hashes) {
      const receipt = await chain.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      if (receipt.status !== "success") throw new Error("minting USDC to a payer reverted");
    }
  }
}

/** A payer's own client address, as the deployment's proxy would report it. */
const clientAddressOf = (index: number) => `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;

type Prepared = { payer: PrivateKeyAccount; client: string; body: string };

const chatBody = (payer: PrivateKeyAccount, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ messages: [{ role: "user", content: PAID_PROMPT }], walletAddress: payer.address, spendingLimits: generousLimits, ...extra });

function quoteOf(exchange: Exchange): PaymentStatus | undefined {
  for (const raw of exchange.body.split("\n")) {
    if (!raw.startsWith("p:")) continue;
    const line = decodeLine(raw);
    if (line.type === "payment" && line.payment.status === "awaiting-signature") return line.payment;
  }
  return undefined;
}

/** Request A at one of the apps, then the payer's signature: the approval ready to send. */
async function prepareApproval(app: RunningApp, payer: PrivateKeyAccount, client: string): Promise<{ prepared: Prepared; ms: number }> {
  const exchange = await post(new URL("/api/chat", app.origin), chatBody(payer), { headers: { [CLIENT_HEADER]: client } });
  const quote = quoteOf(exchange);
  if (exchange.status !== 200 || !quote?.approval) throw new Error(`request A gave no quote (${exchange.status}): ${exchange.body.slice(0, 400)}`);
  const signature = await signQuote(payer, quote);
  const payment = { paymentId: quote.paymentId, token: quote.approval.token, signature };
  return { prepared: { payer, client, body: chatBody(payer, { payment }) }, ms: exchange.endedAt - exchange.sentAt };
}

/** Runs `work` over `items`, `concurrency` at a time, in order of start. */
async function pool<T>(items: readonly T[], concurrency: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < items.length; index = next++) await work(items[index] as T, index);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

type Answer = { ok: boolean; ms: number; endedAt: number; txHash?: string; failure?: string; instance: number };

function finishOfBody(body: string): { finishReason?: string; txHash?: string } {
  const last = body.trimEnd().split("\n").at(-1) ?? "";
  if (!last.startsWith("d:")) return {};
  const line = decodeLine(last);
  return isFinishLine(line) ? { finishReason: line.data.finishReason, ...(line.data.txHash ? { txHash: line.data.txHash } : {}) } : {};
}

function callStats(calls: readonly TimedSandboxCall[]) {
  const durations = (keep: (call: TimedSandboxCall) => boolean) => percentiles(calls.filter(keep).map((call) => call.end - call.start));
  const settles = calls.filter((call) => call.role === "facilitator" && call.path === "/settle");
  const events = settles.flatMap((call) => [
    { at: call.start, step: 1 },
    { at: call.end, step: -1 },
  ]);
  events.sort((a, b) => a.at - b.at || a.step - b.step);
  let inFlight = 0;
  let most = 0;
  for (const event of events) {
    inFlight += event.step;
    most = Math.max(most, inFlight);
  }
  return {
    settleMs: durations((call) => call.role === "facilitator" && call.path === "/settle"),
    verifyMs: durations((call) => call.role === "facilitator" && call.path === "/verify"),
    serviceCallMs: durations((call) => call.role === "service" && call.paid),
    settlesInFlight: most,
  };
}

/** Completions per second between the `concurrency`-th answer and the `concurrency`-th from last. */
function sustainedRate(completed: readonly Answer[], concurrency: number): number {
  const ends = completed.map((answer) => answer.endedAt).sort((a, b) => a - b);
  const from = ends[concurrency - 1];
  const to = ends[ends.length - concurrency];
  if (from === undefined || to === undefined || to <= from) return Number.NaN;
  return (ends.length - 2 * concurrency + 1) / ((to - from) / 1000);
}

// --- verification ----------------------------------------------------------------------------

async function verifyPayments({
  info,
  databaseUrl,
  paid,
  price,
}: {
  info: SandboxInfo;
  databaseUrl: string;
  paid: Array<{ payer: PrivateKeyAccount; txHash: string | undefined }>;
  price: bigint;
}): Promise<PaymentsPerSecondVerification> {
  const chain = createPublicClient({ chain: foundry, transport: http(info.rpcUrl) });
  const payers = new Set(paid.map(({ payer }) => payer.address.toLowerCase()));
  const events = await chain.getLogs({
    address: info.usdc.address,
    event: parseAbiItem("event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)"),
    fromBlock: 0n,
    toBlock: "latest",
  });
  const usedBy = new Map<string, number>();
  for (const event of events) {
    const authorizer = event.args.authorizer?.toLowerCase();
    if (authorizer && payers.has(authorizer)) usedBy.set(authorizer, (usedBy.get(authorizer) ?? 0) + 1);
  }
  const balances = await chain.multicall({
    contracts: paid.map(({ payer }) => ({ address: info.usdc.address, abi: erc20Abi, functionName: "balanceOf" as const, args: [payer.address] as const })),
    allowFailure: false,
    multicallAddress: MULTICALL3_ADDRESS,
    batchSize: 4_096,
  });
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let rows: Array<{ wallet: string; status: string; tx_hash: string | null }>;
  try {
    rows = (await client.query<{ wallet: string; status: string; tx_hash: string | null }>("SELECT wallet, status, tx_hash FROM payments")).rows;
  } finally {
    await client.end();
  }
  const rowsBy = new Map<string, Array<{ status: string; tx_hash: string | null }>>();
  for (const row of rows) rowsBy.set(row.wallet.toLowerCase(), [...(rowsBy.get(row.wallet.toLowerCase()) ?? []), row]);
  let settledWithStreamTx = 0;
  let doublePayments = 0;
  let exactBalances = 0;
  paid.forEach(({ payer, txHash }, index) => {
    const key = payer.address.toLowerCase();
    const own = rowsBy.get(key) ?? [];
    const [row] = own;
    if (own.length === 1 && row?.status === "settled" && txHash && row.tx_hash?.toLowerCase() === txHash.toLowerCase()) settledWithStreamTx += 1;
    const balance = balances[index] as bigint;
    if (balance === PAYER_USDC - price) exactBalances += 1;
    if ((usedBy.get(key) ?? 0) > 1 || balance < PAYER_USDC - price || own.length > 1) doublePayments += 1;
  });
  const chainAuthorizations = [...usedBy.values()].reduce((sum, count) => sum + count, 0);
  const distinctTxHashes = new Set(paid.flatMap(({ txHash }) => (txHash ? [txHash.toLowerCase()] : []))).size;
  const ledgerRows = paid.reduce((sum, { payer }) => sum + (rowsBy.get(payer.address.toLowerCase())?.length ?? 0), 0);
  return {
    approved: paid.length,
    distinctTxHashes,
    ledgerRows,
    ledgerSettledWithStreamTx: settledWithStreamTx,
    chainAuthorizations,
    exactBalances,
    doublePayments,
    allPaidOnce:
      doublePayments === 0 &&
      distinctTxHashes === paid.length &&
      settledWithStreamTx === paid.length &&
      chainAuthorizations === paid.length &&
      exactBalances === paid.length,
  };
}

// --- the phase -------------------------------------------------------------------------------

function describeCeiling(level: PaymentsPerSecondLevel, next: PaymentsPerSecondLevel | undefined, cores: number): string {
  const parts = cpuParts
    .map((part) => ({ part, ms: level.cpuMsPerPayment[part] }))
    .filter(({ ms }) => ms > 0)
    .sort((a, b) => b.ms - a.ms);
  const total = parts.reduce((sum, { ms }) => sum + ms, 0);
  const shares = parts.map(({ part, ms }) => `${part} ${Math.round((ms / total) * 100)}% (${ms.toFixed(1)} ms)`).join(", ");
  // Several single-threaded processes hand each payment on to each other: a little idle time is
  // left between them even when the work waits for a core.
  const saturated = level.busyCores >= cores * 0.85;
  const beyond = next
    ? `; at ${next.concurrency} in flight ${next.approvalsPerSecond.toFixed(1)}/s, with latency ${(next.latencyMs.median / level.latencyMs.median).toFixed(1)}× and ${next.busyCores.toFixed(2)} cores busy`
    : "";
  return `${saturated ? "the machine's CPU" : "not the CPU"}: ${level.busyCores.toFixed(2)} of ${cores} cores busy at ${level.concurrency} in flight${beyond}; CPU per payment ${total.toFixed(1)} ms: ${shares}`;
}

export async function measurePaymentsPerSecond({
  teardown,
  root,
  env,
  levels = DEFAULT_LEVELS,
  paymentsAt = defaultPaymentsAt,
  log = () => undefined,
}: MeasurePaymentsPerSecondParameters): Promise<PaymentsPerSecondResult> {
  const serverUrl = env.DATABASE_URL;
  if (!serverUrl) throw new Error("payments per second runs on PostgreSQL: DATABASE_URL must be set");
  const cores = cpus().length;
  const [sandbox, scratch] = await Promise.all([startSandboxProcess(teardown), createScratchDatabase(serverUrl)]);
  const apps: RunningApp[] = [];
  try {
    const { info } = sandbox;
    const service = info.services.find((entry) => entry.name === "currency-convert");
    if (!service) throw new Error("the sandbox has no currency-convert service");
    const price = BigInt(service.priceAtomic);
    const appEnv: Record<string, string | undefined> = {
      ...env,
      ...chainEnvOf(info),
      X402_DISCOVERY_URLS: info.registryUrl,
      X402_ALLOW_PRIVATE_ADDRESSES: "127.0.0.1",
      MODEL_PROVIDER: "offline",
      CHAT_COOLDOWN_SECONDS: "0",
      // Each payer is its own client, as people behind a proxy are: no client's approval gate is the ceiling.
      CLIENT_IP_HEADER: CLIENT_HEADER,
      CLIENT_IDENTITY: undefined,
      DATABASE_URL: scratch.url,
    };
    for (const index of [0, 1]) {
      apps.push(
        await startApp({
          teardown,
          name: `product instance ${index + 1}`,
          root,
          env: appEnv,
          probe: { path: "/api/chat", body: JSON.stringify({ messages: [{ role: "user", content: "hello" }] }) },
        }),
      );
    }
    const pids = { apps: apps.map((app) => app.pid), sandbox: sandbox.pid, anvil: sandbox.anvilPid, postgres: postmasterPid(serverUrl) };
    if (pids.anvil === undefined) log("anvil's process was not found: its CPU is counted with the sandbox's");
    if (pids.postgres === undefined) log("PostgreSQL's server process was not found: its CPU is counted with the rest of the machine");

    // One warm-up payment per instance: discovery and clients cached, as on a server that has been up.
    for (const [index, app] of apps.entries()) {
      const warm = privateKeyToAccount(generatePrivateKey());
      await fundPayers(info, [warm], PAYER_USDC);
      const { prepared } = await prepareApproval(app, warm, clientAddressOf(1_000_000 + index));
      const answer = await post(new URL("/api/chat", app.origin), prepared.body, { headers: { [CLIENT_HEADER]: prepared.client } });
      if (finishOfBody(answer.body).finishReason !== "payment-complete") throw new Error(`the warm-up payment did not complete: ${answer.body.slice(-400)}`);
    }

    const quoteMs: number[] = [];
    const results: PaymentsPerSecondLevel[] = [];
    const paid: Array<{ payer: PrivateKeyAccount; txHash: string | undefined }> = [];
    let used = 0;
    for (const concurrency of levels) {
      const count = paymentsAt(concurrency);
      log(`${concurrency} in flight: funding ${count} payers (one per payment)...`);
      const levelPayers = Array.from({ length: count }, () => privateKeyToAccount(generatePrivateKey()));
      await fundPayers(info, levelPayers, PAYER_USDC);
      const first = used;
      used += count;
      log(`${concurrency} in flight: ${count} quotes...`);
      const prepared: Prepared[] = new Array(count);
      await pool(levelPayers, QUOTE_CONCURRENCY, async (payer, index) => {
        const made = await prepareApproval(apps[index % apps.length] as RunningApp, payer, clientAddressOf(first + index));
        prepared[index] = made.prepared;
        quoteMs.push(made.ms);
      });

      log(`${concurrency} in flight: ${count} approvals...`);
      await sandbox.takeCalls();
      const agents = apps.map(() => new Agent({ keepAlive: true, maxSockets: concurrency }));
      const answers: Answer[] = new Array(count);
      const before = readCpu(pids);
      const startedAt = performance.now();
      await pool(prepared, concurrency, async (approval, index) => {
        const instance = index % apps.length;
        const app = apps[instance] as RunningApp;
        try {
          const exchange = await post(new URL("/api/chat", app.origin), approval.body, {
            agent: agents[instance] as Agent,
            headers: { [CLIENT_HEADER]: approval.client },
          });
          const { finishReason, txHash } = finishOfBody(exchange.body);
          const ok = exchange.status === 200 && finishReason === "payment-complete" && txHash !== undefined;
          answers[index] = {
            ok,
            ms: exchange.endedAt - exchange.sentAt,
            endedAt: exchange.endedAt,
            instance,
            ...(txHash ? { txHash } : {}),
            ...(ok ? {} : { failure: `${exchange.status}: ${exchange.body.slice(-300)}` }),
          };
        } catch (error) {
          answers[index] = { ok: false, ms: Number.NaN, endedAt: performance.now(), instance, failure: error instanceof Error ? error.message : String(error) };
        }
      });
      const seconds = (performance.now() - startedAt) / 1000;
      const after = readCpu(pids);
      for (const agent of agents) agent.destroy();
      const calls = await sandbox.takeCalls();

      const completed = answers.filter((answer) => answer.ok);
      answers.forEach((answer, index) => {
        if (answer.ok) paid.push({ payer: levelPayers[index] as PrivateKeyAccount, txHash: answer.txHash });
      });
      const firstFailure = answers.find((answer) => !answer.ok)?.failure;
      const perPayment = (cpuSeconds: number) => (completed.length > 0 ? (cpuSeconds * 1000) / completed.length : Number.NaN);
      const machineShare = (after.machine.busy - before.machine.busy) / Math.max(1, after.machine.total - before.machine.total);
      const busyCores = machineShare * cores;
      const measured = Object.fromEntries(
        Object.entries(after.parts).map(([part, value]) => [part, perPayment(value - before.parts[part as keyof CpuReading["parts"]])]),
      ) as Record<Exclude<CpuPart, "rest of the machine">, number>;
      const machineMs = perPayment(busyCores * seconds);
      const known = Object.values(measured).reduce((sum, value) => sum + value, 0);
      const level: PaymentsPerSecondLevel = {
        concurrency,
        sent: count,
        completed: completed.length,
        failed: count - completed.length,
        ...(firstFailure ? { firstFailure } : {}),
        seconds,
        approvalsPerSecond: sustainedRate(completed, concurrency),
        overallPerSecond: completed.length / seconds,
        latencyMs: percentiles(completed.map((answer) => answer.ms)),
        perInstance: apps.map((_, instance) => completed.filter((answer) => answer.instance === instance).length),
        cpuMsPerPayment: { ...measured, "rest of the machine": Math.max(0, machineMs - known) },
        busyCores,
        ...callStats(calls),
      };
      results.push(level);
      log(
        `  ${concurrency} in flight: ${level.approvalsPerSecond.toFixed(1)} approvals/s, latency ${level.latencyMs.median.toFixed(0)} ms (p95 ${level.latencyMs.p95.toFixed(0)}), ` +
          `${busyCores.toFixed(2)} cores busy, settle ${level.settleMs.median.toFixed(0)} ms (${level.settlesInFlight} at once)${level.failed ? `, ${level.failed} FAILED: ${firstFailure}` : ""}`,
      );
      // Once the rate has flattened, no higher level is sent.
      if (flattened(results)) break;
    }

    log("checking every payment on the chain and in the ledger...");
    const verification = await verifyPayments({ info, databaseUrl: scratch.url, paid, price });
    const best = results.reduce((a, b) => (b.approvalsPerSecond > a.approvalsPerSecond ? b : a));
    const ceilingFound = flattened(results);
    return {
      service: service.name,
      priceUsd: service.price,
      instances: apps.length,
      cores,
      quoteMs: percentiles(quoteMs),
      quoteConcurrency: QUOTE_CONCURRENCY,
      levels: results,
      ceiling: { concurrency: best.concurrency, approvalsPerSecond: best.approvalsPerSecond },
      ceilingFound,
      setBy: describeCeiling(best, results[results.indexOf(best) + 1], cores),
      verification,
    };
  } finally {
    for (const app of apps) await app.stop();
    await sandbox.stop();
    await scratch.drop().catch(() => undefined);
  }
}
