// Service discovery over the Bazaar API (`GET /discovery/resources`) of every configured
// registry, with @x402/extensions' types. Listings are cached for at most 30 s per registry, kept
// only when they can be paid here (the rule of lib/x402/requirements.ts, shared with quotes),
// and their text is treated as untrusted data: bounded, never followed. Each registry is read
// under its own timeout and size cap, so one that is slow, huge or broken is skipped and the
// others still answer; one malformed listing is skipped, not its registry.
import type { DiscoveryResource, ListDiscoveryResourcesParams } from "@x402/extensions/bazaar";
import { z } from "zod";
import type { ServerEnv } from "@/lib/env";
import { readBoundedBody } from "@/lib/net/bounded-body";
import { guardedFetchFollowing } from "@/lib/net/guarded-fetch";
import { formatUsd } from "@/lib/money";
import { checkAnyRequirement } from "./requirements";

export const DISCOVERY_CACHE_MS = 30_000;
const PAGE_SIZE = 100;
const MAX_PAGES = 5;
/** One registry's whole read, every page of it, ends within this. */
export const REGISTRY_TIMEOUT_MS = 5_000;
/** The most of one registry page that is read; a longer page skips its registry. */
export const REGISTRY_PAGE_MAX_BYTES = 2 * 1024 * 1024;

export type ServiceListing = {
  name: string;
  url: string;
  method: "GET" | "POST";
  description: string;
  tags: string[];
  /** CAIP-2: `eip155:<chainId>` or `solana:<genesis hash prefix>`. */
  network: string;
  /** Price per call in atomic USDC units, and the same as a USD decimal string. */
  amount: bigint;
  priceUsd: string;
  asset: string;
  payTo: string;
  /** Typical response time the listing declares, if it does. */
  latencyMs: number | undefined;
  /** Input the service takes (query parameters or body fields), as its listing declares. */
  input: Record<string, unknown> | undefined;
  registry: string;
};

type DiscoveryEnv = Pick<ServerEnv, "X402_DISCOVERY_URLS" | "X402_NETWORKS" | "rpcUrls" | "usdcAddresses" | "solanaRpcUrls" | "X402_ALLOW_PRIVATE_ADDRESSES">;

const cache = new Map<string, { at: number; items: DiscoveryResource[] }>();

export type RegistryReadOptions = {
  /** Bound of one registry's read (REGISTRY_TIMEOUT_MS by default). */
  timeoutMs?: number;
  /** Bound of one page of a registry's answer (REGISTRY_PAGE_MAX_BYTES by default). */
  maxBytes?: number;
};

/**
 * Every payable service listed by the configured registries, read side by side. A registry that
 * fails, answers garbage, answers too much or too slowly is skipped; so is a listing that is malformed.
 */
export async function listServices(
  env: DiscoveryEnv,
  { now = Date.now(), ...read }: { now?: number } & RegistryReadOptions = {},
): Promise<ServiceListing[]> {
  const perRegistry = await Promise.all(
    env.X402_DISCOVERY_URLS.map(async (registry) => {
      try {
        const items = await registryItems(registry, now, { allowPrivate: env.X402_ALLOW_PRIVATE_ADDRESSES, ...read });
        return items.flatMap((item) => listingsOf(item, registry, env));
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

async function registryItems(
  registry: string,
  now: number,
  { timeoutMs = REGISTRY_TIMEOUT_MS, maxBytes = REGISTRY_PAGE_MAX_BYTES, allowPrivate }: RegistryReadOptions & { allowPrivate: readonly string[] },
): Promise<DiscoveryResource[]> {
  const hit = cache.get(registry);
  if (hit && now - hit.at < DISCOVERY_CACHE_MS) return hit.items;
  const signal = AbortSignal.timeout(timeoutMs);
  const items: DiscoveryResource[] = [];
  let listed = 0;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    let answer: Awaited<ReturnType<typeof readRegistryPage>>;
    try {
      answer = await readRegistryPage(registry, { type: "http", limit: PAGE_SIZE, offset: page * PAGE_SIZE }, { signal, maxBytes, allowPrivate });
    } catch (error) {
      // A later page that fails leaves the earlier ones usable, but not cached as the whole list.
      if (page === 0) throw error;
      return items;
    }
    listed += answer.listed;
    items.push(...answer.items);
    if (answer.listed < PAGE_SIZE || (answer.total !== undefined && listed >= answer.total)) break;
  }
  cache.set(registry, { at: now, items });
  return items;
}

const registryPageSchema = z.object({
  items: z.array(z.unknown()),
  pagination: z.object({ total: z.number().int().nonnegative() }).partial().optional(),
});

const optionalText = z
  .string()
  .nullish()
  .transform((value) => value ?? undefined);

// What the listing's use here needs, checked before it is used; the rest passes through.
const discoveryResourceSchema = z.looseObject({
  resource: z.string(),
  accepts: z.array(
    z.looseObject({
      scheme: z.string(),
      network: z.string(),
      asset: z.string(),
      payTo: z.string(),
      amount: z.string().optional(),
      maxAmountRequired: z.string().optional(),
    }),
  ),
  description: optionalText,
  serviceName: optionalText,
  tags: z
    .array(z.string())
    .nullish()
    .transform((value) => value ?? undefined),
  extensions: z
    .record(z.string(), z.unknown())
    .nullish()
    .transform((value) => value ?? undefined),
});

/**
 * One page of `GET <registry>/discovery/resources`, as @x402/extensions' bazaar client asks for
 * it. Read here rather than through that client, which fetches with no timeout and reads the
 * whole answer whatever its size. A registry is configuration, so no address policy applies.
 */
async function readRegistryPage(
  registry: string,
  params: ListDiscoveryResourcesParams,
  { signal, maxBytes, allowPrivate }: { signal: AbortSignal; maxBytes: number; allowPrivate: readonly string[] },
): Promise<{ items: DiscoveryResource[]; listed: number; total: number | undefined }> {
  const url = new URL(`${registry.replace(/\/+$/, "")}/discovery/resources`);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, String(value));
  const response = await guardedFetchFollowing(url, { headers: { accept: "application/json" }, signal, allowPrivate });
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`registry answered HTTP ${response.status}`);
  }
  const body = await readBoundedBody(response, { maxBytes });
  if (body.cut) throw new Error(`registry page larger than ${maxBytes} bytes`);
  const page = registryPageSchema.parse(JSON.parse(body.text));
  const items = page.items.flatMap((item) => {
    const parsed = discoveryResourceSchema.safeParse(item);
    // The schema checked every field used here; the library's type names the rest.
    return parsed.success ? [parsed.data as unknown as DiscoveryResource] : [];
  });
  return { items, listed: page.items.length, total: page.pagination?.total };
}

/** A listing's entries in the catalog, bounded; none when the listing cannot be read. */
function listingsOf(item: DiscoveryResource, registry: string, env: DiscoveryEnv): ServiceListing[] {
  try {
    return toListing(item, registry, env).flatMap((listing) => boundListing(listing) ?? []);
  } catch {
    return [];
  }
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
    const check = checkAnyRequirement(requirements, env);
    return check.payable ? [check] : [];
  });
  // One listing per network the service can be paid on.
  return payable.map(({ networkId, amount, asset, payTo }): ServiceListing => {
    const info = bazaarInfo(item.extensions);
    return {
      // Text is bounded once, by boundListing, after this.
      name: item.serviceName ?? hostName(url),
      url,
      method: info.method === "POST" ? "POST" : "GET",
      description: item.description ?? "",
      tags: item.tags ?? [],
      network: networkId,
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

/** How much of what a listing says reaches the model. */
export const LISTING_LIMITS = {
  name: 80,
  description: 300,
  tags: 8,
  tag: 30,
  payTo: 100,
  url: 2_048,
  /** The input schema: nesting depth, entries per object or array, one text, and the whole. */
  input: { depth: 4, entries: 20, text: 200, key: 60, total: 2_000 },
} as const;

/**
 * What a listing says, bounded before it reaches the model: name, description and tags cut to
 * length, the input schema cut in depth, breadth and size. A URL too long to be real drops the
 * listing (a cut URL would be another URL).
 */
export function boundListing(listing: ServiceListing): ServiceListing | undefined {
  if (listing.url.length > LISTING_LIMITS.url) return undefined;
  const input = listing.input && boundJson(listing.input, 0, { left: LISTING_LIMITS.input.total });
  return {
    ...listing,
    name: cleanText(listing.name, LISTING_LIMITS.name),
    description: cleanText(listing.description, LISTING_LIMITS.description),
    tags: listing.tags.slice(0, LISTING_LIMITS.tags).map((tag) => cleanText(tag, LISTING_LIMITS.tag)),
    payTo: cleanText(listing.payTo, LISTING_LIMITS.payTo),
    input: asRecord(input),
  };
}

/** A copy of JSON data within the input limits; `budget.left` counts the characters still allowed. */
function boundJson(value: unknown, depth: number, budget: { left: number }): unknown {
  const limits = LISTING_LIMITS.input;
  if (typeof value === "string") {
    const text = cleanText(value, Math.max(1, Math.min(limits.text, budget.left)));
    budget.left -= text.length + 2;
    return text;
  }
  if (typeof value === "number" || typeof value === "boolean" || value === null) {
    budget.left -= String(value).length;
    return value;
  }
  if (depth >= limits.depth || typeof value !== "object") return undefined;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const entry of value.slice(0, limits.entries)) {
      if (budget.left <= 0) break;
      const bounded = boundJson(entry, depth + 1, budget);
      if (bounded !== undefined) out.push(bounded);
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value).slice(0, limits.entries)) {
    if (budget.left <= 0) break;
    const name = cleanText(key, limits.key);
    budget.left -= name.length + 4;
    const bounded = boundJson(entry, depth + 1, budget);
    if (bounded !== undefined) out[name] = bounded;
  }
  return out;
}

export type ServiceFilter = { query?: string | undefined; network?: string | undefined; maxPrice?: bigint | undefined };

/**
 * Services matching every word of the query (in name, description, tags or URL), network and
 * price. Words match whole words, in the singular or the plural ("headline" finds "headlines",
 * "currency" finds "currencies"); a part of a word does not ("news" is not the "New" of New York).
 */
export function filterServices(listings: readonly ServiceListing[], filter: ServiceFilter): ServiceListing[] {
  const words = wordsOf(filter.query ?? "");
  return listings.filter((listing) => {
    if (filter.network && listing.network !== filter.network) return false;
    if (filter.maxPrice !== undefined && listing.amount > filter.maxPrice) return false;
    if (words.length === 0) return true;
    const haystack = new Set(wordsOf(`${listing.name} ${listing.description} ${listing.tags.join(" ")} ${listing.url}`).flatMap(wordForms));
    return words.every((word) => wordForms(word).some((form) => haystack.has(form)));
  });
}

function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 1);
}

/**
 * A word and its singular: "prices" is also "price", "currencies" also "currency". Only where
 * the singular keeps four letters or more, so "news" stays news and "gas" stays gas.
 */
function wordForms(word: string): string[] {
  if (word.length > 5 && word.endsWith("ies")) return [word, `${word.slice(0, -3)}y`];
  if (word.length > 4 && word.endsWith("s") && !word.endsWith("ss")) return [word, word.slice(0, -1)];
  return [word];
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
