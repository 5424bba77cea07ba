/**
 * Two weather services over one local table: an express one (fast, dearer, and signing its
 * offers and receipts) and a budget one (cheap, deliberately slow). Readings are deterministic
 * from the city and the current hour, so two calls in the same hour agree and tests can predict them.
 */
import { formatLatency, latencyTag, requiredParam, ServiceInputError, type ServiceDefinition } from "./definition";

type City = { name: string; country: string; meanC: number; swingC: number; humidity: number; climate: readonly string[] };

const CITIES: readonly City[] = [
  { name: "Lisbon", country: "PT", meanC: 18, swingC: 6, humidity: 70, climate: ["sunny", "partly cloudy", "clear"] },
  { name: "London", country: "GB", meanC: 12, swingC: 5, humidity: 80, climate: ["overcast", "light rain", "drizzle", "partly cloudy"] },
  { name: "Paris", country: "FR", meanC: 13, swingC: 6, humidity: 75, climate: ["partly cloudy", "overcast", "light rain", "sunny"] },
  { name: "Berlin", country: "DE", meanC: 10, swingC: 7, humidity: 72, climate: ["overcast", "light rain", "clear", "partly cloudy"] },
  { name: "New York", country: "US", meanC: 13, swingC: 8, humidity: 65, climate: ["sunny", "partly cloudy", "thunderstorms", "clear"] },
  { name: "San Francisco", country: "US", meanC: 15, swingC: 4, humidity: 78, climate: ["fog", "partly cloudy", "sunny"] },
  { name: "Tokyo", country: "JP", meanC: 16, swingC: 6, humidity: 68, climate: ["clear", "light rain", "partly cloudy"] },
  { name: "Singapore", country: "SG", meanC: 28, swingC: 3, humidity: 84, climate: ["thunderstorms", "humid and sunny", "heavy rain"] },
  { name: "Sydney", country: "AU", meanC: 19, swingC: 5, humidity: 65, climate: ["sunny", "clear", "windy"] },
  { name: "Nairobi", country: "KE", meanC: 19, swingC: 6, humidity: 60, climate: ["sunny", "partly cloudy", "light rain"] },
  { name: "São Paulo", country: "BR", meanC: 20, swingC: 5, humidity: 75, climate: ["partly cloudy", "heavy rain", "sunny"] },
  { name: "Reykjavik", country: "IS", meanC: 5, swingC: 4, humidity: 80, climate: ["snow", "overcast", "windy", "clear"] },
];

export const WEATHER_CITIES = CITIES.map((city) => city.name);

/** Small stable hash, so readings depend only on their inputs. */
function hash(text: string): number {
  let value = 2166136261;
  for (const char of text) value = Math.imul(value ^ char.charCodeAt(0), 16777619) >>> 0;
  return value;
}

function normalise(text: string): string {
  return text.normalize("NFD").replace(/\p{Diacritic}/gu, "").toLowerCase().trim();
}

export function findCity(query: string): City | undefined {
  const wanted = normalise(query);
  return CITIES.find((city) => normalise(city.name) === wanted);
}

export function weatherReading(city: City, at: Date) {
  const hourKey = at.toISOString().slice(0, 13);
  const seed = hash(`${city.name}|${hourKey}`);
  // Warmest mid-afternoon, coolest before dawn (UTC is close enough for a sandbox).
  const dayPhase = Math.cos(((at.getUTCHours() - 15) / 24) * 2 * Math.PI);
  const tenths = Math.round((city.meanC + city.swingC * dayPhase + ((seed % 21) - 10) / 10) * 10);
  const conditions = city.climate[seed % city.climate.length] ?? "clear";
  const windKph = 5 + (seed % 30);
  return {
    city: city.name,
    country: city.country,
    observedAt: `${hourKey}:00:00Z`,
    temperatureC: tenths / 10,
    conditions,
    humidityPercent: Math.min(100, city.humidity + ((seed >> 5) % 15) - 7),
    windKph,
  };
}

const outputExample = {
  city: "Lisbon",
  country: "PT",
  observedAt: "2026-01-01T15:00:00Z",
  temperatureC: 21.4,
  conditions: "sunny",
  humidityPercent: 68,
  windKph: 12,
  provider: "QuickWeather Pro",
};

function weatherService(options: {
  name: string;
  serviceName: string;
  price: bigint;
  latencyMs: number;
  speed: string;
  signsReceipts?: boolean;
  protocol?: ServiceDefinition["protocol"];
}): ServiceDefinition {
  return {
    ...(options.signsReceipts ? { signsReceipts: true } : {}),
    ...(options.protocol ? { protocol: options.protocol } : {}),
    name: options.name,
    serviceName: options.serviceName,
    description:
      `Current weather for a city: temperature, conditions, humidity, wind. ${options.speed} ` +
      `(answers in about ${formatLatency(options.latencyMs)}). Cities: ${WEATHER_CITIES.join(", ")}.`,
    method: "GET",
    path: "/weather",
    price: options.price,
    latencyMs: options.latencyMs,
    tags: ["weather", "forecast", latencyTag(options.latencyMs)],
    discovery: {
      input: { city: "Lisbon" },
      inputSchema: {
        properties: { city: { type: "string", description: "City name, e.g. Lisbon", enum: WEATHER_CITIES } },
        required: ["city"],
      },
      output: {
        example: { ...outputExample, provider: options.serviceName },
        schema: {
          properties: {
            city: { type: "string" },
            country: { type: "string" },
            observedAt: { type: "string", format: "date-time" },
            temperatureC: { type: "number" },
            conditions: { type: "string" },
            humidityPercent: { type: "number" },
            windKph: { type: "number" },
            provider: { type: "string" },
          },
          required: ["city", "temperatureC", "conditions"],
        },
      },
    },
    async handle({ query }) {
      const cityName = requiredParam(query, "city");
      const city = findCity(cityName);
      if (!city) throw new ServiceInputError(`unknown city "${cityName}"; known: ${WEATHER_CITIES.join(", ")}`);
      return { ...weatherReading(city, new Date()), provider: options.serviceName };
    },
  };
}

export const weatherExpress = weatherService({
  name: "weather-express",
  serviceName: "QuickWeather Pro",
  price: 10_000n, // 0.01 USDC
  latencyMs: 150,
  speed: "Fast",
  signsReceipts: true,
});

export const weatherBudget = weatherService({
  name: "weather-budget",
  serviceName: "Budget Weather",
  price: 2_000n, // 0.002 USDC
  latencyMs: 3_000,
  speed: "Cheap but slow",
});

/** The same readings sold over the Machine Payments Protocol (mppx's server), between the two x402 ones in price. */
export const weatherMpp = weatherService({
  name: "weather-mpp",
  serviceName: "Meteo Machine",
  price: 5_000n, // 0.005 USDC
  latencyMs: 400,
  speed: "Paid over MPP",
  protocol: "mpp",
});
