// What a service declares it takes (its 402's Bazaar extension) is checked before a quote: a
// required field missing, or a value outside the values it lists, is said in a person's words. A
// service that refuses a call outright is said in its own terms: its OpenAPI document's
// parameters, else the message of its answer.
import { declareDiscoveryExtension } from "@x402/extensions/bazaar";
import type { PaymentRequired } from "@x402/core/types";
import { describe, expect, test } from "vitest";
import { listingInput, serviceInputProblem, serviceRefusalProblem } from "@/lib/x402/service-input";

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
    expect(serviceInputProblem(weather, get("?city=Porto"), "Weather")).toBe('Weather has nothing for city "Porto": it takes Lisbon, São Paulo or Tokyo.');
  });

  test("a required field missing is named", () => {
    expect(serviceInputProblem(weather, get(""), "Weather")).toBe('Weather needs "city", which the request does not give: it takes Lisbon, São Paulo or Tokyo.');
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
    expect(serviceInputProblem(translate, post({ text: "hi", to: "de" }), "Translate")).toBe('Translate has nothing for to "de": it takes es or fr.');
  });

  test("a service that declares nothing is taken at its word", () => {
    expect(serviceInputProblem(required(undefined), get("?anything=1"), "Plain")).toBeUndefined();
  });
});

describe("a service's refusal of a call", () => {
  // Maxim Machine's OpenAPI parameter, as MPP discovery keeps it (lib/mpp/discovery.ts).
  const maxim = listingInput({ topic: { type: "string", description: "What the quotation is about", enum: ["money", "time", "work", "patience"], required: true } });
  const quote = (query: string) => ({ url: `https://maxim.example/maxim${query}`, method: "GET" as const });
  const answer = { error: 'no quotation on "love"; known: money, time, work, patience' };

  test("is said by what its document declares, naming the service and the values it takes", () => {
    expect(serviceRefusalProblem({ answer, call: quote("?topic=love"), serviceName: "Maxim Machine", declared: maxim })).toBe(
      'Maxim Machine has nothing for topic "love": it takes money, time, work or patience.',
    );
    expect(serviceRefusalProblem({ answer, call: quote(""), serviceName: "Maxim Machine", declared: maxim })).toBe(
      'Maxim Machine needs "topic", which the request does not give: it takes money, time, work or patience.',
    );
  });

  test("without a declaration that explains it, is the message of its own answer, quoted", () => {
    expect(serviceRefusalProblem({ answer, call: quote("?topic=love"), serviceName: "Maxim Machine" })).toBe(
      'Maxim Machine refused the request, saying: "no quotation on "love"; known: money, time, work, patience".',
    );
    expect(serviceRefusalProblem({ answer: { error: { message: "Unknown symbol DOGE." } }, call: quote(""), serviceName: "Prices" })).toBe(
      'Prices refused the request, saying: "Unknown symbol DOGE".',
    );
    expect(serviceRefusalProblem({ answer: "city\u0000 is required\n", call: quote(""), serviceName: "Weather" })).toBe('Weather refused the request, saying: "city is required".');
  });

  test("says nothing when neither the declaration nor the answer does: an HTML page, an empty body", () => {
    expect(serviceRefusalProblem({ answer: "<html><body>Bad Request</body></html>", call: quote(""), serviceName: "Shop" })).toBeUndefined();
    expect(serviceRefusalProblem({ answer: "", call: quote(""), serviceName: "Shop" })).toBeUndefined();
    expect(serviceRefusalProblem({ answer: { ok: false }, call: quote(""), serviceName: "Shop" })).toBeUndefined();
  });

  test("names at most twelve values", () => {
    const many = listingInput({ code: { enum: Array.from({ length: 20 }, (_, index) => `c${index}`), required: true } });
    expect(serviceRefusalProblem({ answer: {}, call: quote("?code=zz"), serviceName: "Codes", declared: many })).toBe(
      'Codes has nothing for code "zz": it takes c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11 and others.',
    );
  });
});
