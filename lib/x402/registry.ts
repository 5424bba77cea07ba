// Reading a registry over its Bazaar API: a page of `GET /discovery/resources` and, where the
// registry has it, `GET /discovery/search`. Each read is bounded (a timeout from the caller, a
// size cap here) and checked: a malformed answer fails its read, a malformed listing is dropped.
// Read here rather than through @x402/extensions' bazaar client, which fetches with no timeout
// and reads the whole answer whatever its size. A registry is configuration, so no address
// policy applies beyond the loopback allowance.
import type { DiscoveryResource, ListDiscoveryResourcesParams } from "@x402/extensions/bazaar";
import { z } from "zod";
import { readBoundedBody } from "@/lib/net/bounded-body";
import { guardedFetchFollowing } from "@/lib/net/guarded-fetch";

/** Listings asked for per page (the Bazaar's maximum). */
export const REGISTRY_PAGE_SIZE = 100;
/** The most of one registry answer that is read; a longer one fails its read. */
export const REGISTRY_PAGE_MAX_BYTES = 2 * 1024 * 1024;

export type RegistryRead = { signal: AbortSignal; maxBytes?: number; allowPrivate: readonly string[] };

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

const searchAnswerSchema = z.object({
  resources: z.array(z.unknown()),
  partialResults: z.boolean().nullish(),
});

/** One page of `GET <registry>/discovery/resources`: its listings, how many it held, and the total it claims. */
export async function readRegistryPage(
  registry: string,
  params: ListDiscoveryResourcesParams,
  { signal, maxBytes = REGISTRY_PAGE_MAX_BYTES, allowPrivate }: RegistryRead,
): Promise<{ items: DiscoveryResource[]; listed: number; total: number | undefined }> {
  const url = new URL(`${registry.replace(/\/+$/, "")}/discovery/resources`);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, String(value));
  const response = await guardedFetchFollowing(url, { headers: { accept: "application/json" }, signal, allowPrivate });
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`registry answered HTTP ${response.status}`);
  }
  const page = registryPageSchema.parse(JSON.parse(await boundedText(response, maxBytes)));
  return { items: parseItems(page.items), listed: page.items.length, total: page.pagination?.total };
}

/** A registry that answers search with one of these has none. */
const NO_SEARCH_STATUSES = new Set([404, 405, 501]);

export class RegistryHasNoSearch extends Error {}

/**
 * `GET <registry>/discovery/search?query=`: the listings the registry itself finds for a query,
 * and whether it cut them short. A registry without search throws RegistryHasNoSearch.
 */
export async function searchRegistry(
  registry: string,
  query: string,
  { signal, maxBytes = REGISTRY_PAGE_MAX_BYTES, allowPrivate }: RegistryRead,
): Promise<{ items: DiscoveryResource[]; partial: boolean }> {
  const url = new URL(`${registry.replace(/\/+$/, "")}/discovery/search`);
  url.searchParams.set("query", query);
  url.searchParams.set("type", "http");
  url.searchParams.set("limit", String(REGISTRY_PAGE_SIZE));
  const response = await guardedFetchFollowing(url, { headers: { accept: "application/json" }, signal, allowPrivate });
  if (!response.ok) {
    await response.body?.cancel();
    if (NO_SEARCH_STATUSES.has(response.status)) throw new RegistryHasNoSearch(`registry has no search (HTTP ${response.status})`);
    throw new Error(`registry search answered HTTP ${response.status}`);
  }
  const text = await boundedText(response, maxBytes);
  const answer = searchAnswerSchema.safeParse(JSON.parse(text));
  if (!answer.success) throw new RegistryHasNoSearch("registry search answered something else than { resources }");
  return { items: parseItems(answer.data.resources), partial: answer.data.partialResults === true };
}

async function boundedText(response: Response, maxBytes: number): Promise<string> {
  const body = await readBoundedBody(response, { maxBytes });
  if (body.cut) throw new Error(`registry answer larger than ${maxBytes} bytes`);
  return body.text;
}

function parseItems(items: readonly unknown[]): DiscoveryResource[] {
  return items.flatMap((item) => {
    const parsed = discoveryResourceSchema.safeParse(item);
    // The schema checked every field used here; the library's type names the rest.
    return parsed.success ? [parsed.data as unknown as DiscoveryResource] : [];
  });
}
