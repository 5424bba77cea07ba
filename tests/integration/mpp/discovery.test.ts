// MPP services found by their OpenAPI documents (MPP_SERVICES) and compared with the registries'
// x402 services in one list: the sandbox's two mppx services beside its x402 ones.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseServerEnv } from "@/lib/env";
import { clearMppDiscoveryCache, listingsOf } from "@/lib/mpp/discovery";
import { comparePrices, discoverServices } from "@/lib/tools/discovery";
import { discoveryEnvOf } from "@/lib/tools/discovery-env";
import { clearDiscoveryCache } from "@/lib/x402/discovery";
import { startSandbox, type Sandbox } from "@/sandbox";
import { sandboxEnv } from "../../helpers/paid-chat";

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true });
});

afterAll(async () => {
  await sandbox?.stop();
});

const envOf = (extra: Record<string, string> = {}) => parseServerEnv({ ...sandboxEnv(sandbox), ...extra });
const service = (name: string) => {
  const found = sandbox.info.services.find((entry) => entry.name === name);
  if (!found) throw new Error(`no sandbox service ${name}`);
  return found;
};

describe("MPP services in discovery", () => {
  it("lists the documents' services beside the registry's, each saying its protocol, with its price, network and input", async () => {
    clearDiscoveryCache();
    clearMppDiscoveryCache();
    const found = await discoverServices(envOf(), {}, {});
    const mpp = found.services.filter((listing) => listing.protocol === "mpp");
    expect(mpp.map((listing) => listing.url).sort()).toEqual(sandbox.info.services.filter((entry) => entry.protocol === "mpp").map((entry) => entry.url).sort());
    const weather = mpp.find((listing) => listing.url === service("weather-mpp").url);
    expect(weather).toMatchObject({
      name: "Meteo Machine",
      method: "GET",
      priceUsd: "0.005",
      network: sandbox.info.network,
      latencyMs: 400,
      input: { city: expect.objectContaining({ type: "string", required: true }) },
    });
    expect(found.services.filter((listing) => listing.protocol === "x402").length).toBeGreaterThan(5);
  });

  it("compares weather across protocols, cheapest first: x402's budget one, MPP's, then x402's express one", async () => {
    clearDiscoveryCache();
    clearMppDiscoveryCache();
    const compared = await comparePrices(envOf(), { priority: "cost" }, { query: "weather" });
    expect(compared.services.map((listing) => [listing.name, listing.protocol, listing.priceUsd])).toEqual([
      ["Budget Weather", "x402", "0.002"],
      ["Meteo Machine", "mpp", "0.005"],
      ["QuickWeather Pro", "x402", "0.01"],
    ]);
    expect(compared.cheapest).toBe("Budget Weather");
  });

  it("lists nothing from a document that is not one, is unreachable, or offers what cannot be paid here", async () => {
    clearDiscoveryCache();
    clearMppDiscoveryCache();
    const env = envOf({ MPP_SERVICES: `${sandbox.info.registryUrl}/openapi.json,http://127.0.0.1:1/openapi.json` });
    const found = await discoverServices(env, {}, {});
    expect(found.services.filter((listing) => listing.protocol === "mpp")).toEqual([]);
    const discoveryEnv = discoveryEnvOf(env);
    const document = await (await fetch(service("weather-mpp").openapiUrl ?? "")).json();
    const offer = document.paths["/weather"].get["x-payment-info"].offers[0];
    // Another currency than the chain's USDC, a Tempo charge: not payable here, so not listed.
    const other = { ...document, paths: { "/weather": { get: { ...document.paths["/weather"].get, "x-payment-info": { offers: [{ ...offer, currency: "0x0000000000000000000000000000000000000001" }, { ...offer, method: "tempo" }] } } } } };
    expect(listingsOf(other, service("weather-mpp").openapiUrl ?? "", discoveryEnv)).toEqual([]);
    // A document speaks for its own origin only: a server elsewhere is not where its operations are called.
    const elsewhere = { ...document, servers: [{ url: "https://example.com" }] };
    expect(listingsOf(elsewhere, service("weather-mpp").openapiUrl ?? "", discoveryEnv).map((listing) => listing.url)).toEqual([service("weather-mpp").url]);
  });
});
