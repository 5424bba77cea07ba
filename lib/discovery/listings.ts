// A paid service as discovery lists it, whatever protocol found it (x402 registries,
// lib/x402/listings.ts; MPP's OpenAPI documents, lib/mpp/discovery.ts): one listing per network
// it can be paid on here (by the same rule as a quote: the `payable` check its caller hands
// discovery), its text bounded before it reaches the model, its quality signals where a registry
// reports them, and the rules that find (whole words, singular or plural) and rank (price, speed,
// track record) listings.
import type { PaymentRequirements } from "@x402/core/types";
import type { ServerEnv } from "@/lib/env";
import { parseUsd } from "@/lib/money";
import { cleanText } from "@/lib/text";

export type ServiceListing = {
  /** The name of the protocol it is paid through, as registered (lib/payments/protocols): the one whose discovery found it. */
  protocol: string;
  name: string;
  url: string;
  method: "GET" | "POST";
  description: string;
  tags: string[];
  /** CAIP-2: `<namespace>:<reference>`. */
  network: string;
  /** Price per call in atomic USDC units, and the same as a USD decimal string. */
  amount: bigint;
  priceUsd: string;
  /** Usage-priced (x402 `upto`): the price is the most one call can cost; the service charges what it uses. */
  upTo?: true;
  /** A usage-priced listing's usual cost, where its listing says it (a `typical-usd:` tag). */
  typicalUsd?: string;
  asset: string;
  payTo: string;
  /** Typical response time the listing declares, if it does. */
  latencyMs: number | undefined;
  /** Input the service takes (query parameters or body fields), as its listing declares. */
  input: Record<string, unknown> | undefined;
  registry: string;
  /** What the registry reports of the service's use, when it does. */
  quality?: ListingQuality;
};

/** A registry's quality signals for a listing (the CDP Bazaar's `quality`), as reported. */
export type ListingQuality = {
  /** Paid calls in the last 30 days. */
  calls30d?: number;
  /** Distinct payers in the last 30 days. */
  payers30d?: number;
  /** The last paid call (ISO 8601). */
  lastCalledAt?: string;
};

/**
 * Whether this product can pay a requirement, and the requirement read (its network's CAIP-2 id,
 * amount, asset and payee): the rule a quote follows too, which is the rails' (lib/payments/rails),
 * handed to discovery by whoever asks it (lib/tools/discovery-env.ts). Never throws.
 */
export type PayableCheck = (
  requirements: PaymentRequirements,
) => { payable: true; networkId: string; amount: bigint; asset: string; payTo: string; usagePriced: boolean } | { payable: false; reason: string };

/** What discovery reads: the registries, the enabled networks (its index's key), the addresses it may call, and what can be paid. */
export type DiscoveryEnv = Pick<ServerEnv, "X402_DISCOVERY_URLS" | "X402_NETWORKS" | "X402_ALLOW_PRIVATE_ADDRESSES" | "MPP_SERVICES"> & { payable: PayableCheck };

/** One service on one network: the same resource listed twice (by two registries) is one listing. */
export const listingKey = (listing: ServiceListing) => `${listing.protocol} ${listing.method} ${listing.url} ${listing.network}`;

/**
 * What a usage-priced (x402 `upto`) service says a usual request costs, as a tag of its listing
 * and of its 402's resource ("typical-usd:0.0025"), in micro-dollars; undefined when it says
 * nothing readable, or nothing below its maximum (then the maximum says it all).
 */
export function typicalFromTags(tags: readonly unknown[] | undefined, maximum: bigint): bigint | undefined {
  for (const tag of tags ?? []) {
    const match = typeof tag === "string" ? /^typical-usd:(\d{1,9}(?:\.\d{1,6})?)$/.exec(tag) : null;
    const typical = match?.[1] === undefined ? undefined : parseUsd(match[1]);
    if (typical !== undefined) return typical < maximum ? typical : undefined;
  }
  return undefined;
}

// Listings may declare their typical latency as a tag, e.g. "latency-ms:250".
export function latencyFromTags(tags: string[] | undefined): number | undefined {
  for (const tag of tags ?? []) {
    const match = /^latency-ms:(\d{1,7})$/.exec(tag);
    if (match) return Number(match[1]);
  }
  return undefined;
}

export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
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
  const words = queryWords(filter.query);
  return listings.filter((listing) => {
    if (!matchesTerms(listing, filter)) return false;
    if (words.length === 0) return true;
    const haystack = new Set(listingWords(listing));
    return words.every((word) => wordForms(word).some((form) => haystack.has(form)));
  });
}

/** The network and price part of a filter. */
export function matchesTerms(listing: ServiceListing, filter: ServiceFilter): boolean {
  if (filter.network && listing.network !== filter.network) return false;
  return filter.maxPrice === undefined || listing.amount <= filter.maxPrice;
}

/** The words of a query, each matched by any of its forms (wordForms). */
export function queryWords(query: string | undefined): string[] {
  return wordsOf(query ?? "");
}

/** Every form of every word a listing can be found by (its name, description, tags and URL). */
export function listingWords(listing: ServiceListing): string[] {
  return [...new Set(wordsOf(`${listing.name} ${listing.description} ${listing.tags.join(" ")} ${listing.url}`).flatMap(wordForms))];
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
export function wordForms(word: string): string[] {
  if (word.length > 5 && word.endsWith("ies")) return [word, `${word.slice(0, -3)}y`];
  if (word.length > 4 && word.endsWith("s") && !word.endsWith("ss")) return [word, word.slice(0, -1)];
  return [word];
}

/**
 * How well a listing answers a query's words, best first: named exactly (its name is the query's
 * words), then how many of the words its name holds, then how many its description, tags and URL
 * hold. Registries' searches are broad (a semantic one returns many near misses), so the service
 * a person names comes first whatever it costs.
 */
function relevanceOf(listing: ServiceListing, words: readonly string[]): [number, number, number] {
  if (words.length === 0) return [0, 0, 0];
  const nameWords = wordsOf(listing.name);
  const named = new Set(nameWords.flatMap(wordForms));
  const rest = new Set(wordsOf(`${listing.description} ${listing.tags.join(" ")} ${listing.url}`).flatMap(wordForms));
  const holds = (set: ReadonlySet<string>) => words.filter((word) => wordForms(word).some((form) => set.has(form))).length;
  const exact = nameWords.length === words.length && nameWords.every((word, index) => word === words[index]);
  return [Number(exact), holds(named), holds(rest)];
}

/**
 * Best first: by how well a listing answers the query's words (relevanceOf), and among those
 * that answer equally well, by price for `cost` (then speed), by declared speed for `speed` (then
 * price); at the same price and speed, the one more people paid in the last 30 days, then the
 * default chain.
 */
export function rankServices(
  listings: readonly ServiceListing[],
  { priority, defaultChain, query }: { priority: "cost" | "speed"; defaultChain?: string | undefined; query?: string | undefined },
): ServiceListing[] {
  const words = queryWords(query);
  const relevance = new Map(listings.map((listing) => [listing, relevanceOf(listing, words)]));
  const byRelevance = (a: ServiceListing, b: ServiceListing) => {
    const [exactA, nameA, restA] = relevance.get(a) ?? [0, 0, 0];
    const [exactB, nameB, restB] = relevance.get(b) ?? [0, 0, 0];
    return exactB - exactA || nameB - nameA || restB - restA;
  };
  const byPrice = (a: ServiceListing, b: ServiceListing) => (a.amount < b.amount ? -1 : a.amount > b.amount ? 1 : 0);
  const bySpeed = (a: ServiceListing, b: ServiceListing) =>
    (a.latencyMs ?? Number.MAX_SAFE_INTEGER) - (b.latencyMs ?? Number.MAX_SAFE_INTEGER);
  const byUse = (a: ServiceListing, b: ServiceListing) =>
    (b.quality?.payers30d ?? 0) - (a.quality?.payers30d ?? 0) || (b.quality?.calls30d ?? 0) - (a.quality?.calls30d ?? 0);
  const byChain = (a: ServiceListing, b: ServiceListing) =>
    Number(b.network === defaultChain) - Number(a.network === defaultChain);
  return [...listings].sort(
    (a, b) =>
      byRelevance(a, b) ||
      (priority === "speed" ? bySpeed(a, b) || byPrice(a, b) || byUse(a, b) || byChain(a, b) : byPrice(a, b) || bySpeed(a, b) || byUse(a, b) || byChain(a, b)),
  );
}

/** Whether a listing's registry reports that someone paid it in the last 30 days (undefined: not reported). */
export function hasTrackRecord(listing: ServiceListing): boolean | undefined {
  const { quality } = listing;
  if (!quality || (quality.calls30d === undefined && quality.payers30d === undefined)) return undefined;
  return (quality.payers30d ?? 0) > 0 || (quality.calls30d ?? 0) > 0;
}
