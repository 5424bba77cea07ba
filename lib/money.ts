// USD and USDC amounts. Money is never a float: amounts are bigint atomic units (micro-dollars,
// which are also USDC's 6 decimals) inside, and decimal strings at the edges.

export const USD_DECIMALS = 6;
/** No money. The page's components and hooks say it with this name: the React Compiler does not
 * compile a function with a bigint literal in it. */
export const ZERO_USD = 0n;
const SCALE = 10n ** BigInt(USD_DECIMALS);

const decimalPattern = /^(\d+)(?:\.(\d{1,6}))?$/;

/** Parses a decimal USD amount ("0.05", "12", or a JSON number such as 0.05) into micro-dollars. */
export function parseUsd(value: string | number): bigint | undefined {
  const text = typeof value === "number" ? numberToDecimal(value) : value.trim();
  if (text === undefined) return undefined;
  const match = decimalPattern.exec(text);
  if (!match) return undefined;
  const whole = match[1] ?? "0";
  const fraction = (match[2] ?? "").padEnd(USD_DECIMALS, "0");
  return BigInt(whole) * SCALE + BigInt(fraction);
}

// A JSON number's shortest round-trip form is the decimal a person typed, e.g. 0.1 -> "0.1".
function numberToDecimal(value: number): string | undefined {
  if (!Number.isFinite(value) || value < 0) return undefined;
  const text = String(value);
  return /e/i.test(text) ? undefined : text;
}

/** Formats atomic units with `decimals` places, trimming trailing zeros: 1500000n -> "1.5". */
export function formatUnits(amount: bigint, decimals: number = USD_DECIMALS): string {
  const negative = amount < 0n;
  const abs = negative ? -amount : amount;
  const scale = 10n ** BigInt(decimals);
  const whole = abs / scale;
  const fraction = (abs % scale).toString().padStart(decimals, "0").replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

export const formatUsd = (micros: bigint): string => formatUnits(micros, USD_DECIMALS);

/**
 * A USD amount as a person reads it, the one way replies, cards and panels write money: a dollar
 * sign and at least two decimals, all the decimals it has beyond that (1000000n -> "$1.00",
 * 500000n -> "$0.50", 4000n -> "$0.004"). `formatUsd` stays the decimal string of data fields.
 */
export function formatDollars(micros: bigint): string {
  const [whole, fraction = ""] = formatUsd(micros < 0n ? -micros : micros).split(".");
  return `${micros < 0n ? "-" : ""}$${whole}.${fraction.padEnd(2, "0")}`;
}

/** A decimal USD string written as `formatDollars` writes it ("1" -> "$1.00"); text that is not an amount is shown as given. */
export function dollarsOf(amount: string): string {
  const micros = parseUsd(amount);
  return micros === undefined ? amount : formatDollars(micros);
}

/**
 * A usage-priced (x402 `upto`) payment's amount in words: "up to $0.02" while its charge is not
 * known, "up to $0.02, charged $0.000405" once the chain shows it.
 */
export function describeUpTo(maximum: bigint, charged: bigint | undefined): string {
  return charged === undefined ? `up to ${formatDollars(maximum)}` : `up to ${formatDollars(maximum)}, charged ${formatDollars(charged)}`;
}
