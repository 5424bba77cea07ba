/**
 * Public holidays of a country this year, from a small local table. Served by a server made with
 * `@x402/express`, as many deployed x402 services are (deployed.ts).
 */
import { latencyTag, requiredParam, ServiceInputError, type ServiceDefinition } from "./definition";

const HOLIDAYS: Record<string, Array<{ date: string; name: string }>> = {
  PT: [
    { date: "01-01", name: "New Year's Day" },
    { date: "04-25", name: "Freedom Day" },
    { date: "06-10", name: "Portugal Day" },
    { date: "12-25", name: "Christmas Day" },
  ],
  US: [
    { date: "01-01", name: "New Year's Day" },
    { date: "07-04", name: "Independence Day" },
    { date: "11-26", name: "Thanksgiving Day" },
    { date: "12-25", name: "Christmas Day" },
  ],
  JP: [
    { date: "01-01", name: "New Year's Day" },
    { date: "05-03", name: "Constitution Memorial Day" },
    { date: "11-03", name: "Culture Day" },
  ],
};
export const HOLIDAY_COUNTRIES = Object.keys(HOLIDAYS);

export const holidays: ServiceDefinition = {
  name: "holidays",
  serviceName: "Holiday Calendar",
  description: `Public holidays of a country this year (${HOLIDAY_COUNTRIES.join(", ")}), by ISO country code.`,
  method: "GET",
  path: "/holidays",
  price: 1_500n, // 0.0015 USDC
  latencyMs: 120,
  tags: ["holidays", "calendar", latencyTag(120)],
  madeWith: "@x402/express",
  discovery: {
    input: { country: "PT" },
    inputSchema: { properties: { country: { type: "string", description: "ISO 3166 country code, e.g. PT", enum: HOLIDAY_COUNTRIES } }, required: ["country"] },
    output: {
      example: { country: "PT", year: 2026, holidays: [{ date: "2026-04-25", name: "Freedom Day" }] },
      schema: { properties: { country: { type: "string" }, year: { type: "number" }, holidays: { type: "array" } }, required: ["country", "year", "holidays"] },
    },
  },
  async handle({ query }) {
    const country = requiredParam(query, "country").toUpperCase();
    const list = HOLIDAYS[country];
    if (!list) throw new ServiceInputError(`no holidays for "${country}"; known: ${HOLIDAY_COUNTRIES.join(", ")}`);
    const year = new Date().getUTCFullYear();
    return { country, year, holidays: list.map((holiday) => ({ date: `${year}-${holiday.date}`, name: holiday.name })) };
  },
};
