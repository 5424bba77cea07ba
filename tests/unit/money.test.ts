import { describe, expect, test } from "vitest";
import { formatUnits, formatUsd, parseUsd } from "@/lib/money";

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
});
