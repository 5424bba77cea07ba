// Paying the sandbox's x402 services with a reference client: real anvil, Circle's USDC and the
// @x402 packages end to end. Each payment is a USDC transfer on chain of exactly the price to
// the service's payTo; replays, tampered payloads and failed handlers move no money.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAIL_QUERY_FLAG, startSandbox, type Sandbox } from "@/sandbox";
import { chainReader, createPayer, createSolanaPayer, sampleRequest, service, settlementOf } from "./reference-client";

let sandbox: Sandbox;
let chain: ReturnType<typeof chainReader>;

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true });
  chain = chainReader(sandbox);
});

afterAll(async () => {
  await sandbox?.stop();
});

/** What each service's data says, as a user would check it. */
const expectedData: Record<string, (data: Record<string, unknown>) => void> = {
  "weather-express": (data) => expect(data).toMatchObject({ city: "Lisbon", provider: "QuickWeather Pro", temperatureC: expect.any(Number) }),
  "weather-budget": (data) => expect(data).toMatchObject({ city: "Lisbon", provider: "Budget Weather", conditions: expect.any(String) }),
  "crypto-prices": (data) => expect(data).toMatchObject({ symbol: "BTC", priceUsd: expect.stringMatching(/^\d+(\.\d+)?$/) }),
  "news-headlines": (data) => {
    expect(data.topic).toBe("technology");
    expect(data.headlines).toHaveLength(2);
  },
  "currency-convert": (data) => expect(data).toEqual({ from: "USD", to: "EUR", amount: "10", converted: "9.215", rate: "0.9215" }),
  translate: (data) => expect(data).toMatchObject({ translatedText: "hola amigo", to: "es" }),
  holidays: (data) => expect(data).toMatchObject({ country: "PT", holidays: expect.arrayContaining([expect.objectContaining({ name: "Freedom Day" })]) }),
  "air-quality": (data) => expect(data).toMatchObject({ city: "Lisbon", aqi: expect.any(Number), category: "good" }),
  quotations: (data) => expect(data).toMatchObject({ topic: "money", author: "Benjamin Franklin" }),
  "market-ticks": (data) => expect(data).toMatchObject({ symbol: "AAPL", name: "Apple Inc.", currency: "USD" }),
};

describe("paying sandbox services with the reference x402 client", () => {
  it("pays every listed service once: the price moves on chain to its payTo and the data comes back", async () => {
    const payer = await createPayer(sandbox, 1_000_000n);
    // The usage-priced (`upto`) ones are paid in upto-chain.test.ts, the MPP ones in mpp-services.test.ts.
    const listed = sandbox.info.services.filter((entry) => entry.listed && entry.protocol === "x402" && entry.networks.includes(sandbox.info.network) && entry.schemes.includes("exact"));
    expect(listed.length).toBeGreaterThanOrEqual(5);
    let spent = 0n;

    for (const entry of listed) {
      const { url, init } = sampleRequest(entry);
      const response = await payer.pay(url, init);
      expect(response.status, entry.name).toBe(200);
      expect(response.headers.get("access-control-expose-headers")).toContain("PAYMENT-RESPONSE");
      const data = (await response.json()) as Record<string, unknown>;
      expectedData[entry.name]?.(data);

      const settlement = settlementOf(response);
      expect(settlement).toMatchObject({ success: true, network: "eip155:31337" });
      expect(settlement.payer?.toLowerCase()).toBe(payer.account.address.toLowerCase());
      const { receipt, transfers } = await chain.transfersIn(settlement.transaction as `0x${string}`);
      expect(receipt.status).toBe("success");
      expect(transfers).toHaveLength(1);
      expect(transfers[0]?.args).toEqual({ from: payer.account.address, to: entry.payTo, value: BigInt(entry.priceAtomic) });
      spent += BigInt(entry.priceAtomic);
    }

    expect(await chain.balanceOf(payer.account.address)).toBe(1_000_000n - spent);
  });

  it("pays every service that takes Solana with the real @x402/svm client: the price moves on the local Solana to its payee", async () => {
    const payer = await createSolanaPayer(sandbox, 1_000_000n);
    const onSolana = sandbox.info.services.filter((entry) => entry.listed && entry.networks.includes(sandbox.info.solana.network));
    // At least two, one of them taking EVM payments too (docs/contract.md, section 10).
    expect(onSolana.length).toBeGreaterThanOrEqual(2);
    expect(onSolana.some((entry) => entry.networks.includes(sandbox.info.network))).toBe(true);
    let spent = 0n;
    for (const entry of onSolana) {
      const payeeBefore = sandbox.solana.usdcBalance(entry.solanaPayTo ?? "");
      const { url, init } = sampleRequest(entry);
      const response = await payer.pay(url, init);
      expect(response.status, entry.name).toBe(200);
      expectedData[entry.name]?.((await response.json()) as Record<string, unknown>);
      const settlement = settlementOf(response);
      expect(settlement).toMatchObject({ success: true, network: sandbox.info.solana.network });
      expect(settlement.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/);
      expect(sandbox.solana.usdcBalance(entry.solanaPayTo ?? "")).toBe(payeeBefore + BigInt(entry.priceAtomic));
      spent += BigInt(entry.priceAtomic);
    }
    expect(sandbox.solana.usdcBalance(payer.key.address)).toBe(1_000_000n - spent);
  });

  it("settles payments from several payers at the same time, each exactly once", async () => {
    const payers = await Promise.all([1, 2, 3, 4, 5].map(() => createPayer(sandbox, 50_000n)));
    const entry = service(sandbox, "currency-convert");
    const responses = await Promise.all(payers.map((payer) => payer.pay(sampleRequest(entry).url)));
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
    const hashes = new Set(responses.map((response) => settlementOf(response).transaction));
    expect(hashes.size).toBe(5);
    for (const payer of payers) {
      expect(await chain.balanceOf(payer.account.address)).toBe(50_000n - BigInt(entry.priceAtomic));
    }
  });

  it("the cheap weather service is slower than the express one, as its listing says", async () => {
    const payer = await createPayer(sandbox, 100_000n);
    const timed = async (name: string) => {
      const { url } = sampleRequest(service(sandbox, name));
      const startedAt = Date.now();
      const response = await payer.pay(url);
      expect(response.status).toBe(200);
      return Date.now() - startedAt;
    };
    const budget = service(sandbox, "weather-budget");
    const express = service(sandbox, "weather-express");
    expect(BigInt(budget.priceAtomic)).toBeLessThan(BigInt(express.priceAtomic));
    expect(budget.latencyMs).toBeGreaterThan(express.latencyMs);
    expect(await timed("weather-budget")).toBeGreaterThanOrEqual(budget.latencyMs);
    expect(await timed("weather-express")).toBeLessThan(budget.latencyMs);
  });

  it("an unpaid request gets 402 with a v2 PAYMENT-REQUIRED header naming the price, asset and payTo", async () => {
    const entry = service(sandbox, "currency-convert");
    const response = await fetch(sampleRequest(entry).url);
    expect(response.status).toBe(402);
    const header = response.headers.get("payment-required");
    expect(header).toBeTruthy();
    const required = JSON.parse(Buffer.from(header ?? "", "base64").toString("utf8")) as {
      x402Version: number;
      accepts: Array<Record<string, unknown>>;
    };
    expect(required.x402Version).toBe(2);
    expect(required.accepts).toEqual([
      expect.objectContaining({
        scheme: "exact",
        network: "eip155:31337",
        amount: entry.priceAtomic,
        asset: sandbox.info.usdc.address,
        payTo: entry.payTo,
        extra: { name: "USD Coin", version: "2" },
      }),
      // It takes Solana too: the same price in USDC at the local Solana's mint, the facilitator paying the fee.
      expect.objectContaining({
        scheme: "exact",
        network: sandbox.info.solana.network,
        amount: entry.priceAtomic,
        asset: sandbox.info.solana.usdc.mint,
        payTo: entry.solanaPayTo,
        extra: expect.objectContaining({ feePayer: sandbox.info.solana.feePayer }),
      }),
    ]);
  });

  it("the same PAYMENT-SIGNATURE sent twice is paid once: the second is refused and only one transfer happens", async () => {
    const payer = await createPayer(sandbox, 100_000n);
    const entry = service(sandbox, "currency-convert");
    const { url } = sampleRequest(entry);
    const { header } = await payer.sign(await fetch(url));

    const first = await fetch(url, { headers: { "PAYMENT-SIGNATURE": header } });
    expect(first.status).toBe(200);
    const firstSettlement = settlementOf(first);
    expect(firstSettlement.success).toBe(true);

    const second = await fetch(url, { headers: { "PAYMENT-SIGNATURE": header } });
    expect(second.status).toBe(402);
    expect(second.headers.get("payment-response")).toBeNull();

    expect(await chain.balanceOf(payer.account.address)).toBe(100_000n - BigInt(entry.priceAtomic));
  });

  it("the facilitator itself refuses to settle one authorization twice, even sent straight to /settle", async () => {
    const payer = await createPayer(sandbox, 100_000n);
    const entry = service(sandbox, "news-headlines");
    const { url } = sampleRequest(entry);
    const { payload } = await payer.sign(await fetch(url));
    const settle = () =>
      fetch(`${sandbox.info.facilitatorUrl}/settle`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ x402Version: 2, paymentPayload: payload, paymentRequirements: payload.accepted }),
      }).then((response) => response.json() as Promise<{ success: boolean; errorReason?: string; transaction: string }>);

    const [first, second] = await Promise.all([settle(), settle()]);
    const results = [first, second];
    expect(results.filter((result) => result.success)).toHaveLength(1);
    expect(results.find((result) => !result.success)?.errorReason).toBe("nonce_already_used");
    const third = await settle();
    expect(third).toMatchObject({ success: false, errorReason: "nonce_already_used", transaction: "" });
    expect(await chain.balanceOf(payer.account.address)).toBe(100_000n - BigInt(entry.priceAtomic));
  });

  it("a payload with a changed amount or payTo is refused and moves no money", async () => {
    const payer = await createPayer(sandbox, 100_000n);
    const entry = service(sandbox, "crypto-prices");
    const { url } = sampleRequest(entry);
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");

    // The signed authorization, edited after signing: the signature no longer matches.
    const { payload } = await payer.sign(await fetch(url));
    const authorization = (payload.payload as { authorization: Record<string, string> }).authorization;
    const cheaper = { ...payload, payload: { ...payload.payload, authorization: { ...authorization, value: "1" } } };
    const elsewhere = {
      ...payload,
      payload: { ...payload.payload, authorization: { ...authorization, to: sandbox.info.funder.address } },
    };
    // The echoed requirements edited: the service no longer recognises its own price.
    const repriced = { ...payload, accepted: { ...payload.accepted, amount: "1" } };

    for (const tampered of [cheaper, elsewhere, repriced]) {
      const response = await fetch(url, { headers: { "PAYMENT-SIGNATURE": encode(tampered) } });
      expect(response.status).toBe(402);
      expect(response.headers.get("payment-response")).toBeNull();
    }
    expect(await chain.balanceOf(payer.account.address)).toBe(100_000n);
    expect(await chain.balanceOf(sandbox.info.funder.address)).toBe(0n);
  });

  it("a service whose handler fails after verification answers 5xx and does not settle", async () => {
    const payer = await createPayer(sandbox, 100_000n);
    const entry = service(sandbox, "weather-express");
    const { url } = sampleRequest(entry);

    const flagged = await payer.pay(`${url}&${FAIL_QUERY_FLAG}=1`);
    expect(flagged.status).toBe(500);
    expect(flagged.headers.get("payment-response")).toBeNull();
    expect(await flagged.json()).toMatchObject({ error: "service-error" });

    sandbox.setServiceFailing("weather-express", true);
    try {
      const failing = await payer.pay(url);
      expect(failing.status).toBe(500);
    } finally {
      sandbox.setServiceFailing("weather-express", false);
    }
    expect(await chain.balanceOf(payer.account.address)).toBe(100_000n);

    const recovered = await payer.pay(url);
    expect(recovered.status).toBe(200);
    expect(await chain.balanceOf(payer.account.address)).toBe(100_000n - BigInt(entry.priceAtomic));
  });

  it("a bad input is answered 400 after verification and the payment is not settled", async () => {
    const payer = await createPayer(sandbox, 100_000n);
    const entry = service(sandbox, "weather-express");
    const response = await payer.pay(`${entry.url}?city=Atlantis`);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "bad-request", message: expect.stringContaining("Atlantis") });
    expect(await chain.balanceOf(payer.account.address)).toBe(100_000n);
  });

  it("a payer without enough USDC is refused before anything settles", async () => {
    const payer = await createPayer(sandbox, 500n);
    const entry = service(sandbox, "weather-express");
    const { header } = await payer.sign(await fetch(sampleRequest(entry).url));
    const response = await fetch(sampleRequest(entry).url, { headers: { "PAYMENT-SIGNATURE": header } });
    expect(response.status).toBe(402);
    expect(await chain.balanceOf(payer.account.address)).toBe(500n);
  });
});
