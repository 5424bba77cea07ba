/**
 * Discovery against a registry of 20,000 listings (the sandbox's registry, filled), in this
 * process through lib/x402/discovery.ts as the tools call it: with the registry's search, the
 * first query (cold: the first pages, then the search) and the next ones (warm); without search,
 * the first answer (within the deadline, saying the catalogue is being read), how long the
 * background read of the whole catalogue takes, and queries answered from the index (warm); and
 * the registry with search 300 ms away (each answer that late), cold and warm.
 */
import { performance } from "node:perf_hooks";
import { parseServerEnv } from "@/lib/env";
import { discoveryEnvOf } from "@/lib/tools/discovery-env";
import { clearDiscoveryCache, findServices } from "@/lib/x402/discovery";
import { startRegistry, topicListing } from "@/sandbox/registry";
import { spread, type Spread } from "./stats";

export const DISCOVERY_LISTINGS = 20_000;
const USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const WARM_QUERIES = 20;

export type DiscoveryResult = {
  listings: number;
  search: { coldMs: number; warmMs: Spread; found: boolean };
  index: { firstAnswerMs: number; readMs: number; warmMs: Spread; found: boolean };
  /** The registry with search, each of its answers DISTANT_MS late (a registry across the internet, as the public Bazaar is). */
  distant: { delayMs: number; coldMs: number; warmMs: Spread; found: boolean };
};

/** How far the distant registry is: each of its answers this much late. */
const DISTANT_MS = 300;

const listing = (index: number) => topicListing(index, { asset: USDC, ...(index === 15_000 ? { topic: "zebra stripes" } : {}) });

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await run();
  return { ms: performance.now() - started, value };
}

export async function measureDiscovery(): Promise<DiscoveryResult> {
  const withSearch = await startRegistry({ port: 0 });
  const withoutSearch = await startRegistry({ port: 0, search: false });
  const distant = await startRegistry({ port: 0, delayMs: DISTANT_MS });
  try {
    for (let index = 0; index < DISCOVERY_LISTINGS; index += 1) {
      withSearch.register(listing(index));
      withoutSearch.register(listing(index));
      distant.register(listing(index));
    }
    const envOf = (url: string) => discoveryEnvOf(parseServerEnv({ X402_DISCOVERY_URLS: url, X402_ALLOW_PRIVATE_ADDRESSES: "127.0.0.1", X402_NETWORKS: "eip155:31337", USDC_ADDRESS_31337: USDC }));
    const isZebra = (services: Array<{ name: string }>) => services.some((service) => service.name === "Service 15000");

    clearDiscoveryCache();
    const searchEnv = envOf(withSearch.url);
    const searchCold = await timed(() => findServices(searchEnv, { query: "zebra" }));
    const searchWarm: number[] = [];
    for (let round = 0; round < WARM_QUERIES; round += 1) searchWarm.push((await timed(() => findServices(searchEnv, { query: `topic${round * 7}` }))).ms);

    clearDiscoveryCache();
    const indexEnv = envOf(withoutSearch.url);
    const readStarted = performance.now();
    const first = await timed(() => findServices(indexEnv, { query: "zebra" }));
    let found = isZebra(first.value.services);
    while (!found || (await findServices(indexEnv, { query: "zebra" })).notes.length > 0) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      found = isZebra((await findServices(indexEnv, { query: "zebra" })).services);
      if (performance.now() - readStarted > 300_000) break;
    }
    const readMs = performance.now() - readStarted;
    const indexWarm: number[] = [];
    for (let round = 0; round < WARM_QUERIES; round += 1) indexWarm.push((await timed(() => findServices(indexEnv, { query: `topic${round * 7}` }))).ms);

    clearDiscoveryCache();
    const distantEnv = envOf(distant.url);
    const distantCold = await timed(() => findServices(distantEnv, { query: "zebra" }));
    const distantWarm: number[] = [];
    for (let round = 0; round < WARM_QUERIES / 4; round += 1) distantWarm.push((await timed(() => findServices(distantEnv, { query: `topic${round * 7}` }))).ms);
    clearDiscoveryCache();
    return {
      listings: DISCOVERY_LISTINGS,
      search: { coldMs: searchCold.ms, warmMs: spread(searchWarm), found: isZebra(searchCold.value.services) },
      index: { firstAnswerMs: first.ms, readMs, warmMs: spread(indexWarm), found },
      distant: { delayMs: DISTANT_MS, coldMs: distantCold.ms, warmMs: spread(distantWarm), found: isZebra(distantCold.value.services) },
    };
  } finally {
    await Promise.all([withSearch.close(), withoutSearch.close(), distant.close()]);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  measureDiscovery().then((result) => console.log(JSON.stringify(result, null, 2)));
}
