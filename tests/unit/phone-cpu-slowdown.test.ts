// The bench's phone: Lighthouse's 4× CPU slowdown is meant for a desktop of benchmark index up to
// 2,000; a faster host is slowed more, so the same page scores the same on a faster machine.
import { describe, expect, it } from "vitest";
import { LIGHTHOUSE_HOST_INDEX, phoneCpuSlowdown } from "@/bench/process-cpu";

describe("phoneCpuSlowdown", () => {
  it("keeps Lighthouse's 4× on the desktops it is meant for, and on slower hosts", () => {
    expect(phoneCpuSlowdown(LIGHTHOUSE_HOST_INDEX)).toBe(4);
    expect(phoneCpuSlowdown(1500)).toBe(4);
    expect(phoneCpuSlowdown(900)).toBe(4);
  });

  it("slows a faster host in proportion to its speed, to a tenth", () => {
    expect(phoneCpuSlowdown(4000)).toBe(8);
    expect(phoneCpuSlowdown(4165)).toBe(8.3);
    // The phone it makes is the one Lighthouse's 4× makes of a 2,000 host.
    expect(4165 / phoneCpuSlowdown(4165)).toBeCloseTo(LIGHTHOUSE_HOST_INDEX / 4, -1);
  });

  it("falls back to Lighthouse's 4× when the host's index is unknown", () => {
    expect(phoneCpuSlowdown(Number.NaN)).toBe(4);
    expect(phoneCpuSlowdown(Number.NEGATIVE_INFINITY)).toBe(4);
  });
});
