/**
 * Stock ticks paid per call from a deposit: an x402 `batch-settlement` channel service, the kind a
 * client calls many times in a row. 0.001 USDC a call; its 402 suggests a 0.05 USDC deposit
 * (fifty calls). It claims its payers' vouchers every three paid calls and sweeps them to its
 * payee, and answers a payer's cooperative refund; it also takes `exact` at the same price, for a
 * payer without channels. A tick is deterministic from the symbol and the current minute, so two
 * calls in the same minute agree and tests can predict them.
 */
import { formatUnits } from "../units";
import { latencyTag, requiredParam, ServiceInputError, type ServiceDefinition } from "./definition";

const PRICE_DECIMALS = 6;
const STOCKS: Record<string, { name: string; reference: bigint }> = {
  AAPL: { name: "Apple Inc.", reference: 190_000_000n },
  MSFT: { name: "Microsoft Corporation", reference: 420_000_000n },
  NVDA: { name: "NVIDIA Corporation", reference: 120_000_000n },
  TSLA: { name: "Tesla, Inc.", reference: 250_000_000n },
  SPY: { name: "SPDR S&P 500 ETF Trust", reference: 550_000_000n },
};
export const STOCK_SYMBOLS = Object.keys(STOCKS);

/** Small stable hash, so a tick depends only on its inputs. */
function hash(text: string): number {
  let value = 2166136261;
  for (const char of text) value = Math.imul(value ^ char.charCodeAt(0), 16777619) >>> 0;
  return value;
}

/** The tick of `symbol` in the minute of `at`: within 1% of its reference price. */
export function stockTick(symbol: string, at: Date) {
  const stock = STOCKS[symbol];
  if (!stock) throw new ServiceInputError(`unknown symbol "${symbol}"; known: ${STOCK_SYMBOLS.join(", ")}`);
  const minute = at.toISOString().slice(0, 16);
  const basisPoints = BigInt((hash(`${symbol}|${minute}`) % 201) - 100); // -100..100: ±1%
  const price = stock.reference + (stock.reference * basisPoints) / 10_000n;
  return { symbol, name: stock.name, price: formatUnits(price, PRICE_DECIMALS), currency: "USD", at: `${minute}:00Z` };
}

export const marketTicks: ServiceDefinition = {
  name: "market-ticks",
  serviceName: "TickStream",
  description:
    `The latest price of a stock or fund (${STOCK_SYMBOLS.join(", ")}), a new tick each minute. ` +
    "Paid per call from a deposit, whatever is unused coming back (an x402 batch-settlement channel); also payable per call.",
  method: "GET",
  path: "/tick",
  price: 1_000n, // 0.001 USDC a call
  channel: { deposit: 50_000n, claimEvery: 3, refunds: true, alsoExact: true },
  latencyMs: 100,
  tags: ["stocks", "market-data", "channel", latencyTag(100)],
  discovery: {
    input: { symbol: "AAPL" },
    inputSchema: { properties: { symbol: { type: "string", description: "Ticker symbol", enum: STOCK_SYMBOLS } }, required: ["symbol"] },
    output: {
      example: { symbol: "AAPL", name: "Apple Inc.", price: "190.57", currency: "USD", at: "2026-01-01T15:04:00Z" },
      schema: {
        properties: { symbol: { type: "string" }, name: { type: "string" }, price: { type: "string" }, currency: { type: "string" }, at: { type: "string", format: "date-time" } },
        required: ["symbol", "price", "currency", "at"],
      },
    },
  },
  async handle({ query }) {
    return stockTick(requiredParam(query, "symbol").toUpperCase(), new Date());
  },
};
