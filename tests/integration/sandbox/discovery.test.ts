// The sandbox registry as the product reads it: Bazaar `GET /discovery/resources` (through the
// real @x402/extensions client too), filters and pagination, search, and services listed after
// start-up.
import { HTTPFacilitatorClient } from "@x402/core/http";
import { withBazaar, type DiscoveryResource, type DiscoveryResourcesResponse } from "@x402/extensions/bazaar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox, type ServiceDefinition } from "@/sandbox";
import { createPayer, settlementOf } from "./reference-client";

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true });
});

afterAll(async () => {
  await sandbox?.stop();
});

async function listResources(query = ""): Promise<DiscoveryResourcesResponse> {
  const response = await fetch(`${sandbox.info.registryUrl}/discovery/resources${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as DiscoveryResourcesResponse;
}

type BazaarInfo = { info: { input: { method?: string; queryParams?: unknown; body?: unknown } }; schema: { properties: Record<string, unknown> } };

function bazaarOf(item: DiscoveryResource): BazaarInfo {
  return (item.extensions as { bazaar: BazaarInfo }).bazaar;
}

describe("the sandbox registry", () => {
  it("lists every listed service with its price, network, asset and input/output schema", async () => {
    const listing = await listResources();
    // The registry lists the x402 services; MPP ones are listed by their own OpenAPI documents.
    const listed = sandbox.info.services.filter((entry) => entry.listed && entry.protocol === "x402");
    expect(listing.x402Version).toBe(2);
    expect(listing.pagination).toEqual({ limit: 20, offset: 0, total: listed.length });
    expect(listing.items.map((item) => item.resource).sort()).toEqual(listed.map((entry) => entry.url).sort());

    for (const entry of listed) {
      const item = listing.items.find((candidate) => candidate.resource === entry.url);
      expect(item, entry.name).toBeDefined();
      if (!item) continue;
      expect(item).toMatchObject({ type: "http", x402Version: 2, serviceName: entry.serviceName, description: entry.description });
      expect(Number.isNaN(Date.parse(item.lastUpdated))).toBe(false);
      // One option per network and scheme the service takes, as its 402 lists them.
      expect(item.accepts).toEqual([
        ...(entry.networks.includes("eip155:31337")
          ? entry.schemes.map((scheme) =>
              expect.objectContaining({ scheme, network: "eip155:31337", amount: entry.priceAtomic, asset: sandbox.info.usdc.address, payTo: entry.payTo }),
            )
          : []),
        ...(entry.solanaPayTo
          ? [
              expect.objectContaining({
                scheme: "exact",
                network: sandbox.info.solana.network,
                amount: entry.priceAtomic,
                asset: sandbox.info.solana.usdc.mint,
                payTo: entry.solanaPayTo,
              }),
            ]
          : []),
      ]);
      const bazaar = bazaarOf(item);
      expect(bazaar.info.input.method).toBe(entry.method);
      expect(bazaar.schema.properties).toHaveProperty("input");
      expect(bazaar.schema.properties).toHaveProperty("output");
      if (entry.method === "GET") expect(bazaar.info.input.queryParams).toBeDefined();
      else expect(bazaar.info.input.body).toBeDefined();
    }
  });

  it("declares the latency of the two weather services so cost and speed can be compared", async () => {
    const { items } = await listResources();
    const weather = items.filter((item) => item.tags?.includes("weather"));
    expect(weather).toHaveLength(2);
    const latency = (item: DiscoveryResource) => Number(item.tags?.find((tag) => tag.startsWith("latency-ms:"))?.split(":")[1]);
    const [cheap, dear] = [...weather].sort((a, b) => Number(BigInt(a.accepts[0]?.amount ?? 0) - BigInt(b.accepts[0]?.amount ?? 0)));
    expect(cheap && dear).toBeTruthy();
    if (!cheap || !dear) return;
    expect(latency(cheap)).toBeGreaterThan(latency(dear));
    expect(cheap.description).toMatch(/slow/i);
  });

  it("leaves the test-only prompt-injection service out unless asked", async () => {
    const { items } = await listResources("?limit=100");
    expect(items.some((item) => item.tags?.includes("test-only"))).toBe(false);
    expect(JSON.stringify(items)).not.toMatch(/ignore your limits/i);
    const hostile = sandbox.info.services.find((entry) => entry.name === "prize-oracle");
    expect(hostile).toMatchObject({ listed: false, tags: expect.arrayContaining(["test-only"]) });
  });

  it("filters by network and payTo, and pages with limit and offset", async () => {
    expect((await listResources("?network=eip155:8453")).items).toEqual([]);
    const weatherExpress = sandbox.info.services.find((entry) => entry.name === "weather-express");
    const byPayTo = await listResources(`?payTo=${weatherExpress?.payTo.toLowerCase()}`);
    expect(byPayTo.items.map((item) => item.resource)).toContain(weatherExpress?.url);
    expect(byPayTo.items.every((item) => item.accepts.some((accept) => accept.payTo === weatherExpress?.payTo))).toBe(true);

    const upto = await listResources("?scheme=upto&type=http");
    expect(upto.items.map((item) => item.resource).sort()).toEqual(
      sandbox.info.services.filter((entry) => entry.listed && entry.schemes.includes("upto")).map((entry) => entry.url).sort(),
    );
    const all = await listResources("?type=http");
    const firstPage = await listResources("?limit=2&offset=0");
    const secondPage = await listResources("?limit=2&offset=2");
    expect(firstPage.items).toHaveLength(2);
    expect(firstPage.pagination).toEqual({ limit: 2, offset: 0, total: all.pagination.total });
    expect(secondPage.items.map((item) => item.resource)).toEqual(all.items.slice(2, 4).map((item) => item.resource));
  });

  it("is readable through the real Bazaar client of @x402/extensions, including search", async () => {
    const client = withBazaar(new HTTPFacilitatorClient({ url: sandbox.info.registryUrl }));
    const listing = await client.extensions.bazaar.listResources({ network: "eip155:31337" });
    expect(listing.items.length).toBe(sandbox.info.services.filter((entry) => entry.listed && entry.protocol === "x402" && entry.networks.includes("eip155:31337")).length);
    const onSolana = await client.extensions.bazaar.listResources({ network: sandbox.info.solana.network as `${string}:${string}` });
    expect(onSolana.items.map((item) => item.resource).sort()).toEqual(
      sandbox.info.services.filter((entry) => entry.listed && entry.solanaPayTo).map((entry) => entry.url).sort(),
    );
    const found = await client.extensions.bazaar.search({ query: "weather" });
    expect(found.resources.map((item) => item.serviceName).sort()).toEqual(["Budget Weather", "QuickWeather Pro"]);
    const plain = await fetch(`${sandbox.info.registryUrl}/discovery/search?q=crypto`).then((r) => r.json() as Promise<{ resources: DiscoveryResource[] }>);
    expect(plain.resources.map((item) => item.serviceName)).toEqual(["CoinTicker"]);
  });

  it("lists a service started after start-up, and it can be paid", async () => {
    const haiku: ServiceDefinition = {
      name: "haiku",
      serviceName: "Haiku Smith",
      description: "A short poem about a word of your choice.",
      method: "GET",
      path: "/haiku",
      price: 4_000n,
      latencyMs: 10,
      tags: ["poetry"],
      discovery: {
        input: { word: "rain" },
        inputSchema: { properties: { word: { type: "string" } }, required: ["word"] },
        output: { example: { poem: "..." } },
      },
      handle: async ({ query }) => ({ poem: `${query.get("word") ?? "silence"} falls softly / on the sandbox chain tonight / one block at a time` }),
    };
    const before = (await listResources()).pagination.total;
    const added = await sandbox.addService(haiku);
    const after = await listResources("?limit=100");
    expect(after.pagination.total).toBe(before + 1);
    expect(after.items.find((item) => item.resource === added.url)).toMatchObject({ serviceName: "Haiku Smith" });

    const payer = await createPayer(sandbox, 10_000n);
    const response = await payer.pay(`${added.url}?word=rain`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ poem: expect.stringContaining("rain falls softly") });
    expect(settlementOf(response).success).toBe(true);
  });

  it("accepts POST /register with a service URL, probing its 402, and refuses URLs that are not x402", async () => {
    const extra = await sandbox.addService(
      {
        name: "echo",
        serviceName: "Echo",
        description: "Echoes a word.",
        method: "GET",
        path: "/echo",
        price: 1_000n,
        latencyMs: 0,
        tags: ["echo"],
        discovery: { input: { word: "hi" }, inputSchema: { properties: { word: { type: "string" } } } },
        handle: async ({ query }) => ({ word: query.get("word") }),
      },
      { listed: false },
    );
    expect((await listResources("?limit=100")).items.some((item) => item.resource === extra.url)).toBe(false);

    const registered = await fetch(`${sandbox.info.registryUrl}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: extra.url }),
    });
    expect(registered.status).toBe(201);
    const listed = (await listResources("?limit=100")).items.find((item) => item.resource === extra.url);
    expect(listed?.accepts[0]).toMatchObject({ amount: "1000", network: "eip155:31337" });

    const refused = await fetch(`${sandbox.info.registryUrl}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: `${sandbox.info.registryUrl}/health` }),
    });
    expect(refused.status).toBe(422);
  });
});
