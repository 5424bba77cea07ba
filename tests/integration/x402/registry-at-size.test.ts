// Registries at the size of the public ones (20,000 listings and more), read as the product reads
// X402_DISCOVERY_URLS: the sandbox's own registry filled with 20,000 listings and the real
// services at position 15,000 (found through its search, quoted and paid through the chat, with
// the facilitator's settlements as its quality signals), and registries with no search (their
// whole catalogue read into the local index in the background; until then the answer says so),
// one that lies about its size and never ends, bounded in pages and listings.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { DiscoveryResource } from "@x402/extensions/bazaar";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from "vitest";
import { createChatTools } from "@/lib/chat/tools";
import { parseServerEnv } from "@/lib/env";
import { discoveryEnvOf } from "@/lib/tools/discovery-env";
import { clearDiscoveryCache, findServices, warmDiscovery } from "@/lib/x402/discovery";
import { INDEX_MAX_LISTINGS } from "@/lib/x402/registry-index";
import { startSandbox, type Sandbox } from "@/sandbox";
import { collectLines, createTestChat, type TestChat } from "@/tests/helpers/chat";
import { eventually, finishOf, generousLimits, newPayer, paymentsOf, sandboxEnv, sandboxService, signQuote } from "@/tests/helpers/paid-chat";
import { startLoopbackServer, type LoopbackServer } from "../net/loopback-server";

const SIZE = 20_000;
const POSITION = 15_000;
const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";

/** A payable listing that no one will call: a filler of a large catalogue. */
function filler(index: number, network: string, asset: string): DiscoveryResource {
  return {
    resource: `https://filler${index}.example/api`,
    type: "http",
    x402Version: 2,
    lastUpdated: "2026-01-01T00:00:00.000Z",
    serviceName: `Filler ${index}`,
    description: `Placeholder listing number ${index}`,
    tags: ["filler"],
    accepts: [{ scheme: "exact", network: network as `${string}:${string}`, amount: String(1_000 + (index % 50)), asset, payTo: `0x${"2".repeat(40)}`, maxTimeoutSeconds: 60, extra: { name: "USD Coin", version: "2" } }],
  };
}

describe("a registry of 20,000 listings with search", () => {
  let sandbox: Sandbox;
  let chat: TestChat;

  beforeAll(async () => {
    sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
    // The sandbox's own services move to position 15,000 of 20,000.
    const own = sandbox.registry.list();
    for (const entry of own) sandbox.registry.unregister(entry.resource);
    const fill = (from: number, to: number) => {
      for (let index = from; index < to; index += 1) sandbox.registry.register(filler(index, sandbox.info.network, sandbox.info.usdc.address));
    };
    fill(0, POSITION);
    for (const entry of own) sandbox.registry.register(entry);
    fill(POSITION, SIZE - own.length);
    expect(sandbox.registry.list()).toHaveLength(SIZE);
    expect(sandbox.registry.list().findIndex((entry) => entry.serviceName === own[0]?.serviceName)).toBe(POSITION);
    chat = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox) });
  }, 60_000);
  afterAll(async () => {
    clearDiscoveryCache();
    await chat?.close();
    await sandbox?.stop();
  });

  test("a person asks for news: the service at position 15,000 is found, quoted and paid, and the registry then counts its paid call", async () => {
    const news = sandboxService(sandbox, "news-headlines");
    const payer = await newPayer(sandbox);
    const body = { messages: [{ role: "user", content: "Technology news headlines, please" }], walletAddress: payer.address, spendingLimits: generousLimits };
    const lines = await collectLines(await chat.post(body));
    const quote = paymentsOf(lines).find((status) => status.status === "awaiting-signature");
    expect(quote?.service.url.startsWith(news.url)).toBe(true);

    const paid = await collectLines(
      await chat.post({ ...body, payment: { paymentId: quote?.paymentId, token: quote?.approval?.token, signature: await signQuote(payer, quote ?? never()) } }),
    );
    expect(finishOf(paid)?.finishReason).toBe("payment-complete");

    // The registry's quality signals are the facilitator's settlements: this one payment, by one payer.
    const found = await findServices(discoveryEnvOf(chat.env), { query: "headlines" });
    const listed = found.services.find((listing) => listing.url.startsWith(news.url) && listing.network === sandbox.info.network);
    expect(listed?.quality).toMatchObject({ calls30d: 1, payers30d: 1 });
    expect(Date.parse(listed?.quality?.lastCalledAt ?? "")).toBeGreaterThan(Date.now() - 60_000);
  });
});

describe("registries with no search", () => {
  const servers: LoopbackServer[] = [];
  beforeEach(() => clearDiscoveryCache());
  afterEach(async () => {
    clearDiscoveryCache();
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  const envFor = (registries: LoopbackServer[]) =>
    discoveryEnvOf(
      parseServerEnv({
        X402_DISCOVERY_URLS: registries.map((registry) => registry.origin).join(","),
        X402_ALLOW_PRIVATE_ADDRESSES: "127.0.0.1",
        X402_NETWORKS: "eip155:31337",
        USDC_ADDRESS_31337: USDC,
      }),
    );

  /** A registry answering pages of `GET /discovery/resources` from `itemAt`, and 404 to anything else. */
  async function pagedRegistry(itemAt: (index: number) => DiscoveryResource | undefined, claimedTotal: number): Promise<LoopbackServer> {
    const server = await startLoopbackServer((request: IncomingMessage, response: ServerResponse) => {
      const url = new URL(request.url ?? "/", "http://registry");
      if (url.pathname !== "/discovery/resources") {
        response.writeHead(404);
        response.end();
        return;
      }
      const offset = Number(url.searchParams.get("offset") ?? 0);
      const limit = Math.min(100, Number(url.searchParams.get("limit") ?? 100));
      const items = Array.from({ length: limit }, (_, index) => itemAt(offset + index)).filter((item) => item !== undefined);
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ x402Version: 2, items, pagination: { limit, offset, total: claimedTotal } }));
    });
    servers.push(server);
    return server;
  }

  const zebra: DiscoveryResource = { ...filler(POSITION, "eip155:31337", USDC), resource: "https://zebra.example/stripes", serviceName: "Zebra Stripes", description: "Counts the stripes of a zebra", tags: ["zebra"] };

  test("the whole catalogue is read in the background: until it is, the answer says so; then the listing at 15,000 is found", async () => {
    const registry = await pagedRegistry((index) => (index === POSITION ? zebra : index < SIZE ? filler(index, "eip155:31337", USDC) : undefined), SIZE);
    const env = envFor([registry]);

    const first = await findServices(env, { query: "zebra" });
    if (!first.services.some((listing) => listing.name === "Zebra Stripes")) {
      expect(first.notes.join(" ")).toMatch(/still being read|being read now/);
    }
    const found = await eventually(
      () => findServices(env, { query: "zebra stripes" }),
      (answer) => answer.services.some((listing) => listing.name === "Zebra Stripes"),
      60_000,
    );
    expect(found.services.map((listing) => listing.name)).toEqual(["Zebra Stripes"]);
    expect(found.notes).toEqual([]);
    // Every page once (plus the first pages read on request), and the search asked once, then remembered as missing.
    const searches = registry.requests.filter((path) => path.startsWith("/discovery/search"));
    expect(searches.length).toBe(1);
    expect(registry.requests.length).toBeLessThanOrEqual(SIZE / 100 + 5 + 2 + 10);
  }, 90_000);

  test("warmed at the server's start, a large registry's catalogue is read before anyone asks: the first question finds the listing at 15,000", async () => {
    const registry = await pagedRegistry((index) => (index === POSITION ? zebra : index < SIZE ? filler(index, "eip155:31337", USDC) : undefined), SIZE);
    const env = envFor([registry]);
    // The server's start-up hook is bundled apart from the routes, with its own copy of the
    // discovery module: the warm-up runs in one copy, the question is asked in another.
    vi.resetModules();
    const startUpHook = (await import("@/lib/x402/discovery")) as typeof import("@/lib/x402/discovery");
    expect(startUpHook.warmDiscovery).not.toBe(warmDiscovery);
    await startUpHook.warmDiscovery(env);
    // The background read runs on its own; the person's question comes some seconds after the start.
    await eventually(
      async () => registry.requests.length,
      (count) => count >= SIZE / 100,
      60_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const readAtStart = registry.requests.length;
    const first = await findServices(env, { query: "zebra" });
    expect(first.services.map((listing) => listing.name)).toEqual(["Zebra Stripes"]);
    expect(first.notes).toEqual([]);
    // Answered from what the start read: no page of the catalogue is read again (only its search is asked for).
    expect(registry.requests.slice(readAtStart).filter((path) => !path.startsWith("/discovery/search"))).toEqual([]);
  }, 90_000);

  test("a registry that claims a billion listings and never stops answering is read only up to the index's bound", async () => {
    let served = 0;
    const endless = await pagedRegistry((index) => {
      served += 1;
      return filler(index, "eip155:31337", USDC);
    }, 1_000_000_000);
    const env = envFor([endless]);
    await findServices(env, {});
    const full = await eventually(
      () => findServices(env, { query: "filler" }),
      (answer) => answer.notes.some((note) => note.includes("lists more than this agent keeps")),
      120_000,
    );
    expect(full.services).toHaveLength(INDEX_MAX_LISTINGS);
    expect(full.notes.join(" ")).toContain(`${INDEX_MAX_LISTINGS} payable services, among 1000000000 listings`);
    expect(served).toBeLessThanOrEqual(INDEX_MAX_LISTINGS + 1_000);
  }, 150_000);
});

function never(): never {
  throw new Error("no quote");
}
