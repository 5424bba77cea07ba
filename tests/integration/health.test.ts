// GET /api/health on the sandbox: a real anvil chain, the sandbox's registry and a real test
// database answer, with timings; a dead registry, a dead RPC or a database that cannot be opened
// turn it to 503, naming what failed without the URLs or the keys in them.
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Database } from "@/lib/db";
import { parseServerEnv } from "@/lib/env";
import { createHealthHandler, HEALTH_CACHE_MS, type HealthReport } from "@/lib/health";
import { startSandbox, type Sandbox } from "@/sandbox";
import { freePort } from "@/sandbox/ports";
import { openTestDatabase } from "@/tests/helpers/database";
import { sandboxEnv } from "@/tests/helpers/paid-chat";

let sandbox: Sandbox;
let db: Database;
let failingRegistry: Server;
let failingRegistryUrl: string;

beforeAll(async () => {
  [sandbox, db] = await Promise.all([startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false }), openTestDatabase()]);
  // A registry that is up but broken.
  failingRegistry = createServer((_, response) => {
    response.statusCode = 500;
    response.end("down for maintenance");
  });
  await new Promise<void>((resolve) => failingRegistry.listen(0, "127.0.0.1", resolve));
  const address = failingRegistry.address();
  failingRegistryUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/v1?apiKey=registry-secret-key`;
});
afterAll(async () => {
  await db?.close();
  await sandbox?.stop();
  await new Promise((resolve) => failingRegistry?.close(resolve));
});

const handlerFor = (extra: Record<string, string>, options: { database?: () => Promise<Database>; now?: () => number } = {}) => {
  const env = parseServerEnv({ ...sandboxEnv(sandbox), ...extra });
  return createHealthHandler({ env: () => env, database: options.database ?? (async () => db), ...(options.now ? { now: options.now } : {}) });
};

const read = async (response: Response) => ({ status: response.status, report: (await response.json()) as HealthReport });

describe("GET /api/health", () => {
  test("the database, the registry and the chain answer: 200 with each check's time", async () => {
    const response = await handlerFor({})();
    expect(response.headers.get("cache-control")).toBe("no-store");
    const { status, report } = await read(response);
    expect(status).toBe(200);
    const registryHost = new URL(sandbox.info.registryUrl).host;
    const rpcHost = new URL(sandbox.info.rpcUrl).host;
    expect(report).toMatchObject({
      status: "ok",
      database: { name: "database", ok: true },
      registries: [{ name: registryHost, ok: true }],
      networks: [
        { network: sandbox.info.network, name: rpcHost, ok: true },
        // The local Solana: its slot stands for the block number.
        { network: sandbox.info.solana.network, name: new URL(sandbox.info.solana.rpcUrl).host, ok: true },
      ],
    });
    expect(BigInt(report.networks[0]?.blockNumber ?? "-1")).toBeGreaterThan(0n);
    for (const check of [report.database, ...report.registries, ...report.networks]) {
      expect(check.ms).toBeGreaterThanOrEqual(0);
      expect(check.error).toBeUndefined();
    }
  });

  test("a dead RPC and a broken registry: 503 naming them, without their URLs or keys", async () => {
    const deadPort = await freePort();
    const { status, report } = await read(
      await handlerFor({
        X402_DISCOVERY_URLS: `${sandbox.info.registryUrl},${failingRegistryUrl}`,
        [`RPC_URL_${sandbox.info.chainId}`]: `http://127.0.0.1:${deadPort}/v2/rpc-secret-key`,
      })(),
    );
    expect(status).toBe(503);
    expect(report.status).toBe("failing");
    expect(report.database.ok).toBe(true);
    expect(report.registries).toMatchObject([
      { name: new URL(sandbox.info.registryUrl).host, ok: true },
      { name: new URL(failingRegistryUrl).host, ok: false, error: "the registry answered HTTP 500" },
    ]);
    expect(report.networks).toMatchObject([
      { network: sandbox.info.network, name: `127.0.0.1:${deadPort}`, ok: false, error: "the RPC did not answer" },
      { network: sandbox.info.solana.network, ok: true },
    ]);
    const text = JSON.stringify(report);
    expect(text).not.toContain("secret-key");
    expect(text).not.toContain("/v2/");
  });

  test("a database that cannot be opened: 503, with a fixed message", async () => {
    const { status, report } = await read(
      await handlerFor({}, { database: () => Promise.reject(new Error("connect ECONNREFUSED postgres://app:hunter2@db")) })(),
    );
    expect(status).toBe(503);
    expect(report.database).toMatchObject({ name: "database", ok: false, error: "the database did not answer" });
    expect(JSON.stringify(report)).not.toContain("hunter2");
  });

  test("answers are reused for a few seconds, then checked again", async () => {
    let now = 1_000_000;
    let opened = 0;
    const health = handlerFor({}, { now: () => now, database: async () => {
      opened += 1;
      return db;
    } });
    await health();
    await health();
    expect(opened).toBe(1);
    now += HEALTH_CACHE_MS;
    await health();
    expect(opened).toBe(2);
  });
});
