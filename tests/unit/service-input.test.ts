// What a service declares it takes (its 402's Bazaar extension) is checked before a quote: a
// required field missing, or a value outside the values it lists, is said in a person's words.
import { declareDiscoveryExtension } from "@x402/extensions/bazaar";
import type { PaymentRequired } from "@x402/core/types";
import { describe, expect, test } from "vitest";
import { serviceInputProblem } from "@/lib/x402/service-input";

const required = (extensions: Record<string, unknown> | undefined): PaymentRequired => ({
  x402Version: 2,
  resource: { url: "https://weather.example/now" },
  accepts: [],
  ...(extensions ? { extensions } : {}),
});

const weather = required(
  declareDiscoveryExtension({
    input: { city: "Lisbon" },
    inputSchema: { properties: { city: { type: "string", enum: ["Lisbon", "São Paulo", "Tokyo"] } }, required: ["city"] },
  } as never),
);
const get = (query: string) => ({ url: `https://weather.example/now${query}`, method: "GET" as const });

describe("a service's declared input", () => {
  test("a value it lists passes, whatever its case and accents; one it does not is named with the values it takes", () => {
    expect(serviceInputProblem(weather, get("?city=tokyo"), "Weather")).toBeUndefined();
    expect(serviceInputProblem(weather, get("?city=Sao%20Paulo"), "Weather")).toBeUndefined();
    expect(serviceInputProblem(weather, get("?city=Porto"), "Weather")).toBe('Weather takes city as one of Lisbon, São Paulo, Tokyo; not "Porto".');
  });

  test("a required field missing is named", () => {
    expect(serviceInputProblem(weather, get(""), "Weather")).toBe('Weather needs "city", which the request does not give.');
  });

  test("a POST body is checked against the body's declaration", () => {
    const translate = required(
      declareDiscoveryExtension({
        bodyType: "json",
        input: { text: "hi", to: "es" },
        inputSchema: { properties: { text: { type: "string" }, to: { type: "string", enum: ["es", "fr"] } }, required: ["text", "to"] },
      } as never),
    );
    const post = (body: unknown) => ({ url: "https://t.example/translate", method: "POST" as const, body });
    expect(serviceInputProblem(translate, post({ text: "hi", to: "fr" }), "Translate")).toBeUndefined();
    expect(serviceInputProblem(translate, post({ text: "hi", to: "de" }), "Translate")).toBe('Translate takes to as one of es, fr; not "de".');
  });

  test("a service that declares nothing is taken at its word", () => {
    expect(serviceInputProblem(required(undefined), get("?anything=1"), "Plain")).toBeUndefined();
  });
});
