// The sandbox as a whole: the chain it runs (clock, Multicall3, Circle USDC with Base's EIP-712
// domain), the facilitator's /supported, the demo wallet, sandbox.json, switching a service
// off and on, and a stop that leaves nothing listening.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, usdcAbi, type Sandbox } from "@/sandbox";
import { chainReader, createPayer, sampleRequest, service } from "./reference-client";

const MULTICALL3 = "0xcA11bde05977b3631167028862bE2a173976CA11";

let sandbox: Sandbox;
let dataDir: string;
let chain: ReturnType<typeof chainReader>;
let startupMs: number;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "sandbox-test-"));
  const startedAt = Date.now();
  sandbox = await startSandbox({ randomPorts: true, quiet: true, dataDir, writeInfoFile: true });
  startupMs = Date.now() - startedAt;
  chain = chainReader(sandbox);
});

afterAll(async () => {
  await sandbox?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe("the sandbox world", () => {
  it("starts in well under a minute and writes sandbox.json with what it started", async () => {
    expect(startupMs).toBeLessThan(30_000);
    const written = JSON.parse(await readFile(join(dataDir, "sandbox.json"), "utf8")) as unknown;
    expect(written).toEqual(JSON.parse(JSON.stringify(sandbox.info)));
    expect(sandbox.info).toMatchObject({
      chainId: 31337,
      network: "eip155:31337",
      usdc: { name: "USD Coin", version: "2", decimals: 6 },
      rpcUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      facilitatorUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      registryUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    });
    const urls = sandbox.info.services.map((entry) => entry.url);
    expect(new Set(urls).size).toBe(urls.length);
  });

  it("runs a chain on the wall clock with Multicall3 and Circle's USDC under Base's EIP-712 domain", async () => {
    const block = await chain.publicClient.getBlock();
    expect(Math.abs(Number(block.timestamp) - Date.now() / 1000)).toBeLessThan(60);
    expect((await chain.publicClient.getCode({ address: MULTICALL3 }))?.length).toBeGreaterThan(1_000);
    const read = (functionName: "name" | "version" | "decimals") =>
      chain.publicClient.readContract({ address: sandbox.info.usdc.address, abi: usdcAbi, functionName });
    expect([await read("name"), await read("version"), await read("decimals")]).toEqual(["USD Coin", "2", 6]);
  });

  it("funds the demo wallet with 25 USDC and ETH, and the funder can fund any address", async () => {
    expect(await chain.balanceOf(sandbox.info.demoWallet.address)).toBe(25_000_000n);
    expect(await chain.publicClient.getBalance({ address: sandbox.info.demoWallet.address })).toBeGreaterThan(0n);
    const payer = await createPayer(sandbox, 0n);
    await sandbox.fund({ to: payer.account.address, usdc: 1_234_567n, eth: 10n ** 15n });
    expect(await chain.balanceOf(payer.account.address)).toBe(1_234_567n);
    expect(await chain.publicClient.getBalance({ address: payer.account.address })).toBe(10n ** 15n);
  });

  it("has a facilitator that supports the exact scheme on eip155:31337", async () => {
    const supported = (await fetch(`${sandbox.info.facilitatorUrl}/supported`).then((r) => r.json())) as {
      kinds: Array<{ x402Version: number; scheme: string; network: string }>;
    };
    expect(supported.kinds).toContainEqual(expect.objectContaining({ x402Version: 2, scheme: "exact", network: "eip155:31337" }));
  });

  it("a switched-off service answers 503 service-unavailable, takes no payment, and comes back when switched on", async () => {
    const entry = service(sandbox, "news-headlines");
    const { url } = sampleRequest(entry);
    const payer = await createPayer(sandbox, 100_000n);

    sandbox.setServiceOnline("news-headlines", false);
    const offline = await payer.pay(url);
    expect(offline.status).toBe(503);
    expect(await offline.json()).toMatchObject({ error: "service-unavailable" });
    expect(await chain.balanceOf(payer.account.address)).toBe(100_000n);
    // Other services are unaffected.
    expect((await fetch(sampleRequest(service(sandbox, "currency-convert")).url)).status).toBe(402);

    sandbox.setServiceOnline("news-headlines", true);
    const back = await payer.pay(url);
    expect(back.status).toBe(200);
    expect(await chain.balanceOf(payer.account.address)).toBe(100_000n - BigInt(entry.priceAtomic));
  });

  it("can be switched off and on over HTTP through the service's admin endpoint", async () => {
    const entry = service(sandbox, "crypto-prices");
    const origin = new URL(entry.url).origin;
    const off = await fetch(`${origin}/__admin/offline`, { method: "POST" });
    expect(await off.json()).toEqual({ name: "crypto-prices", online: false });
    expect((await fetch(sampleRequest(entry).url)).status).toBe(503);
    await fetch(`${origin}/__admin/online`, { method: "POST" });
    expect((await fetch(sampleRequest(entry).url)).status).toBe(402);
  });

  it("answers browsers' CORS preflight and exposes the x402 headers", async () => {
    const entry = service(sandbox, "weather-express");
    const preflight = await fetch(entry.url, {
      method: "OPTIONS",
      headers: { Origin: "http://localhost:3000", "Access-Control-Request-Headers": "payment-signature" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-headers")).toContain("PAYMENT-SIGNATURE");
    const unpaid = await fetch(sampleRequest(entry).url);
    expect(unpaid.headers.get("access-control-expose-headers")).toEqual(expect.stringContaining("PAYMENT-REQUIRED"));
  });
});

describe("stopping the sandbox", () => {
  it("closes every server and the chain, and a second stop is harmless", async () => {
    const second = await startSandbox({ randomPorts: true, quiet: true });
    const endpoints = [
      second.info.rpcUrl,
      `${second.info.facilitatorUrl}/supported`,
      `${second.info.registryUrl}/discovery/resources`,
      ...second.info.services.map((entry) => entry.url),
    ];
    await second.stop();
    await second.stop();
    for (const endpoint of endpoints) {
      await expect(fetch(endpoint, { signal: AbortSignal.timeout(2_000) }), endpoint).rejects.toThrow();
    }
  });
});
