// How a query finds services (lib/x402/listings.ts filterServices): by whole words of the
// listing, singular or plural, so "headlines" finds the news service and never a weather service
// whose city list says "New York". How a registry's quality signals are read and rank them, and
// how a broad search's answers are ranked by the person's words before their price.
import { describe, expect, test } from "vitest";
import { parseServerEnv } from "@/lib/env";
import { discoveryEnvOf } from "@/lib/tools/discovery-env";
import { filterServices, hasTrackRecord, rankServices, type ServiceListing } from "@/lib/discovery/listings";
import { listingsOf } from "@/lib/x402/listings";

const listing = (name: string, description: string, tags: string[], url: string): ServiceListing => ({
  protocol: "x402",
  name,
  url,
  method: "GET",
  description,
  tags,
  network: "eip155:84532",
  amount: 1_000n,
  priceUsd: "0.001",
  asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
  payTo: "0x0000000000000000000000000000000000000001",
  latencyMs: undefined,
  input: undefined,
  registry: "https://registry.example",
});

const weather = listing("Budget Weather", "Current weather for a city. Cities: Lisbon, New York, Tokyo.", ["weather", "forecast"], "https://w.example/weather");
const news = listing("Daily Wire Headlines", "Latest news headlines by topic.", ["news", "headlines"], "https://n.example/headlines");
const fx = listing("FX Converter", "Converts an amount between currencies.", ["currency", "fx"], "https://fx.example/convert");
const names = (query: string) => filterServices([weather, news, fx], { query }).map((service) => service.name);

describe("finding services by words", () => {
  test("a word matches whole words only: 'news' is not the 'New' of New York", () => {
    expect(names("news")).toEqual(["Daily Wire Headlines"]);
    expect(names("new")).toEqual(["Budget Weather"]);
  });

  test("singular and plural forms find each other", () => {
    expect(names("headline")).toEqual(["Daily Wire Headlines"]);
    expect(names("currency conversion")).toEqual([]);
    expect(names("currencies")).toEqual(["FX Converter"]);
    expect(names("forecasts")).toEqual(["Budget Weather"]);
  });

  test("every word of the query must be found", () => {
    expect(names("weather tokyo")).toEqual(["Budget Weather"]);
    expect(names("weather headlines")).toEqual([]);
  });
});

describe("a registry's quality signals", () => {
  const item = (name: string, amount: string, quality: unknown) => ({
    resource: `https://${name}.example/api`,
    type: "http",
    x402Version: 2,
    lastUpdated: "2026-01-01T00:00:00.000Z",
    serviceName: name,
    accepts: [{ scheme: "exact", network: "eip155:84532", amount, asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", payTo: "0x0000000000000000000000000000000000000001", maxTimeoutSeconds: 60, extra: { name: "USDC", version: "2" } }],
    quality,
  });
  const env = discoveryEnvOf(parseServerEnv({ X402_NETWORKS: "eip155:84532" }));
  const read = (entry: ReturnType<typeof item>) => listingsOf(entry as never, "https://registry.example", env)[0];

  test("are read as the registry reports them, and what is not a count or a date is left out", () => {
    expect(read(item("used", "1000", { l30DaysTotalCalls: 120, l30DaysUniquePayers: 40, lastCalledAt: "2026-11-20T10:00:00Z" }))?.quality).toEqual({
      calls30d: 120,
      payers30d: 40,
      lastCalledAt: "2026-11-20T10:00:00.000Z",
    });
    expect(read(item("odd", "1000", { l30DaysTotalCalls: -3, l30DaysUniquePayers: "many", lastCalledAt: "yesterday" }))?.quality).toBeUndefined();
    expect(read(item("none", "1000", undefined))?.quality).toBeUndefined();
  });

  test("at one price, the service more people paid ranks first; a lower price still wins", () => {
    const quiet = read(item("quiet", "1000", { l30DaysTotalCalls: 0, l30DaysUniquePayers: 0 }));
    const busy = read(item("busy", "1000", { l30DaysTotalCalls: 900, l30DaysUniquePayers: 300 }));
    const cheap = read(item("cheap", "900", { l30DaysTotalCalls: 0, l30DaysUniquePayers: 0 }));
    if (!quiet || !busy || !cheap) throw new Error("fixture");
    expect(rankServices([quiet, busy], { priority: "cost" }).map((listing) => listing.name)).toEqual(["busy", "quiet"]);
    expect(rankServices([quiet, busy, cheap], { priority: "cost" }).map((listing) => listing.name)).toEqual(["cheap", "busy", "quiet"]);
    expect([hasTrackRecord(cheap), hasTrackRecord(busy), hasTrackRecord(weather)]).toEqual([false, true, undefined]);
  });
});

describe("ranking a broad search's answers", () => {
  const priced = (name: string, description: string, amount: bigint) => ({ ...listing(name, description, [], `https://${name.toLowerCase().replace(/\W+/g, "")}.example/`), amount, priceUsd: (Number(amount) / 1e6).toString() });

  test("the service a person names exactly is listed first, even as the dearest of 53 answers", () => {
    const answers = [
      ...Array.from({ length: 52 }, (_, index) => priced(`Metered Thing ${index}`, "Usage-priced text tools", BigInt(1_000 + index))),
      priced("Usage Priced Summaries", "Summaries of a text, charged by length", 20_000n),
    ];
    const ranked = rankServices(answers, { priority: "cost", query: "Usage Priced Summaries" });
    expect(ranked[0]?.name).toBe("Usage Priced Summaries");
    // Without the words, price alone: it is last.
    expect(rankServices(answers, { priority: "cost" }).at(-1)?.name).toBe("Usage Priced Summaries");
  });

  test("a name that holds the words ranks above a description that does; among equals, the cheaper first", () => {
    const inName = priced("Weather Now", "Current conditions", 3_000n);
    const alsoInName = priced("Budget Weather", "Current conditions", 1_000n);
    const inDescription = priced("City Facts", "Population, weather and time of a city", 500n);
    const ranked = rankServices([inDescription, inName, alsoInName], { priority: "cost", query: "weather" });
    expect(ranked.map((one) => one.name)).toEqual(["Budget Weather", "Weather Now", "City Facts"]);
  });
});
