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
/**
 * A discovery answer, from every registry, within this of the tool call: room for a registry
 * across the internet (a page and a search, 300 ms away each, on a busy machine).
 */
export const DISCOVERY_DEADLINE_MS = 5_000;
/** The longest a query waits for a large registry's first catalogue read when it has no search (the answer then says it is still being read). */
const INDEX_FIRST_WAIT_MS = 1_500;
/** How old a registry's first pages may be and still be served while fresh ones load. */
const STALE_HEAD_MS = 10 * 60_000;
/** How long a request waits for fresh first pages before it is answered from the stale ones. */
const STALE_WAIT_MS = 500;
/** Bound of a refresh of the first pages that no request waits for. */
const HEAD_REFRESH_MS = 10_000;
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
  /** What the person should know about what could not be searched (a catalogue still being read, a registry that did not answer). */
  notes: string[];
  /** A registry did not answer (too slow, or failing): what it lists is unknown, not absent. */
  incomplete?: true;
};

type Head = { items: DiscoveryResource[]; more: boolean };

// One per process (lib/process-state.ts): the server's start warms them from its own bundle.
const { heads, refreshing, large, withoutSearch } = processState("discovery", () => ({
  heads: new Map<string, { at: number; head: Head }>(),
  refreshing: new Map<string, Promise<Head>>(),
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
  const perRegistry = await Promise.all(
    env.X402_DISCOVERY_URLS.map((registry) =>
      fromRegistry(registry, env, filter, { signal, maxBytes, now }).catch((): Discovery => ({ services: [], notes: [unansweredNote(registry, signal.aborted, timeoutMs)], incomplete: true })),
    ),
  );
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
  return { services, notes: perRegistry.flatMap((found) => found.notes), ...(perRegistry.some((found) => found.incomplete) ? { incomplete: true } : {}) };
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
  // With no search to ask, a query waits (within the deadline, and INDEX_FIRST_WAIT_MS) for the first read of the catalogue.
  if (!searched) await firstReadOf(registry, env, AbortSignal.any([read.signal, AbortSignal.timeout(INDEX_FIRST_WAIT_MS)]));
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

/**
 * The registry's first pages, cached for DISCOVERY_CACHE_MS; `more` when the catalogue goes on
 * past them. Past that, the last good head (up to STALE_HEAD_MS old) is served while a fresh one
 * loads, unless the fresh one comes within STALE_WAIT_MS: a registry that has turned slow is
 * never "no services".
 */
async function headOf(registry: string, read: Read, allowPrivate: readonly string[]): Promise<Head> {
  const hit = heads.get(registry);
  if (hit && read.now - hit.at < DISCOVERY_CACHE_MS) return hit.head;
  if (!hit || read.now - hit.at > STALE_HEAD_MS) return readHead(registry, read, allowPrivate);
  let refresh = refreshing.get(registry);
  if (!refresh) {
    refresh = readHead(registry, { signal: AbortSignal.timeout(HEAD_REFRESH_MS), maxBytes: read.maxBytes, now: read.now }, allowPrivate).finally(() => refreshing.delete(registry));
    refreshing.set(registry, refresh);
  }
  const stale = hit.head;
  return Promise.race([refresh.catch(() => stale), delay(STALE_WAIT_MS).then(() => stale)]);
}

/**
 * Reads a registry's first pages and caches what it read when that is the whole head: the first
 * page, then the rest side by side (by the total the first page gives, or HEAD_PAGES at most when
 * it gives none). A catalogue whose total says it goes on past the head is large at once.
 */
async function readHead(registry: string, { signal, maxBytes, now }: Read, allowPrivate: readonly string[]): Promise<Head> {
  const pageAt = (offset: number) => readRegistryPage(registry, { type: "http", limit: REGISTRY_PAGE_SIZE, offset }, { signal, maxBytes, allowPrivate });
  const cached = (head: Head) => {
    heads.set(registry, { at: now, head });
    return head;
  };
  const first = await pageAt(0);
  const items: DiscoveryResource[] = [...first.items];
  const endsAt = (offset: number, listed: number, total: number | undefined) => listed === 0 || (total !== undefined ? offset >= total : listed < REGISTRY_PAGE_SIZE);
  if (endsAt(first.listed, first.listed, first.total)) return cached({ items, more: false });
  if (first.total !== undefined && first.total > REGISTRY_PAGE_SIZE * HEAD_PAGES) return cached({ items, more: true });
  const pagesLeft = first.total !== undefined ? Math.ceil((first.total - first.listed) / REGISTRY_PAGE_SIZE) : HEAD_PAGES - 1;
  const rest = await Promise.allSettled(Array.from({ length: Math.min(pagesLeft, HEAD_PAGES - 1) }, (_, index) => pageAt(first.listed + index * REGISTRY_PAGE_SIZE)));
  let offset = first.listed;
  for (const page of rest) {
    // A later page that fails leaves the earlier ones usable, but not cached as the whole list.
    if (page.status === "rejected") return { items, more: false };
    offset += page.value.listed;
    items.push(...page.value.items);
    if (endsAt(offset, page.value.listed, page.value.total ?? first.total)) return cached({ items, more: false });
  }
  return cached({ items, more: true });
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref?.());

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

/** Why a registry added nothing: slow (the deadline passed) or failing, never "it lists nothing". */
function unansweredNote(registry: string, timedOut: boolean, timeoutMs: number): string {
  const host = hostOf(registry);
  return timedOut
    ? `The registry at ${host} is slow: it did not answer within ${Math.round(timeoutMs / 1_000)} s, so the services it lists could not be searched (that is not the same as there being none); ask again in a moment.`
    : `The registry at ${host} could not be read just now, so the services it lists could not be searched (that is not the same as there being none); ask again in a moment.`;
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
  refreshing.clear();
  large.clear();
  withoutSearch.clear();
  clearIndexes();
}
