/**
 * A Bazaar-style discovery registry over HTTP: `GET /discovery/resources` (filters type, payTo,
 * scheme, network; limit/offset pagination), `GET /discovery/search?q=` (or `query=`), and
 * `POST /register` so services listed after start-up are found. Entries are built from each
 * service's own 402 answer, so the listing always matches what the service really asks. Each
 * entry carries the Bazaar's quality signals (`quality`: paid calls and unique payers in the
 * last 30 days, the last paid call), counted from the payments the sandbox's facilitator settled.
 */
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { PaymentRequirementsSchema } from "@x402/core/schemas";
import type { PaymentRequirements } from "@x402/core/types";
import type { DiscoveryResource, DiscoveryResourcesResponse } from "@x402/extensions/bazaar";
import { z } from "zod";
import { HttpError, listen, readJson, requestUrl, sendJson, type RunningServer } from "./http";

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

export type Registry = RunningServer & {
  /** Adds or replaces (by resource URL) an entry. */
  register(resource: DiscoveryResource): void;
  /** Probes `url` for its 402 and lists what it asks for. */
  registerFromUrl(url: string, method?: "GET" | "POST"): Promise<DiscoveryResource>;
  unregister(resourceUrl: string): boolean;
  list(): DiscoveryResource[];
  /** Counts a settled payment for the entry of `resource` (its URL, with or without a query). */
  recordCall(call: { resource: string; payer: string | undefined; at?: Date }): void;
};

const THIRTY_DAYS_MS = 30 * 24 * 60 * 60 * 1000;

/** A URL without its query and fragment: the entry a paid call belongs to. */
function resourceKey(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url;
  }
}

const registerBodySchema = z.union([
  z.object({ url: z.url(), method: z.enum(["GET", "POST"]).optional() }),
  z.object({
    resource: z.url(),
    type: z.string().default("http"),
    x402Version: z.number().int().default(2),
    accepts: z.array(z.record(z.string(), z.unknown())).min(1),
    description: z.string().optional(),
    mimeType: z.string().optional(),
    serviceName: z.string().optional(),
    tags: z.array(z.string()).optional(),
    extensions: z.record(z.string(), z.unknown()).optional(),
  }),
]);

/** Fetches `url` unpaid and turns its PAYMENT-REQUIRED header into a registry entry. */
export async function probeResource(url: string, method: "GET" | "POST" = "GET"): Promise<DiscoveryResource> {
  const response = await fetch(url, {
    method,
    headers: method === "POST" ? { "content-type": "application/json" } : {},
    body: method === "POST" ? "{}" : undefined,
  });
  const header = response.headers.get("payment-required");
  if (response.status !== 402 || !header) {
    throw new HttpError(422, `${url} did not answer 402 with a PAYMENT-REQUIRED header (got ${response.status})`);
  }
  await response.body?.cancel();
  const required = decodePaymentRequiredHeader(header);
  return {
    resource: required.resource?.url ?? url,
    type: "http",
    x402Version: required.x402Version,
    accepts: required.accepts,
    lastUpdated: new Date().toISOString(),
    ...(required.resource?.description ? { description: required.resource.description } : {}),
    ...(required.resource?.mimeType ? { mimeType: required.resource.mimeType } : {}),
    ...(required.resource?.serviceName ? { serviceName: required.resource.serviceName } : {}),
    ...(required.resource?.tags ? { tags: required.resource.tags } : {}),
    ...(required.extensions ? { extensions: required.extensions } : {}),
  };
}

function matchesFilters(item: DiscoveryResource, params: URLSearchParams): boolean {
  const type = params.get("type");
  if (type && item.type !== type) return false;
  const accepts = (test: (requirement: PaymentRequirements) => boolean) => item.accepts.some(test);
  const payTo = params.get("payTo")?.toLowerCase();
  if (payTo && !accepts((r) => r.payTo.toLowerCase() === payTo)) return false;
  const scheme = params.get("scheme");
  if (scheme && !accepts((r) => r.scheme === scheme)) return false;
  const network = params.get("network");
  if (network && !accepts((r) => r.network === network)) return false;
  return true;
}

function matchesQuery(item: DiscoveryResource, query: string): boolean {
  const haystack = [item.resource, item.description, item.serviceName, ...(item.tags ?? [])]
    .filter(Boolean)
    .join(" ")
    .toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => haystack.includes(word));
}

function pageParams(params: URLSearchParams): { limit: number; offset: number } {
  const number = (name: string, fallback: number) => {
    const text = params.get(name);
    if (text === null || text === "") return fallback;
    if (!/^\d+$/.test(text)) throw new HttpError(400, `${name} must be a non-negative integer`);
    return Number(text);
  };
  return { limit: Math.min(MAX_LIMIT, Math.max(1, number("limit", DEFAULT_LIMIT))), offset: number("offset", 0) };
}

/**
 * One listing of a registry filled to size (the bench's and the tests' registries of thousands):
 * "Service N", answering questions about its topic (`topic<N % 500>` unless given), one `exact`
 * price on the sandbox chain in `asset`.
 */
export function topicListing(index: number, { asset, topic = `topic${index % 500}` }: { asset: string; topic?: string }): DiscoveryResource {
  return {
    resource: `https://service${index}.example/${topic.replace(" ", "-")}`,
    type: "http",
    x402Version: 2,
    lastUpdated: "2026-01-01T00:00:00.000Z",
    serviceName: `Service ${index}`,
    description: `Answers questions about ${topic}`,
    tags: [topic],
    accepts: [{ scheme: "exact", network: "eip155:31337", amount: String(1_000 + (index % 90)), asset, payTo: `0x${"2".repeat(40)}`, maxTimeoutSeconds: 60, extra: { name: "USD Coin", version: "2" } }],
  };
}

/**
 * `search: false` answers `/discovery/search` with 404, as registries without search do;
 * `delayMs` answers each request that much later, as a registry across the internet does.
 */
export async function startRegistry({ port, search = true, delayMs = 0 }: { port: number; search?: boolean; delayMs?: number }): Promise<Registry> {
  const entries = new Map<string, DiscoveryResource>();
  const calls = new Map<string, Array<{ at: number; payer: string | undefined }>>();

  const withQuality = (item: DiscoveryResource) => {
    const since = Date.now() - THIRTY_DAYS_MS;
    const recent = (calls.get(resourceKey(item.resource)) ?? []).filter((call) => call.at >= since);
    const last = recent.at(-1);
    const quality = {
      l30DaysTotalCalls: recent.length,
      l30DaysUniquePayers: new Set(recent.map((call) => call.payer?.toLowerCase() ?? "unknown")).size,
      ...(last ? { lastCalledAt: new Date(last.at).toISOString() } : {}),
    };
    return { ...item, quality };
  };

  const register = (resource: DiscoveryResource) => {
    entries.set(resource.resource, resource);
  };
  const registerFromUrl = async (url: string, method: "GET" | "POST" = "GET") => {
    const resource = await probeResource(url, method);
    register(resource);
    return resource;
  };

  const server = await listen(port, async (request, response) => {
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    const url = requestUrl(request);
    if (request.method === "GET" && url.pathname === "/discovery/resources") {
      const { limit, offset } = pageParams(url.searchParams);
      const matching = [...entries.values()].filter((item) => matchesFilters(item, url.searchParams));
      const body: DiscoveryResourcesResponse = {
        x402Version: 2,
        items: matching.slice(offset, offset + limit).map(withQuality),
        pagination: { limit, offset, total: matching.length },
      };
      return sendJson(response, 200, body);
    }
    if (search && request.method === "GET" && url.pathname === "/discovery/search") {
      const query = url.searchParams.get("q") ?? url.searchParams.get("query") ?? "";
      const { limit } = pageParams(url.searchParams);
      const matching = [...entries.values()].filter(
        (item) => matchesFilters(item, url.searchParams) && matchesQuery(item, query),
      );
      return sendJson(response, 200, {
        x402Version: 2,
        resources: matching.slice(0, limit).map(withQuality),
        partialResults: matching.length > limit,
        pagination: { limit, cursor: null },
      });
    }
    if (request.method === "POST" && url.pathname === "/register") {
      const body = registerBodySchema.safeParse(await readJson(request));
      if (!body.success) {
        throw new HttpError(400, "expected { url, method? } or a discovery resource { resource, accepts, ... }");
      }
      if ("url" in body.data) {
        return sendJson(response, 201, await registerFromUrl(body.data.url, body.data.method));
      }
      const accepts = body.data.accepts.map((entry) => PaymentRequirementsSchema.safeParse(entry));
      if (accepts.some((entry) => !entry.success)) throw new HttpError(400, "accepts holds invalid payment requirements");
      const resource: DiscoveryResource = {
        ...body.data,
        accepts: accepts.flatMap((entry) => (entry.success ? [entry.data as PaymentRequirements] : [])),
        lastUpdated: new Date().toISOString(),
      };
      register(resource);
      return sendJson(response, 201, resource);
    }
    if (request.method === "GET" && url.pathname === "/health") return sendJson(response, 200, { ok: true });
    throw new HttpError(404, "not found");
  });

  return {
    ...server,
    register,
    registerFromUrl,
    unregister: (resourceUrl) => entries.delete(resourceUrl),
    list: () => [...entries.values()],
    recordCall: ({ resource, payer, at = new Date() }) => {
      const key = resourceKey(resource);
      const list = calls.get(key) ?? [];
      list.push({ at: at.getTime(), payer });
      calls.set(key, list.slice(-10_000));
    },
  };
}
