// MPP services found by their OpenAPI documents (`MPP_SERVICES`, docs/contract.md, section 12):
// each document read under the same deadline and size cap as a registry, checked with mppx's
// own discovery schema (`x-service-info`, per-operation `x-payment-info`), cached for at most
// DISCOVERY_CACHE_MS, and turned into the same listings as the registries' x402 services, so
// both are found, compared and ranked in one list. An offer is listed only when the rails can
// pay it (the rule a quote follows); discovery is advisory: the 402's challenge decides.
import { DiscoveryDocument } from "mppx/discovery";
import { chainIdOf } from "@/lib/chain/networks";
import { readBoundedBody } from "@/lib/net/bounded-body";
import { guardedFetchFollowing } from "@/lib/net/guarded-fetch";
import { processState } from "@/lib/process-state";
import { formatUsd } from "@/lib/money";
import { asRecord, boundListing, filterServices, type DiscoveryEnv, type ServiceFilter, type ServiceListing } from "@/lib/discovery/listings";
import { MPP_EVM_CHARGE } from "./scheme";

/** The most of one OpenAPI document that is read; a longer one is skipped. */
export const OPENAPI_MAX_BYTES = 1024 * 1024;
const DOCUMENT_CACHE_MS = 30_000;
const HTTP_METHODS = ["get", "post"] as const;

/** What MPP discovery reads: the documents, and what discovery reads of the configuration. */
export type MppDiscoveryEnv = DiscoveryEnv & { MPP_SERVICES: readonly string[] };

// The documents as read (what can be paid of them depends on the configuration that asks).
const { documents } = processState("mpp-discovery", () => ({ documents: new Map<string, { at: number; document: unknown }>() }));

/**
 * Every payable MPP service the configured documents describe that matches `filter`. A document
 * that fails, is not one, or is too large or too slow adds nothing; the others still answer.
 */
export async function findMppServices(
  env: MppDiscoveryEnv,
  filter: ServiceFilter,
  { signal, maxBytes = OPENAPI_MAX_BYTES, now = Date.now() }: { signal: AbortSignal; maxBytes?: number; now?: number },
): Promise<ServiceListing[]> {
  const perDocument = await Promise.all(env.MPP_SERVICES.map((url) => listingsOfDocument(url, env, { signal, maxBytes, now }).catch(() => [])));
  return filterServices(perDocument.flat(), filter);
}

async function listingsOfDocument(url: string, env: MppDiscoveryEnv, options: { signal: AbortSignal; maxBytes: number; now: number }): Promise<ServiceListing[]> {
  return listingsOf(await readDocument(url, env, options), url, env);
}

/** A configured document as read: from the cache while it is fresh, else fetched (and cached). */
async function readDocument(
  url: string,
  env: Pick<MppDiscoveryEnv, "X402_ALLOW_PRIVATE_ADDRESSES">,
  { signal, maxBytes, now }: { signal: AbortSignal; maxBytes: number; now: number },
): Promise<unknown> {
  const hit = documents.get(url);
  if (hit && now - hit.at < DOCUMENT_CACHE_MS) return hit.document;
  const response = await guardedFetchFollowing(url, { headers: { accept: "application/json" }, signal, allowPrivate: env.X402_ALLOW_PRIVATE_ADDRESSES });
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`OpenAPI document answered HTTP ${response.status}`);
  }
  const body = await readBoundedBody(response, { maxBytes });
  if (body.cut) throw new Error(`OpenAPI document larger than ${maxBytes} bytes`);
  const document: unknown = JSON.parse(body.text);
  documents.set(url, { at: now, document });
  return document;
}

/** What a service's OpenAPI document says of one of its operations: the service's name and the operation's query parameters. */
export type DescribedOperation = { name: string; input: Record<string, unknown> | undefined };

/**
 * What the configured documents on the call's own origin say of the operation it calls (its URL
 * without the query, and its method), paid or not: for saying why the service refused the call
 * in its own terms. Undefined when no document describes it, or none can be read.
 */
export async function describeMppOperation(
  env: Pick<MppDiscoveryEnv, "MPP_SERVICES" | "X402_ALLOW_PRIVATE_ADDRESSES">,
  call: { url: string; method: "GET" | "POST" },
  { signal, maxBytes = OPENAPI_MAX_BYTES, now = Date.now() }: { signal: AbortSignal; maxBytes?: number; now?: number },
): Promise<DescribedOperation | undefined> {
  const target = new URL(call.url);
  const wanted = `${target.origin}${target.pathname}`.replace(/\/+$/, "");
  for (const url of env.MPP_SERVICES) {
    if (new URL(url).origin !== target.origin) continue;
    const document = await readDocument(url, env, { signal, maxBytes, now }).catch(() => undefined);
    const parsed = DiscoveryDocument.safeParse(document);
    if (!parsed.success) continue;
    const base = serverOf(document, target.origin);
    const rawPaths = asRecord(asRecord(document)?.paths);
    for (const path of Object.keys(parsed.data.paths ?? {})) {
      if (`${base}${path}`.replace(/\/+$/, "") !== wanted) continue;
      const operation = asRecord(asRecord(rawPaths?.[path])?.[call.method.toLowerCase()]);
      if (operation) return { name: parsed.data.info.title, input: inputOf(operation.parameters) };
    }
  }
  return undefined;
}

/**
 * The listings an OpenAPI discovery document comes to: one per operation and network for each
 * `evm` charge offer the rails can pay. The operation's URL is the document's first server when
 * it is on the document's own origin, else the document's origin: a document speaks for its own
 * host only.
 */
export function listingsOf(value: unknown, documentUrl: string, env: DiscoveryEnv): ServiceListing[] {
  const parsed = DiscoveryDocument.safeParse(value);
  if (!parsed.success) return [];
  const document = parsed.data;
  const origin = new URL(documentUrl).origin;
  const base = serverOf(value, origin);
  const serviceInfo = document["x-service-info"];
  const categories = (serviceInfo?.categories ?? []).filter((tag): tag is string => typeof tag === "string");
  const rawPaths = asRecord(asRecord(value)?.paths);
  const listings: ServiceListing[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      const info = operation?.["x-payment-info"];
      if (!operation || !info || !path.startsWith("/")) continue;
      // Tags and parameters are OpenAPI's own fields, which mppx's schema lets through unread.
      const raw = asRecord(asRecord(rawPaths?.[path])?.[method]);
      const tags = [...new Set([...categories, ...stringsOf(raw?.tags)])];
      for (const offer of info.offers) {
        const listing = listingOfOffer(offer, { url: `${base}${path}`, method: method === "post" ? "POST" : "GET", title: document.info.title, summary: operation.summary, tags, input: inputOf(raw?.parameters), documentUrl, env });
        if (listing) listings.push(...listing);
      }
    }
  }
  return listings.flatMap((listing) => boundListing(listing) ?? []);
}

type OperationFacts = {
  url: string;
  method: "GET" | "POST";
  title: string;
  summary: string | undefined;
  tags: string[];
  input: Record<string, unknown> | undefined;
  documentUrl: string;
  env: DiscoveryEnv;
};

/**
 * The listings of one offer: an `evm` charge names its currency and recipient but not its chain
 * (the 402's challenge does), so it is listed on each enabled network whose USDC it names.
 */
function listingOfOffer(offer: Record<string, unknown>, facts: OperationFacts): ServiceListing[] | undefined {
  if (offer.method !== "evm" || (offer.intent !== undefined && offer.intent !== "charge")) return undefined;
  const { amount, currency, recipient } = offer;
  if (typeof amount !== "string" || typeof currency !== "string" || typeof recipient !== "string") return undefined;
  const listings: ServiceListing[] = [];
  for (const network of facts.env.X402_NETWORKS.filter((id) => chainIdOf(id) !== undefined)) {
    const check = facts.env.payable({ scheme: MPP_EVM_CHARGE, network: network as `${string}:${string}`, amount, asset: currency, payTo: recipient, maxTimeoutSeconds: 300, extra: {} });
    if (!check.payable) continue;
    listings.push({
      protocol: "mpp",
      name: facts.title,
      url: facts.url,
      method: facts.method,
      description: facts.summary ?? (typeof offer.description === "string" ? offer.description : ""),
      tags: facts.tags,
      network: check.networkId,
      amount: check.amount,
      priceUsd: formatUsd(check.amount),
      asset: check.asset,
      payTo: check.payTo,
      latencyMs: latencyOf(facts.tags),
      input: facts.input,
      registry: facts.documentUrl,
    });
  }
  return listings;
}

/** The document's first server, when it is on the document's own origin; else that origin. */
function serverOf(value: unknown, origin: string): string {
  const servers = asRecord(value)?.servers;
  const first = Array.isArray(servers) ? asRecord(servers[0])?.url : undefined;
  if (typeof first !== "string") return origin;
  try {
    const url = new URL(first, origin);
    return url.origin === origin ? url.toString().replace(/\/+$/, "") : origin;
  } catch {
    return origin;
  }
}

/** An operation's query parameters as a listing's input: each name with its schema and whether it is required. */
function inputOf(parameters: unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(parameters)) return undefined;
  const input: Record<string, unknown> = {};
  for (const parameter of parameters) {
    const record = asRecord(parameter);
    if (!record || typeof record.name !== "string" || (record.in !== undefined && record.in !== "query")) continue;
    input[record.name] = { ...(asRecord(record.schema) ?? {}), ...(record.required === true ? { required: true } : {}) };
  }
  return Object.keys(input).length > 0 ? input : undefined;
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === "string") : [];
}

function latencyOf(tags: readonly string[]): number | undefined {
  for (const tag of tags) {
    const match = /^latency-ms:(\d{1,7})$/.exec(tag);
    if (match) return Number(match[1]);
  }
  return undefined;
}

/** Forgets the documents read (tests, and a document known to have changed). */
export function clearMppDiscoveryCache(): void {
  documents.clear();
}
