import { describe, expect, test } from "vitest";
import { describeUpTo, dollarsOf, formatDollars, formatUnits, formatUsd, parseUsd } from "@/lib/money";

describe("money", () => {
  test("parses decimal strings and JSON numbers into exact micro-dollars", () => {
    expect(parseUsd("1")).toBe(1_000_000n);
    expect(parseUsd("0.000001")).toBe(1n);
    expect(parseUsd(0.1)).toBe(100_000n);
    expect(parseUsd(0.3)).toBe(300_000n);
    expect(parseUsd("1000000")).toBe(1_000_000_000_000n);
  });

  test("refuses what is not a plain non-negative amount with at most 6 decimals", () => {
    for (const bad of ["-1", "1.0000001", "1e3", "", "abc", " ", "1,5", "0x10"]) expect(parseUsd(bad)).toBeUndefined();
    for (const bad of [-0.5, Number.NaN, Number.POSITIVE_INFINITY, 1e-7, 0.1234567]) expect(parseUsd(bad)).toBeUndefined();
  });

  test("formats atomic units without float error", () => {
    expect(formatUsd(1_500_000n)).toBe("1.5");
    expect(formatUsd(1n)).toBe("0.000001");
    expect(formatUsd(0n)).toBe("0");
    expect(formatUnits(123_456_789_000_000_000_000n, 18)).toBe("123.456789");
    expect(formatUsd((parseUsd("0.1") ?? 0n) + (parseUsd("0.2") ?? 0n))).toBe("0.3");
  });

  test("a person reads every amount one way: a dollar sign and at least two decimals, all the decimals it has beyond", () => {
    expect(formatDollars(1_000_000n)).toBe("$1.00");
    expect(formatDollars(500_000n)).toBe("$0.50");
    expect(formatDollars(0n)).toBe("$0.00");
    expect(formatDollars(2_000n)).toBe("$0.002");
    expect(formatDollars(800n)).toBe("$0.0008");
    expect(formatDollars(1_234_567_000_000n)).toBe("$1234567.00");
    expect(dollarsOf("5")).toBe("$5.00");
    expect(dollarsOf("0.5")).toBe("$0.50");
    expect(dollarsOf("0.000405")).toBe("$0.000405");
    expect(dollarsOf("free")).toBe("free");
    expect(describeUpTo(20_000n, undefined)).toBe("up to $0.02");
    expect(describeUpTo(1_000_000n, 500_000n)).toBe("up to $1.00, charged $0.50");
  });
});
