// Service discovery over the Bazaar API (`GET /discovery/resources`) of every configured
// registry, through @x402/extensions. Listings are cached for at most 30 s per registry, kept
// only when they can be paid here (the rule of lib/x402/requirements.ts, shared with quotes),
// and their text is treated as untrusted data: trimmed, never followed.
import { HTTPFacilitatorClient } from "@x402/core/server";
import { withBazaar, type DiscoveryResource } from "@x402/extensions/bazaar";
import type { NetworkId } from "@/lib/chain/networks";
import type { ServerEnv } from "@/lib/env";
import { formatUsd } from "@/lib/payments/money";
import { checkRequirement } from "./requirements";

export const DISCOVERY_CACHE_MS = 30_000;
const PAGE_SIZE = 100;
const MAX_PAGES = 5;

export type ServiceListing = {
  name: string;
  url: string;
  method: "GET" | "POST";
  description: string;
  tags: string[];
  network: NetworkId;
  /** Price per call in atomic USDC units, and the same as a USD decimal string. */
  amount: bigint;
  priceUsd: string;
  asset: `0x${string}`;
  payTo: string;
  /** Typical response time the listing declares, if it does. */
  latencyMs: number | undefined;
  /** Input the service takes (query parameters or body fields), as its listing declares. */
  input: Record<string, unknown> | undefined;
  registry: string;
};

type DiscoveryEnv = Pick<ServerEnv, "X402_DISCOVERY_URLS" | "X402_NETWORKS" | "rpcUrls" | "usdcAddresses">;

const cache = new Map<string, { at: number; items: DiscoveryResource[] }>();

/** Every payable service listed by the configured registries. A registry that fails is skipped. */
export async function listServices(env: DiscoveryEnv, { now = Date.now() }: { now?: number } = {}): Promise<ServiceListing[]> {
  const perRegistry = await Promise.all(
    env.X402_DISCOVERY_URLS.map(async (registry) => {
      try {
        const items = await registryItems(registry, now);
        return items.flatMap((item) => toListing(item, registry, env));
      } catch {
        return [];
      }
    }),
  );
  // The same resource listed by two registries is one service.
  const seen = new Set<string>();
  return perRegistry.flat().filter((listing) => {
    const key = `${listing.method} ${listing.url} ${listing.network}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

async function registryItems(registry: string, now: number): Promise<DiscoveryResource[]> {
  const hit = cache.get(registry);
  if (hit && now - hit.at < DISCOVERY_CACHE_MS) return hit.items;
  const client = withBazaar(new HTTPFacilitatorClient({ url: registry }));
  const items: DiscoveryResource[] = [];
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const response = await client.extensions.bazaar.listResources({ type: "http", limit: PAGE_SIZE, offset: page * PAGE_SIZE });
    items.push(...response.items);
    if (response.items.length < PAGE_SIZE || items.length >= response.pagination.total) break;
  }
  cache.set(registry, { at: now, items });
  return items;
}

/** Forgets cached listings (tests, and a registry known to have changed). */
export function clearDiscoveryCache(): void {
  cache.clear();
}

function toListing(item: DiscoveryResource, registry: string, env: DiscoveryEnv): ServiceListing[] {
  const url = safeUrl(item.resource);
  if (!url) return [];
  // Payable here by the same rule as a quote (lib/x402/requirements.ts), v1 and v2 spellings alike.
  const payable = (Array.isArray(item.accepts) ? item.accepts : []).flatMap((requirements) => {
    const check = checkRequirement(requirements, env);
    return check.payable ? [check] : [];
  });
  // One listing per network the service can be paid on.
  return payable.map(({ network, amount, asset, payTo }): ServiceListing => {
    const info = bazaarInfo(item.extensions);
    return {
      name: cleanText(item.serviceName ?? hostName(url), 80),
      url,
      method: info.method === "POST" ? "POST" : "GET",
      description: cleanText(item.description ?? "", 300),
      tags: (item.tags ?? []).slice(0, 8).map((tag) => cleanText(tag, 30)),
      network: network.id,
      amount,
      priceUsd: formatUsd(amount),
      asset,
      payTo,
      latencyMs: info.latencyMs ?? latencyFromTags(item.tags),
      input: info.input,
      registry,
    };
  });
}

function bazaarInfo(extensions: Record<string, unknown> | undefined): {
  method: string | undefined;
  latencyMs: number | undefined;
  input: Record<string, unknown> | undefined;
} {
  const bazaar = asRecord(extensions?.bazaar);
  const info = asRecord(bazaar?.info);
  const input = asRecord(info?.input);
  const params = asRecord(input?.queryParams) ?? asRecord(input?.body);
  const latency = info?.latencyMs ?? bazaar?.latencyMs;
  return {
    method: typeof input?.method === "string" ? input.method.toUpperCase() : undefined,
    latencyMs: typeof latency === "number" && Number.isFinite(latency) ? latency : undefined,
    input: params,
  };
}

// Listings may declare their typical latency as a tag, e.g. "latency-ms:250".
function latencyFromTags(tags: string[] | undefined): number | undefined {
  for (const tag of tags ?? []) {
    const match = /^latency-ms:(\d{1,7})$/.exec(tag);
    if (match) return Number(match[1]);
  }
  return undefined;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function safeUrl(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

function hostName(url: string): string {
  return new URL(url).host;
}

/** Listing text is data from strangers: one line, no control characters, bounded length. */
export function cleanText(text: string, max: number): string {
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, " ").replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export type ServiceFilter = { query?: string | undefined; network?: string | undefined; maxPrice?: bigint | undefined };

/** Services matching every word of the query (in name, description, tags or URL), network and price. */
export function filterServices(listings: readonly ServiceListing[], filter: ServiceFilter): ServiceListing[] {
  const words = (filter.query ?? "")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 1);
  return listings.filter((listing) => {
    if (filter.network && listing.network !== filter.network) return false;
    if (filter.maxPrice !== undefined && listing.amount > filter.maxPrice) return false;
    if (words.length === 0) return true;
    const haystack = `${listing.name} ${listing.description} ${listing.tags.join(" ")} ${listing.url}`.toLowerCase();
    return words.every((word) => haystack.includes(word) || haystack.includes(word.replace(/s$/, "")));
  });
}

/** Best first: by price for `cost` (then speed), by declared speed for `speed` (then price). */
export function rankServices(
  listings: readonly ServiceListing[],
  { priority, defaultChain }: { priority: "cost" | "speed"; defaultChain?: string | undefined },
): ServiceListing[] {
  const byPrice = (a: ServiceListing, b: ServiceListing) => (a.amount < b.amount ? -1 : a.amount > b.amount ? 1 : 0);
  const bySpeed = (a: ServiceListing, b: ServiceListing) =>
    (a.latencyMs ?? Number.MAX_SAFE_INTEGER) - (b.latencyMs ?? Number.MAX_SAFE_INTEGER);
  const byChain = (a: ServiceListing, b: ServiceListing) =>
    Number(b.network === defaultChain) - Number(a.network === defaultChain);
  return [...listings].sort((a, b) =>
    priority === "speed"
      ? bySpeed(a, b) || byPrice(a, b) || byChain(a, b)
      : byPrice(a, b) || bySpeed(a, b) || byChain(a, b),
  );
}
