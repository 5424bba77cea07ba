/**
 * Air quality of a city, a reading that moves with the hour. Served by a server made with
 * `@x402/hono` (deployed.ts). Takes payment on the sandbox's EVM chain and on its Solana.
 */
import { latencyTag, requiredParam, ServiceInputError, type ServiceDefinition } from "./definition";

const CITIES: Record<string, number> = { Lisbon: 28, London: 41, Paris: 45, Berlin: 38, Tokyo: 52, Delhi: 160, "New York": 47 };
const AQI_BY_CITY = new Map(Object.entries(CITIES).map(([name, aqi]) => [name.toLowerCase(), aqi]));

function category(index: number): string {
  if (index <= 50) return "good";
  if (index <= 100) return "moderate";
  if (index <= 150) return "unhealthy for sensitive groups";
  return "unhealthy";
}

export const airQuality: ServiceDefinition = {
  name: "air-quality",
  serviceName: "Clear Air Index",
  description: `Air quality index of a city now (${Object.keys(CITIES).join(", ")}).`,
  method: "GET",
  path: "/air",
  price: 2_500n, // 0.0025 USDC
  latencyMs: 200,
  tags: ["air", "quality", "pollution", latencyTag(200)],
  rails: ["evm", "solana"],
  madeWith: "@x402/hono",
  discovery: {
    input: { city: "Lisbon" },
    inputSchema: { properties: { city: { type: "string", description: "City name", enum: Object.keys(CITIES) } }, required: ["city"] },
    output: {
      example: { city: "Lisbon", aqi: 31, category: "good" },
      schema: { properties: { city: { type: "string" }, aqi: { type: "number" }, category: { type: "string" } }, required: ["city", "aqi", "category"] },
    },
  },
  async handle({ query }) {
    const city = requiredParam(query, "city");
    const base = AQI_BY_CITY.get(city.toLowerCase());
    if (base === undefined) throw new ServiceInputError(`no air quality for "${city}"; known: ${Object.keys(CITIES).join(", ")}`);
    const aqi = base + (new Date().getUTCHours() % 7);
    return { city, aqi, category: category(aqi), observedAt: new Date().toISOString() };
  },
};
