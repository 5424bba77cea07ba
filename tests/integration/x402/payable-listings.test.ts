// Discovery and quotes follow one rule (the rails' schemes, lib/payments/rails): a registry of the tests' own,
// on loopback, lists v1 services (network names, `maxAmountRequired`) and v2 ones (CAIP-2
// ids), payable and not. What discovery lists, a quote of the same service's 402 can pay;
// what it drops, the quote refuses.
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import type { DiscoveryResource } from "@x402/extensions/bazaar";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { parseServerEnv } from "@/lib/env";
import { discoveryEnvOf } from "@/lib/tools/discovery-env";
import { clearDiscoveryCache, listServices } from "@/lib/x402/discovery";
import { filterServices } from "@/lib/discovery/listings";
import { createQuote } from "@/lib/payments/quote";
import { authorizationTypedData } from "@/lib/payments/rails/evm/exact/prepare";
import { readPaymentRequired } from "@/lib/x402/payment-required";
import { listen, requestUrl, sendJson, type RunningServer } from "@/sandbox/http";

const baseSepoliaUsdc = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const baseUsdc = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const payTo = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";
const wallet = privateKeyToAccount(generatePrivateKey()).address;

// A v1 requirement as v1 services and registries carry it.
const v1Requirement = (resource: string, changes: Record<string, unknown> = {}) =>
  ({
    scheme: "exact",
    network: "base-sepolia",
    maxAmountRequired: "20000",
    resource,
    description: "Weather now",
    mimeType: "application/json",
    payTo,
    maxTimeoutSeconds: 60,
    asset: baseSepoliaUsdc,
    extra: { name: "USDC", version: "2" },
    ...changes,
  }) as unknown as PaymentRequirements;

const v2Requirement = (changes: Partial<PaymentRequirements> = {}): PaymentRequirements => ({
  scheme: "exact",
  network: "eip155:8453",
  amount: "5000",
  asset: baseUsdc,
  payTo,
  maxTimeoutSeconds: 60,
  extra: { name: "USD Coin", version: "2" },
  ...changes,
});

let server: RunningServer;
let items: DiscoveryResource[] = [];
const url = (path: string) => `${server.url}${path}`;

beforeAll(async () => {
  // The registry (Bazaar `GET /discovery/resources`) and the services it lists, on one loopback server.
  server = await listen(0, async (request, response) => {
    const path = requestUrl(request).pathname;
    if (path === "/discovery/resources") {
      return sendJson(response, 200, { x402Version: 2, items, pagination: { limit: 100, offset: 0, total: items.length } });
    }
    const item = items.find((entry) => new URL(entry.resource).pathname === path);
    if (!item) return sendJson(response, 404, { error: "not found" });
    if (item.x402Version === 1) return sendJson(response, 402, { x402Version: 1, error: "X-PAYMENT header is required", accepts: item.accepts });
    const required: PaymentRequired = { x402Version: 2, resource: { url: item.resource }, accepts: item.accepts };
    response.writeHead(402, { "PAYMENT-REQUIRED": Buffer.from(JSON.stringify(required)).toString("base64"), "content-type": "application/json" });
    response.end("{}");
  });
  items = [
    {
      resource: url("/v1/weather"),
      type: "http",
      x402Version: 1,
      accepts: [v1Requirement(url("/v1/weather"))],
      lastUpdated: "2025-01-01T00:00:00.000Z",
      description: "Weather now (v1)",
      serviceName: "Weather One",
    },
    {
      resource: url("/v2/news"),
      type: "http",
      x402Version: 2,
      accepts: [v2Requirement(), v2Requirement({ network: "eip155:1", asset: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48" })],
      lastUpdated: "2025-01-01T00:00:00.000Z",
      description: "Headlines (v2)",
      serviceName: "News Two",
    },
    {
      resource: url("/v1/other-token"),
      type: "http",
      x402Version: 1,
      accepts: [v1Requirement(url("/v1/other-token"), { asset: "0x2222222222222222222222222222222222222222" })],
      lastUpdated: "2025-01-01T00:00:00.000Z",
      serviceName: "Other Token",
    },
    {
      resource: url("/v1/unknown-network"),
      type: "http",
      x402Version: 1,
      accepts: [v1Requirement(url("/v1/unknown-network"), { network: "iotex" })],
      lastUpdated: "2025-01-01T00:00:00.000Z",
      serviceName: "Elsewhere",
    },
    {
      resource: url("/v2/free-lunch"),
      type: "http",
      x402Version: 2,
      accepts: [v2Requirement({ amount: "0" })],
      lastUpdated: "2025-01-01T00:00:00.000Z",
      serviceName: "Free Lunch",
    },
  ];
});
afterAll(async () => {
  await server?.close();
});
beforeEach(() => clearDiscoveryCache());

const env = () => discoveryEnvOf(parseServerEnv({ X402_DISCOVERY_URLS: server.url, X402_NETWORKS: "eip155:84532,eip155:8453", X402_ALLOW_PRIVATE_ADDRESSES: "127.0.0.1" }));

async function quoteOfService(resource: string) {
  const response = await fetch(resource);
  expect(response.status).toBe(402);
  const paymentRequired = readPaymentRequired(response, await response.json());
  if (!paymentRequired) throw new Error(`no 402 from ${resource}`);
  return createQuote({ paymentRequired, wallet, perPaymentLimit: 1_000_000n, defaultChain: undefined, env: env() });
}

describe("discovery and quotes follow one rule", () => {
  test("a v1 listing on base-sepolia is listed, on its CAIP-2 network, with its v1 amount", async () => {
    const listings = await listServices(env());
    const weather = listings.find((listing) => listing.name === "Weather One");
    expect(weather).toMatchObject({
      url: url("/v1/weather"),
      network: "eip155:84532",
      amount: 20_000n,
      priceUsd: "0.02",
      asset: baseSepoliaUsdc,
      payTo,
    });
    // The model asks by CAIP-2 id, as discoverServices and the preferences spell networks.
    expect(filterServices(listings, { network: "eip155:84532" }).map((listing) => listing.name)).toEqual(["Weather One"]);
  });

  test("a v2 listing is listed once per network it can be paid on here", async () => {
    const news = (await listServices(env())).filter((listing) => listing.name === "News Two");
    expect(news.map((listing) => [listing.network, listing.amount])).toEqual([["eip155:8453", 5_000n]]);
  });

  test("everything listed can be quoted; everything dropped is refused by the quote, for the same reason", async () => {
    const listed = new Set((await listServices(env())).map((listing) => listing.url));
    expect([...listed].sort()).toEqual([url("/v1/weather"), url("/v2/news")].sort());
    for (const item of items) {
      const quote = await quoteOfService(item.resource);
      if (listed.has(item.resource)) {
        if ("code" in quote) throw new Error(`${item.resource}: ${quote.message}`);
        expect(quote.x402Version).toBe(item.x402Version);
      } else {
        expect(quote, item.resource).toMatchObject({ code: "payment-failed" });
      }
    }
    const v1 = await quoteOfService(url("/v1/weather"));
    if ("code" in v1) throw new Error(v1.message);
    expect([v1.network.id, v1.amount, authorizationTypedData(v1).domain]).toEqual([
      "eip155:84532",
      20_000n,
      { name: "USDC", version: "2", chainId: 84532, verifyingContract: baseSepoliaUsdc },
    ]);
  });

  test("a network not enabled here is neither listed nor quoted", async () => {
    const onlyBase = discoveryEnvOf(parseServerEnv({ X402_DISCOVERY_URLS: server.url, X402_NETWORKS: "eip155:8453", X402_ALLOW_PRIVATE_ADDRESSES: "127.0.0.1" }));
    const names = (await listServices(onlyBase)).map((listing) => listing.name);
    expect(names).toEqual(["News Two"]);
  });
});
