/**
 * Currency conversion from a fixed local rate table, in bigint arithmetic: rates are micro-units
 * per US dollar and amounts are parsed from decimal strings, so no float touches the money.
 */
import { formatUnits, parseUnits } from "../units";
import { latencyTag, requiredParam, ServiceInputError, type ServiceDefinition } from "./definition";

const AMOUNT_DECIMALS = 6;
/** Units of each currency per 1 USD, scaled by 10^6. */
const PER_USD: Record<string, bigint> = {
  USD: 1_000_000n,
  EUR: 921_500n,
  GBP: 787_300n,
  JPY: 151_420_000n,
  CHF: 881_200n,
  CAD: 1_365_800n,
  AUD: 1_512_300n,
  BRL: 5_041_000n,
  INR: 83_310_000n,
};
export const CURRENCIES = Object.keys(PER_USD);

export const currencyConvert: ServiceDefinition = {
  name: "currency-convert",
  serviceName: "FX Converter",
  description: `Converts an amount between currencies (${CURRENCIES.join(", ")}) at today's reference rates.`,
  method: "GET",
  path: "/convert",
  price: 1_000n, // 0.001 USDC
  latencyMs: 100,
  tags: ["currency", "fx", "conversion", latencyTag(100)],
  rails: ["evm", "solana"],
  discovery: {
    input: { from: "USD", to: "EUR", amount: "100" },
    inputSchema: {
      properties: {
        from: { type: "string", enum: CURRENCIES },
        to: { type: "string", enum: CURRENCIES },
        amount: { type: "string", pattern: "^[0-9]+(\\.[0-9]{1,6})?$", description: "Decimal amount" },
      },
      required: ["from", "to", "amount"],
    },
    output: {
      example: { from: "USD", to: "EUR", amount: "100", converted: "92.15", rate: "0.9215" },
      schema: {
        properties: {
          from: { type: "string" },
          to: { type: "string" },
          amount: { type: "string" },
          converted: { type: "string" },
          rate: { type: "string" },
        },
        required: ["from", "to", "amount", "converted", "rate"],
      },
    },
  },
  async handle({ query }) {
    const from = requiredParam(query, "from").toUpperCase();
    const to = requiredParam(query, "to").toUpperCase();
    const amountText = requiredParam(query, "amount");
    const fromRate = PER_USD[from];
    const toRate = PER_USD[to];
    if (fromRate === undefined || toRate === undefined) {
      throw new ServiceInputError(`unknown currency; known: ${CURRENCIES.join(", ")}`);
    }
    const amount = parseUnits(amountText, AMOUNT_DECIMALS);
    if (amount === undefined) throw new ServiceInputError(`amount "${amountText}" is not a decimal number`);
    const converted = (amount * toRate) / fromRate;
    const rate = (10n ** BigInt(AMOUNT_DECIMALS) * toRate) / fromRate;
    return {
      from,
      to,
      amount: formatUnits(amount, AMOUNT_DECIMALS),
      converted: formatUnits(converted, AMOUNT_DECIMALS),
      rate: formatUnits(rate, AMOUNT_DECIMALS),
    };
  },
};
