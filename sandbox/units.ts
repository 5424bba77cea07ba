/**
 * Decimal strings to and from bigint atomic units, for prices and amounts in the sandbox's
 * services. Money never passes through a float.
 */
export function formatUnits(value: bigint, decimals: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

/** Parses "12.34" into atomic units; returns undefined for anything that isn't a plain decimal. */
export function parseUnits(text: string, decimals: number): bigint | undefined {
  const match = /^(\d{1,15})(?:\.(\d+))?$/.exec(text.trim());
  if (!match?.[1]) return undefined;
  const fraction = match[2] ?? "";
  if (fraction.length > decimals) return undefined;
  return BigInt(match[1]) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, "0") || "0");
}
