// Registries at a real registry's distance (300 ms a request, as the public Bazaar is from here)
// and registries that turn slow: a large one is searched in two round trips, not six; one that was
// read before and is slow now is answered from its last good listing; one that never answered is
// reported as slow, never as listing nothing.
import type { IncomingMessage, ServerResponse } from "node:http";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { parseServerEnv } from "@/lib/env";
import { discoveryEnvOf } from "@/lib/tools/discovery-env";
import { clearDiscoveryCache, DISCOVERY_CACHE_MS, findServices } from "@/lib/x402/discovery";
import { topicListing } from "@/sandbox/registry";
import { startLoopbackServer, type LoopbackServer } from "./loopback-server";

const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const DISTANCE_MS = 300;
const servers: LoopbackServer[] = [];

beforeEach(() => clearDiscoveryCache());
afterEach(async () => {
  clearDiscoveryCache();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const envFor = (registry: LoopbackServer) =>
  discoveryEnvOf(parseServerEnv({ X402_DISCOVERY_URLS: registry.origin, X402_ALLOW_PRIVATE_ADDRESSES: "127.0.0.1", X402_NETWORKS: "eip155:31337", USDC_ADDRESS_31337: USDC }));

const listing = (index: number, topic?: string) => topicListing(index, { asset: USDC, ...(topic ? { topic } : {}) });

function json(response: ServerResponse, body: unknown) {
  response.writeHead(200, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

/** A registry of `total` listings with a search, each answer `delayMs` away; `state.hang` stops it answering. */
async function distantRegistry({ total, delayMs, state = { hang: false } }: { total: number; delayMs: number; state?: { hang: boolean } }) {
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    if (state.hang) return;
    const url = new URL(request.url ?? "/", "http://registry");
    setTimeout(() => {
      if (url.pathname === "/discovery/search") {
        json(response, { resources: url.searchParams.get("query") === "zebra" ? [listing(15_000, "zebra stripes")] : [], partialResults: false });
        return;
      }
      const offset = Number(url.searchParams.get("offset") ?? 0);
      const items = Array.from({ length: Math.max(0, Math.min(100, total - offset)) }, (_, index) => listing(offset + index));
      json(response, { x402Version: 2, items, pagination: { limit: 100, offset, total } });
    }, delayMs);
  };
  const server = await startLoopbackServer(handler);
  servers.push(server);
  return server;
}

const names = (services: Array<{ name: string }>) => services.map((service) => service.name);

describe("a registry across the internet", () => {
  test("a large one 300 ms away is asked for its first page and its search, not five pages one after another, and the listing at 15,000 is found", async () => {
    const registry = await distantRegistry({ total: 20_000, delayMs: DISTANCE_MS });
    const found = await findServices(envFor(registry), { query: "zebra" });
    expect(names(found.services)).toContain("Service 15000");
    expect(found.incomplete).toBeUndefined();
    // Before the search was asked: only first pages (the head's, and the background index's first), no page past them one after another.
    const beforeSearch = registry.requests.slice(0, registry.requests.findIndex((path) => path.startsWith("/discovery/search")));
    expect(beforeSearch.length).toBeGreaterThan(0);
    for (const path of beforeSearch) expect(new URL(path, "http://registry").searchParams.get("offset")).toBe("0");
  });

  test("a small one whose pages are 300 ms away each is read side by side: all of its 450 listings come back", async () => {
    const registry = await distantRegistry({ total: 450, delayMs: DISTANCE_MS });
    const found = await findServices(envFor(registry), {});
    expect(found.services).toHaveLength(450);
    expect(registry.requests).toHaveLength(5);
  });

  test("one read before and slow now is answered from its last good listing, while a fresh one loads", async () => {
    const state = { hang: false };
    const registry = await distantRegistry({ total: 3, delayMs: 0, state });
    const env = envFor(registry);
    expect(names((await findServices(env, { query: "topic1" })).services)).toEqual(["Service 1"]);
    state.hang = true;
    const later = await findServices(env, { query: "topic1" }, { now: Date.now() + DISCOVERY_CACHE_MS + 1_000 });
    expect(names(later.services)).toEqual(["Service 1"]);
    expect(later.incomplete).toBeUndefined();
    // The fresh read was asked for, and is still waiting for the registry.
    expect(registry.requests).toHaveLength(2);
  });

  test("one that does not answer in time is reported as slow: the answer is incomplete, not empty", async () => {
    const registry = await distantRegistry({ total: 3, delayMs: 0, state: { hang: true } });
    const found = await findServices(envFor(registry), { query: "weather" }, { timeoutMs: 500 });
    expect(found.services).toEqual([]);
    expect(found.incomplete).toBe(true);
    expect(found.notes.join(" ")).toContain(`The registry at ${new URL(registry.origin).host} is slow`);
  });
});
