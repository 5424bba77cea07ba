/**
 * A crypto price feed that moves: each symbol follows a random walk from a seed chosen per
 * start, stepping once per elapsed second. Prices are bigint micro-dollars, shown as decimals.
 */
import { formatUnits } from "../units";
import { latencyTag, requiredParam, ServiceInputError, type ServiceDefinition } from "./definition";

const PRICE_DECIMALS = 6;
const STARTING_PRICES: Record<string, bigint> = {
  BTC: 64_250_000_000n,
  ETH: 3_150_000_000n,
  SOL: 145_000_000n,
  DOGE: 120_000n,
  USDC: 1_000_000n,
};
export const CRYPTO_SYMBOLS = Object.keys(STARTING_PRICES);

/** mulberry32: tiny seeded PRNG; deterministic per seed, good enough for a sandbox walk. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function createCryptoPrices(seed: number = Date.now()): ServiceDefinition {
  const random = seededRandom(seed);
  const prices = new Map(Object.entries(STARTING_PRICES));
  const opening = new Map(prices);
  let lastStep = Date.now();

  const advance = () => {
    const steps = Math.min(600, Math.floor((Date.now() - lastStep) / 1000));
    lastStep += steps * 1000;
    for (let i = 0; i < Math.max(1, steps); i++) {
      for (const [symbol, price] of prices) {
        if (symbol === "USDC") continue; // a stablecoin stays put
        const basisPoints = BigInt(Math.floor(random() * 61) - 30); // -0.30% .. +0.30%
        prices.set(symbol, (price * (10_000n + basisPoints)) / 10_000n);
      }
    }
  };

  return {
    name: "crypto-prices",
    serviceName: "CoinTicker",
    description: `Live crypto spot prices in USD (${CRYPTO_SYMBOLS.join(", ")}), with change since the feed opened.`,
    method: "GET",
    path: "/price",
    price: 5_000n, // 0.005 USDC
    latencyMs: 200,
    tags: ["crypto", "prices", "markets", latencyTag(200)],
    discovery: {
      input: { symbol: "BTC" },
      inputSchema: {
        properties: { symbol: { type: "string", description: "Ticker symbol", enum: CRYPTO_SYMBOLS } },
        required: ["symbol"],
      },
      output: {
        example: { symbol: "BTC", priceUsd: "64250.12", changeSinceOpenPercent: "0.41", asOf: "2026-01-01T12:00:00.000Z" },
        schema: {
          properties: {
            symbol: { type: "string" },
            priceUsd: { type: "string", description: "decimal USD" },
            changeSinceOpenPercent: { type: "string" },
            asOf: { type: "string", format: "date-time" },
          },
          required: ["symbol", "priceUsd", "asOf"],
        },
      },
    },
    async handle({ query }) {
      const symbol = requiredParam(query, "symbol").toUpperCase();
      advance();
      const price = prices.get(symbol);
      const open = opening.get(symbol);
      if (price === undefined || open === undefined) {
        throw new ServiceInputError(`unknown symbol "${symbol}"; known: ${CRYPTO_SYMBOLS.join(", ")}`);
      }
      // Percent with two decimals, in integer arithmetic.
      const changeHundredths = ((price - open) * 10_000n) / open;
      return {
        symbol,
        priceUsd: formatUnits(price, PRICE_DECIMALS),
        changeSinceOpenPercent: formatUnits(changeHundredths, 2),
        asOf: new Date().toISOString(),
      };
    },
  };
}
