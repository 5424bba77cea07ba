// Service discovery over every configured registry, answered within DISCOVERY_DEADLINE_MS of
// the tool call whatever their size. A registry is first read as today's small ones are: its
// first pages (`GET /discovery/resources`), cached for at most DISCOVERY_CACHE_MS, so a service
// listed after start-up is found. One that holds more than those pages is large: from then on a
// query asks its own search (`GET /discovery/search`) where it has one, and its whole catalogue
// is read in the background into a bounded local index (lib/x402/registry-index.ts), never on
// the request path. Each registry is read under the same deadline and size caps, so one that is
// slow, huge or broken is skipped and the others still answer; one malformed listing is skipped,
// not its registry. Listing text is untrusted data: bounded, never followed.
import type { DiscoveryResource } from "@x402/extensions/bazaar";
import { filterServices, listingKey, matchesTerms, type DiscoveryEnv, type ServiceFilter, type ServiceListing } from "@/lib/discovery/listings";
import { listingsOf } from "./listings";
import { clearIndexes, findInIndex, firstReadOf, refreshIndex, type IndexState } from "./registry-index";
import { readRegistryPage, REGISTRY_PAGE_SIZE, RegistryHasNoSearch, searchRegistry } from "./registry";
import { processState } from "@/lib/process-state";

export const DISCOVERY_CACHE_MS = 30_000;
/** A discovery answer, from every registry, within this of the tool call. */
export const DISCOVERY_DEADLINE_MS = 1_500;
/** The pages read on request; a registry with more is large. */
const HEAD_PAGES = 5;
/** How long a registry is remembered as large, or as having no search. */
const SHAPE_MS = 10 * 60_000;

export type RegistryReadOptions = {
  /** Bound of one discovery, every registry at once (DISCOVERY_DEADLINE_MS by default). */
  timeoutMs?: number;
  /** Bound of one registry answer (REGISTRY_PAGE_MAX_BYTES by default). */
  maxBytes?: number;
  now?: number;
};

export type Discovery = {
  services: ServiceListing[];
  /** What the person should know about what could not be searched (a catalogue still being read). */
  notes: string[];
};

type Head = { items: DiscoveryResource[]; more: boolean };

// One per process (lib/process-state.ts): the server's start warms them from its own bundle.
const { heads, large, withoutSearch } = processState("discovery", () => ({
  heads: new Map<string, { at: number; head: Head }>(),
  large: new Map<string, number>(),
  withoutSearch: new Map<string, number>(),
}));

/**
 * Every payable service the registries list that matches `filter`, each registry read side by
 * side under one deadline. A registry that fails, answers garbage, too much or too slowly adds
 * nothing; what the others found still comes back.
 */
export async function findServices(env: DiscoveryEnv, filter: ServiceFilter, { timeoutMs = DISCOVERY_DEADLINE_MS, maxBytes, now = Date.now() }: RegistryReadOptions = {}): Promise<Discovery> {
  const signal = AbortSignal.timeout(timeoutMs);
  const perRegistry = await Promise.all(env.X402_DISCOVERY_URLS.map((registry) => fromRegistry(registry, env, filter, { signal, maxBytes, now }).catch(() => ({ services: [], notes: [] }))));
  // The same resource listed by two registries (or found twice in one) is one service.
  const seen = new Set<string>();
  const services = perRegistry
    .flatMap((found) => found.services)
    .filter((listing) => {
      const key = listingKey(listing);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  return { services, notes: perRegistry.flatMap((found) => found.notes) };
}

/**
 * Reads every registry's first pages, so that a large one's catalogue starts being indexed
 * before anyone asks (the server's start calls it, in the background). Failures are the next
 * discovery's to meet.
 */
export async function warmDiscovery(env: DiscoveryEnv): Promise<void> {
  await findServices(env, {}, { timeoutMs: 10_000 }).catch(() => undefined);
}

/** Every payable service the registries list (no query). */
export async function listServices(env: DiscoveryEnv, options: RegistryReadOptions = {}): Promise<ServiceListing[]> {
  return (await findServices(env, {}, options)).services;
}

type Read = { signal: AbortSignal; maxBytes: number | undefined; now: number };

async function fromRegistry(registry: string, env: DiscoveryEnv, filter: ServiceFilter, read: Read): Promise<Discovery> {
  const listed = (items: readonly DiscoveryResource[]) => items.flatMap((item) => listingsOf(item, registry, env));
  const allowPrivate = env.X402_ALLOW_PRIVATE_ADDRESSES;
  if (!isLarge(registry, read.now)) {
    const head = await headOf(registry, read, allowPrivate);
    if (!head.more) return { services: filterServices(listed(head.items), filter), notes: [] };
    large.set(registry, read.now);
  }

  refreshIndex(registry, env, read.now);
  const searched = filter.query?.trim() ? await searchOf(registry, filter.query, read, allowPrivate) : undefined;
  // With no search to ask, a query waits (within the deadline) for the first read of the catalogue.
  if (!searched) await firstReadOf(registry, env, read.signal);
  const indexed = findInIndex(registry, env, filter);
  // The registry's own search decides what matches its words; the network and price are checked here.
  const services = [...(searched ? listed(searched.items).filter((listing) => matchesTerms(listing, filter)) : []), ...indexed.listings];
  const notes = searched && !searched.partial ? [] : stillReading(registry, indexed.state);
  return { services, notes };
}

function isLarge(registry: string, now: number): boolean {
  const at = large.get(registry);
  return at !== undefined && now - at < SHAPE_MS;
}

/** The registry's first pages, cached for DISCOVERY_CACHE_MS; `more` when the catalogue goes on past them. */
async function headOf(registry: string, { signal, maxBytes, now }: Read, allowPrivate: readonly string[]): Promise<Head> {
  const hit = heads.get(registry);
  if (hit && now - hit.at < DISCOVERY_CACHE_MS) return hit.head;
  const items: DiscoveryResource[] = [];
  let offset = 0;
  for (let page = 0; page < HEAD_PAGES; page += 1) {
    let answer: Awaited<ReturnType<typeof readRegistryPage>>;
    try {
      answer = await readRegistryPage(registry, { type: "http", limit: REGISTRY_PAGE_SIZE, offset }, { signal, maxBytes, allowPrivate });
    } catch (error) {
      // A later page that fails leaves the earlier ones usable, but not cached as the whole list.
      if (page === 0) throw error;
      return { items, more: false };
    }
    offset += answer.listed;
    items.push(...answer.items);
    const ended = answer.listed === 0 || (answer.total !== undefined ? offset >= answer.total : answer.listed < REGISTRY_PAGE_SIZE);
    if (ended) {
      const head = { items, more: false };
      heads.set(registry, { at: now, head });
      return head;
    }
  }
  const head = { items, more: true };
  heads.set(registry, { at: now, head });
  return head;
}

/** The registry's search for the query; undefined when it has none, fails or is too slow. */
async function searchOf(registry: string, query: string, { signal, maxBytes, now }: Read, allowPrivate: readonly string[]) {
  const missing = withoutSearch.get(registry);
  if (missing !== undefined && now - missing < SHAPE_MS) return undefined;
  try {
    return await searchRegistry(registry, query.trim(), { signal, maxBytes, allowPrivate });
  } catch (error) {
    if (error instanceof RegistryHasNoSearch) withoutSearch.set(registry, now);
    return undefined;
  }
}

function stillReading(registry: string, state: IndexState | undefined): string[] {
  if (state?.end === "complete") return [];
  const host = hostOf(registry);
  if (!state) return [`The registry at ${host} lists more services than were read so far; its catalogue is being read now: ask again in a minute to search all of it.`];
  const of = state.total !== undefined ? `, among ${state.total} listings` : "";
  if (state.end === "capped") {
    return [`The registry at ${host} lists more than this agent keeps (${state.listings} payable services${of}), and has no search: a service past those is not found.`];
  }
  return state.reading
    ? [`The registry at ${host} is still being read (${state.listings} payable services so far${of}): a service further in may not be found yet; ask again in a minute.`]
    : [`Only part of the registry at ${host} could be read (${state.listings} payable services${of}): a service further in may not be found.`];
}

function hostOf(registry: string): string {
  try {
    return new URL(registry).host;
  } catch {
    return registry;
  }
}

/** Forgets cached listings, indexes and what is known of each registry (tests, and a registry known to have changed). */
export function clearDiscoveryCache(): void {
  heads.clear();
  large.clear();
  withoutSearch.clear();
  clearIndexes();
}
