// The whole catalogue of a registry too large to read on a person's request (more than the
// first pages discovery reads), read page by page in the background into a bounded local index:
// at most INDEX_MAX_LISTINGS listings, each already bounded in what it says (lib/x402/listings.ts),
// found by word through an inverted index. A read is bounded in pages and in time, so a registry
// that lies about its size, repeats itself or never ends stops the read, not the product; a read
// that fails keeps the last good index. Refreshed every INDEX_REFRESH_MS, only when asked for.
import { listingKey, listingWords, matchesTerms, queryWords, wordForms, type DiscoveryEnv, type ServiceFilter, type ServiceListing } from "@/lib/discovery/listings";
import { listingsOf } from "./listings";
import { readRegistryPage, REGISTRY_PAGE_SIZE } from "./registry";
import { processState } from "@/lib/process-state";

/** The most listings one registry's index holds. */
export const INDEX_MAX_LISTINGS = 30_000;
/** An index older than this is read again (in the background) when next asked for. */
export const INDEX_REFRESH_MS = 10 * 60_000;
/** The most pages one read asks for: enough for INDEX_MAX_LISTINGS with room for unpayable listings. */
const INDEX_MAX_PAGES = (INDEX_MAX_LISTINGS / REGISTRY_PAGE_SIZE) * 2;
const INDEX_PAGE_TIMEOUT_MS = 10_000;
/** One whole read ends within this, however far it got. */
const INDEX_READ_MS = 3 * 60_000;
/** After a read that failed, the next one waits this long. */
const INDEX_RETRY_MS = 60_000;

class CatalogueIndex {
  readonly listings: ServiceListing[] = [];
  private readonly keys = new Set<string>();
  private readonly byWord = new Map<string, number[]>();

  get size(): number {
    return this.listings.length;
  }

  add(listing: ServiceListing): void {
    const key = listingKey(listing);
    if (this.keys.has(key) || this.listings.length >= INDEX_MAX_LISTINGS) return;
    this.keys.add(key);
    const position = this.listings.push(listing) - 1;
    for (const word of listingWords(listing)) {
      const positions = this.byWord.get(word);
      if (positions) positions.push(position);
      else this.byWord.set(word, [position]);
    }
  }

  /** The listings matching every word of the query (any of its forms), network and price. */
  find(filter: ServiceFilter): ServiceListing[] {
    const words = queryWords(filter.query);
    let positions: Set<number> | undefined;
    for (const word of words) {
      const matching = new Set(wordForms(word).flatMap((form) => this.byWord.get(form) ?? []));
      positions = positions ? new Set([...positions].filter((position) => matching.has(position))) : matching;
      if (positions.size === 0) return [];
    }
    const candidates = positions ? [...positions].sort((a, b) => a - b).map((position) => this.listings[position] as ServiceListing) : this.listings;
    return candidates.filter((listing) => matchesTerms(listing, filter));
  }
}

type Reading = { index: CatalogueIndex; total: number | undefined; done: Promise<void> };

/** How a read ended: at the catalogue's end, at the index's bound, or cut short (a failure, the time bound). */
export type ReadEnd = "complete" | "capped" | "cut";

type Entry = {
  /** The last finished read (to its end, or as far as it got when nothing better was there). */
  ready?: { index: CatalogueIndex; at: number; end: ReadEnd; total: number | undefined };
  reading?: Reading;
  failedAt?: number;
};

// One per process (lib/process-state.ts): the server's start begins the reads from its own bundle.
const entries = processState("registry-index", () => new Map<string, Entry>());

const entryKey = (registry: string, env: DiscoveryEnv) => `${registry}\n${env.X402_NETWORKS.join(",")}`;

/** What a registry's index holds, for the person to be told when it is not all of the catalogue. */
export type IndexState = { listings: number; end: ReadEnd | undefined; reading: boolean; total: number | undefined };

/**
 * Starts reading the registry's catalogue unless a fresh index exists, a read is under way, or
 * the last one failed within INDEX_RETRY_MS. Never waits for the read.
 */
export function refreshIndex(registry: string, env: DiscoveryEnv, now = Date.now()): void {
  const key = entryKey(registry, env);
  const entry = entries.get(key) ?? {};
  entries.set(key, entry);
  if (entry.reading) return;
  if (entry.ready && now - entry.ready.at < INDEX_REFRESH_MS) return;
  if (entry.failedAt !== undefined && now - entry.failedAt < INDEX_RETRY_MS) return;
  const reading: Reading = { index: new CatalogueIndex(), total: undefined, done: Promise.resolve() };
  entry.reading = reading;
  reading.done = readCatalogue(registry, env, reading).then(
    (end) => {
      if (entries.get(key) !== entry) return;
      // A read cut short replaces the last index only when it found more.
      if (end !== "cut" || !entry.ready || reading.index.size > entry.ready.index.size) {
        entry.ready = { index: reading.index, at: Date.now(), end, total: reading.total };
      }
      if (end === "cut") entry.failedAt = Date.now();
      entry.reading = undefined;
    },
    () => {
      if (entries.get(key) !== entry) return;
      entry.failedAt = Date.now();
      entry.reading = undefined;
    },
  );
}

/** Waits, at most until `signal` aborts, for a registry's first read when it has no index yet. */
export async function firstReadOf(registry: string, env: DiscoveryEnv, signal: AbortSignal): Promise<void> {
  const entry = entries.get(entryKey(registry, env));
  if (!entry?.reading || entry.ready || signal.aborted) return;
  await new Promise<void>((resolve) => {
    signal.addEventListener("abort", () => resolve(), { once: true });
    entry.reading?.done.then(resolve, resolve);
  });
}

/** The registry's indexed listings matching `filter`: from the last finished read, or the first one under way. */
export function findInIndex(registry: string, env: DiscoveryEnv, filter: ServiceFilter): { listings: ServiceListing[]; state: IndexState | undefined } {
  const entry = entries.get(entryKey(registry, env));
  const source = entry?.ready ?? (entry?.reading ? { index: entry.reading.index, end: undefined, total: entry.reading.total } : undefined);
  if (!entry || !source) return { listings: [], state: undefined };
  return {
    listings: source.index.find(filter),
    state: { listings: source.index.size, end: source.end, reading: entry.reading !== undefined, total: source.total },
  };
}

/** Forgets every index (tests). */
export function clearIndexes(): void {
  entries.clear();
}

/** Reads the catalogue into `reading.index`, and says how the read ended. */
async function readCatalogue(registry: string, env: DiscoveryEnv, reading: Reading): Promise<ReadEnd> {
  const stopAt = Date.now() + INDEX_READ_MS;
  let offset = 0;
  for (let pages = 0; pages < INDEX_MAX_PAGES; pages += 1) {
    if (reading.index.size >= INDEX_MAX_LISTINGS) return "capped";
    if (Date.now() > stopAt) return "cut";
    const page = await readPageWithRetry(registry, env, offset);
    if (!page) return "cut";
    if (page.total !== undefined) reading.total = page.total;
    for (const item of page.items) for (const listing of listingsOf(item, registry, env)) reading.index.add(listing);
    offset += page.listed;
    if (page.listed === 0) return "complete";
    if (page.total !== undefined ? offset >= page.total : page.listed < REGISTRY_PAGE_SIZE) return "complete";
  }
  // As many pages as the index could need, and more listings still coming: the rest is not read.
  return "capped";
}

async function readPageWithRetry(registry: string, env: DiscoveryEnv, offset: number) {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      return await readRegistryPage(
        registry,
        { type: "http", limit: REGISTRY_PAGE_SIZE, offset },
        { signal: AbortSignal.timeout(INDEX_PAGE_TIMEOUT_MS), allowPrivate: env.X402_ALLOW_PRIVATE_ADDRESSES },
      );
    } catch {
      if (attempt === 0) await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
  return undefined;
}
