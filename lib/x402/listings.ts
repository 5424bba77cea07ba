// What an x402 registry lists (Bazaar `GET /discovery/resources` items), as listings
// (lib/discovery/listings.ts): one per network an item can be paid on here, in a scheme the x402
// protocol carries, with the registry's quality signals and the latency and input its Bazaar
// extension declares.
import type { DiscoveryResource } from "@x402/extensions/bazaar";
import { formatUsd } from "@/lib/money";
import { asRecord, boundListing, latencyFromTags, typicalFromTags, type DiscoveryEnv, type ListingQuality, type ServiceListing } from "@/lib/discovery/listings";

/** The x402 protocol's registered name (lib/payments/protocols/x402.ts). */
export const X402_PROTOCOL = "x402";

/** A listing's entries in the catalog, bounded; none when the listing cannot be read. */
export function listingsOf(item: DiscoveryResource, registry: string, env: DiscoveryEnv): ServiceListing[] {
  try {
    return toListing(item, registry, env).flatMap((listing) => boundListing(listing) ?? []);
  } catch {
    return [];
  }
}

function toListing(item: DiscoveryResource, registry: string, env: DiscoveryEnv): ServiceListing[] {
  const url = safeUrl(item.resource);
  if (!url) return [];
  // Payable here by the same rule as a quote (the rails' schemes), v1 and v2 spellings alike.
  const payable = (Array.isArray(item.accepts) ? item.accepts : []).flatMap((requirements) => {
    const check = env.payable(requirements);
    return check.payable ? [{ ...check, upTo: check.usagePriced }] : [];
  });
  const quality = qualityOf((item as { quality?: unknown }).quality);
  // One listing per network the service can be paid on.
  return payable.map(({ networkId, amount, asset, payTo, upTo }): ServiceListing => {
    const info = bazaarInfo(item.extensions);
    const typical = upTo ? typicalFromTags(item.tags, amount) : undefined;
    return {
      protocol: X402_PROTOCOL,
      // Text is bounded once, by boundListing, after this.
      name: item.serviceName ?? hostName(url),
      url,
      method: info.method === "POST" ? "POST" : "GET",
      description: item.description ?? "",
      tags: item.tags ?? [],
      network: networkId,
      amount,
      priceUsd: formatUsd(amount),
      ...(upTo ? { upTo: true as const } : {}),
      ...(typical !== undefined ? { typicalUsd: formatUsd(typical) } : {}),
      asset,
      payTo,
      latencyMs: info.latencyMs ?? latencyFromTags(item.tags),
      input: info.input,
      registry,
      ...(quality ? { quality } : {}),
    };
  });
}

/** The registry's `quality` object, where its fields are what they claim to be; undefined otherwise. */
function qualityOf(value: unknown): ListingQuality | undefined {
  const record = asRecord(value);
  if (!record) return undefined;
  const count = (field: unknown) => (typeof field === "number" && Number.isSafeInteger(field) && field >= 0 ? field : undefined);
  const calls30d = count(record.l30DaysTotalCalls);
  const payers30d = count(record.l30DaysUniquePayers);
  const last = typeof record.lastCalledAt === "string" ? new Date(record.lastCalledAt) : undefined;
  const lastCalledAt = last && !Number.isNaN(last.getTime()) ? last.toISOString() : undefined;
  if (calls30d === undefined && payers30d === undefined && lastCalledAt === undefined) return undefined;
  return { ...(calls30d !== undefined ? { calls30d } : {}), ...(payers30d !== undefined ? { payers30d } : {}), ...(lastCalledAt ? { lastCalledAt } : {}) };
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
