/**
 * The local chain: a fresh anvil process per start (no leftover state), its clock on the wall
 * clock, and Multicall3 at its canonical address, which the x402 facilitator uses to explain
 * failures clearly.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { createPublicClient, createTestClient, http, type Hex } from "viem";
import { foundry } from "viem/chains";
import { SANDBOX_HOST } from "./ports";

export const SANDBOX_CHAIN_ID = 31337;
export const SANDBOX_NETWORK = `eip155:${SANDBOX_CHAIN_ID}` as const;
export const MULTICALL3_ADDRESS: Hex = "0xcA11bde05977b3631167028862bE2a173976CA11";

export type Chain = {
  rpcUrl: string;
  stop(): Promise<void>;
};

export type StartChainParameters = {
  port: number;
  quiet?: boolean;
  /**
   * Keep time as a live chain does: while no transaction arrives, a block every `everyMs`, so
   * what is read by a block's time (Permit2's and EIP-3009's windows, "held until") runs out on
   * an idle demo too. Off by default: the tests' chain mines only when a transaction arrives.
   */
  clock?: { everyMs: number };
};

const PLATFORM_PACKAGE: Record<string, string> = {
  "linux-x64": "@foundry-rs/anvil-linux-amd64",
  "linux-arm64": "@foundry-rs/anvil-linux-arm64",
  "darwin-x64": "@foundry-rs/anvil-darwin-amd64",
  "darwin-arm64": "@foundry-rs/anvil-darwin-arm64",
  "win32-x64": "@foundry-rs/anvil-win32-amd64",
};

/**
 * The anvil binary itself, not the npm wrapper script: spawning the binary directly means one
 * process to stop, with nothing left behind.
 */
function anvilCommand(): { command: string; prefixArgs: string[] } {
  const require = createRequire(import.meta.url);
  const platformPackage = PLATFORM_PACKAGE[`${process.platform}-${process.arch}`];
  if (platformPackage) {
    try {
      const packageDir = dirname(require.resolve(`${platformPackage}/package.json`));
      const binary = join(packageDir, "bin", process.platform === "win32" ? "anvil.exe" : "anvil");
      if (existsSync(binary)) return { command: binary, prefixArgs: [] };
    } catch {
      // fall through to the wrapper
    }
  }
  const wrapper = join(dirname(require.resolve("@foundry-rs/anvil/package.json")), "bin.mjs");
  return { command: process.execPath, prefixArgs: [wrapper] };
}

async function waitForRpc(rpcUrl: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`anvil exited with code ${child.exitCode} before answering:\n${output()}`);
    }
    try {
      const response = await fetch(rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`anvil did not answer on ${rpcUrl} within 20 s:\n${output()}`);
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const killer = setTimeout(() => child.kill("SIGKILL"), 3_000);
    child.once("exit", () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/**
 * Multicall3's creation code as viem ships it (for its deployless multicall). viem does not
 * export the constant through its package entry points, so it is read from the installed file.
 */
function multicall3CreationCode(): Hex {
  const require = createRequire(import.meta.url);
  const viemDir = dirname(require.resolve("viem/package.json"));
  const source = readFileSync(join(viemDir, "_esm", "constants", "contracts.js"), "utf8");
  const match = /multicall3Bytecode\s*=\s*['"](0x[0-9a-fA-F]+)['"]/.exec(source);
  if (!match?.[1]) throw new Error("Multicall3 bytecode not found in the installed viem package");
  return match[1] as Hex;
}

/**
 * Puts Multicall3 at its canonical address. Running the creation code in an `eth_call` returns
 * the runtime code the constructor would store, so no deployment key or nonce is involved.
 */
async function installMulticall3(rpcUrl: string): Promise<void> {
  const transport = http(rpcUrl);
  const publicClient = createPublicClient({ chain: foundry, transport });
  const { data: runtimeCode } = await publicClient.call({ data: multicall3CreationCode() });
  if (!runtimeCode || runtimeCode === "0x") throw new Error("Multicall3 creation code returned no runtime code");
  const testClient = createTestClient({ chain: foundry, mode: "anvil", transport });
  await testClient.setCode({ address: MULTICALL3_ADDRESS, bytecode: runtimeCode });
}

/**
 * Anvil (1.7) can file a transaction as waiting for an earlier one of its sender that was already
 * mined: one checked against the chain while the one before it was being mined waits for that
 * one's mark, which its block has already cleared. It is then never mined, nor anything the
 * sender sends after it. The facilitator's many settlements at once from one account met it
 * under load (bench/payments-per-second.ts): every settlement after it waited out its 30 s. So
 * twice a second, when a sender's waiting transaction has a nonce that is already the account's
 * next, the sender's transactions in the pool are taken out and sent again in nonce order: anvil
 * checks each afresh and mines them. Returns what stops the watch.
 */
function freeStuckTransactions(rpcUrl: string): () => void {
  const transport = http(rpcUrl);
  const publicClient = createPublicClient({ chain: foundry, transport });
  type ByNonce = Record<string, { hash: Hex }>;
  const request = (method: string, params: unknown[] = []) => publicClient.request({ method, params } as never) as Promise<unknown>;
  const freeOnce = async () => {
    const status = (await request("txpool_status")) as { queued: Hex };
    if (BigInt(status.queued) === 0n) return;
    const pool = (await request("txpool_content")) as { pending?: Record<string, ByNonce>; queued?: Record<string, ByNonce> };
    for (const [sender, queued] of Object.entries(pool.queued ?? {})) {
      const next = await publicClient.getTransactionCount({ address: sender as Hex, blockTag: "latest" });
      if (!queued[String(next)]) continue;
      // anvil_dropTransaction takes a ready transaction only: the sender's are taken out together.
      const all = { ...pool.pending?.[sender], ...queued };
      const nonces = Object.keys(all).map(Number).filter((nonce) => nonce >= next).sort((a, b) => a - b);
      const raws = await Promise.all(nonces.map((nonce) => request("eth_getRawTransactionByHash", [all[String(nonce)]?.hash]) as Promise<Hex | null>));
      await request("anvil_removePoolTransactions", [sender]);
      for (const raw of raws) {
        if (raw) await publicClient.sendRawTransaction({ serializedTransaction: raw }).catch(() => undefined);
      }
    }
  };
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      // A failed look (the chain stopping, a transaction mined meanwhile) is tried again next time.
      void freeOnce()
        .catch(() => undefined)
        .finally(schedule);
    }, 500);
    timer.unref();
  };
  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/**
 * A block whenever the latest is older than `everyMs`: an idle chain's time follows the wall
 * clock, and a busy one (automining each transaction) gets no extra block. Returns the stop.
 */
function keepTime(rpcUrl: string, everyMs: number): () => void {
  const client = createTestClient({ chain: foundry, mode: "anvil", transport: http(rpcUrl) });
  const reader = createPublicClient({ chain: foundry, transport: http(rpcUrl) });
  let stopped = false;
  let timer: NodeJS.Timeout;
  const tick = async () => {
    const latest = await reader.getBlock();
    if (Date.now() - Number(latest.timestamp) * 1000 >= everyMs) await client.mine({ blocks: 1 });
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      void tick()
        .catch(() => undefined)
        .finally(schedule);
    }, everyMs);
    timer.unref();
  };
  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

export async function startChain({ port, quiet = true, clock }: StartChainParameters): Promise<Chain> {
  const rpcUrl = `http://${SANDBOX_HOST}:${port}`;
  const { command, prefixArgs } = anvilCommand();
  const child = spawn(
    command,
    [
      ...prefixArgs,
      "--host",
      SANDBOX_HOST,
      "--port",
      String(port),
      "--chain-id",
      String(SANDBOX_CHAIN_ID),
      // Genesis at the wall clock; automined blocks then follow real time, so EIP-3009
      // validAfter/validBefore windows signed against the wall clock hold on chain.
      "--timestamp",
      String(Math.floor(Date.now() / 1000)),
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let log = "";
  const collect = (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4_000);
    if (!quiet) process.stdout.write(`[anvil] ${chunk.toString()}`);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);

  // If this process exits without calling stop() (an uncaught error, process.exit), take anvil
  // with it, so the next start finds its port free.
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  child.once("exit", () => process.off("exit", killOnExit));

  try {
    await waitForRpc(rpcUrl, child, () => log);
    await installMulticall3(rpcUrl);
  } catch (error) {
    await stopProcess(child);
    throw error;
  }
  const stopFreeing = freeStuckTransactions(rpcUrl);
  const stopClock = clock ? keepTime(rpcUrl, clock.everyMs) : () => undefined;
  return {
    rpcUrl,
    stop: () => {
      stopFreeing();
      stopClock();
      return stopProcess(child);
    },
  };
}
