// How a query finds services (lib/x402/discovery.ts filterServices): by whole words of the
// listing, singular or plural, so "headlines" finds the news service and never a weather service
// whose city list says "New York".
import { describe, expect, test } from "vitest";
import { filterServices, type ServiceListing } from "@/lib/x402/discovery";

const listing = (name: string, description: string, tags: string[], url: string): ServiceListing => ({
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
