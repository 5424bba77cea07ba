// Medians with their range, and ratios between them: every figure the bench reports is one of these.

export type Spread = { median: number; min: number; max: number; n: number };

export function spread(values: readonly number[]): Spread {
  if (values.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, n: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
  return { median, min: sorted[0] as number, max: sorted.at(-1) as number, n: sorted.length };
}

/** The ratio of two medians. */
export const ratio = (numerator: Spread, denominator: Spread): number => numerator.median / denominator.median;

export const round = (value: number, digits = 2): number => {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
};
