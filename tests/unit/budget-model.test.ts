// The budget panel's reading of GET /api/spending and its meters: what is left is counted in
// micro-dollars, a bad or refused answer never breaks the page.
import { describe, expect, it } from "vitest";
import { budgetMeters, periodMeter, readSpendingResponse, type SpendingReport } from "@/components/budget/budget-model";

const report: SpendingReport = {
  wallet: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  periods: [
    { period: "day", spentUsd: "0.004", since: "2026-11-22T09:00:00.000Z" },
    { period: "week", spentUsd: "0.3", since: "2026-11-16T09:00:00.000Z" },
    { period: "month", spentUsd: "25", since: "2026-10-24T09:00:00.000Z" },
  ],
  recent: [
    {
      paymentId: "pay_1",
      service: { name: "QuickWeather Pro", url: "http://127.0.0.1:4021/weather" },
      network: "eip155:84532",
      amountUsd: "0.004",
      txHash: `0x${"ab".repeat(32)}`,
      explorerUrl: `https://sepolia.basescan.org/tx/0x${"ab".repeat(32)}`,
      settledAt: "2026-11-23T08:00:00.000Z",
    },
  ],
};

describe("budget meters", () => {
  it("count what is left exactly, without floating-point dust", () => {
    expect(periodMeter("day", "0.1", "0.3")).toEqual({
      period: "day",
      spentUsd: "0.1",
      limitUsd: "0.3",
      heldUsd: "0",
      leftUsd: "0.2",
      usedPerMille: 333,
      heldPerMille: 0,
      reached: false,
    });
    expect(periodMeter("day", "0.004", "1").leftUsd).toBe("0.996");
  });

  it("leave out of what is left what is held and not settled: a signed maximum the service may still collect", () => {
    // $0.015 held against a daily limit of $0.02 with nothing spent: $0.005 left for a new payment, the fill still at what was spent.
    expect(periodMeter("day", "0", "0.02", "0.015")).toMatchObject({ heldUsd: "0.015", leftUsd: "0.005", usedPerMille: 0, reached: false });
    expect(periodMeter("day", "0.01", "0.02", "0.015")).toMatchObject({ leftUsd: "0", reached: true });
    const meters = budgetMeters([{ period: "day", spentUsd: "0.004", since: "2026-11-22T08:00:00.000Z", heldUsd: "0.5" }], { daily: "1", weekly: "5", monthly: "20" });
    expect(meters[0]).toMatchObject({ heldUsd: "0.5", leftUsd: "0.496" });
  });

  it("draw what is held beside what was spent, so a meter looks as full as what is left says", () => {
    // $0.004 spent and $0.015 held of $0.02: $0.001 left, the bar 20 % spent and 75 % held.
    expect(periodMeter("day", "0.004", "0.02", "0.015")).toMatchObject({ leftUsd: "0.001", usedPerMille: 200, heldPerMille: 750 });
    // Held past the limit: the bar stops at its end.
    expect(periodMeter("day", "0.01", "0.02", "0.015")).toMatchObject({ usedPerMille: 500, heldPerMille: 500 });
    expect(periodMeter("day", "0.03", "0.02", "0.015")).toMatchObject({ usedPerMille: 1000, heldPerMille: 0 });
  });

  it("show a limit lowered below what was spent as full, with nothing left", () => {
    expect(periodMeter("month", "25", "20")).toMatchObject({ leftUsd: "0", usedPerMille: 1000, reached: true });
    expect(periodMeter("day", "0", "0")).toMatchObject({ leftUsd: "0", usedPerMille: 0, reached: true });
    expect(periodMeter("day", "0.01", "0")).toMatchObject({ usedPerMille: 1000, reached: true });
  });

  it("read day, week and month against the daily, weekly and monthly limits; a missing period spent nothing", () => {
    const meters = budgetMeters(report.periods, { daily: "1", weekly: "5", monthly: "20" });
    expect(meters.map((meter) => [meter.period, meter.spentUsd, meter.limitUsd, meter.leftUsd])).toEqual([
      ["day", "0.004", "1", "0.996"],
      ["week", "0.3", "5", "4.7"],
      ["month", "25", "20", "0"],
    ]);
    expect(budgetMeters([], { daily: "1", weekly: "5", monthly: "20" }).map((meter) => meter.spentUsd)).toEqual(["0", "0", "0"]);
  });
});

describe("the spending answer", () => {
  const json = (body: unknown, init?: ResponseInit) =>
    new Response(JSON.stringify(body), { ...init, headers: { "content-type": "application/json", ...init?.headers } });

  it("is used when it is a spending report", async () => {
    expect(await readSpendingResponse(json(report))).toEqual({ kind: "ok", report });
  });

  it("is refused when its shape or amounts are wrong", async () => {
    expect(await readSpendingResponse(json({ ...report, periods: [{ period: "day", spentUsd: 0.1, since: "" }] }))).toEqual({ kind: "failed" });
    expect(await readSpendingResponse(json({ ...report, periods: [{ period: "day", spentUsd: "-1", since: "" }] }))).toEqual({ kind: "failed" });
    expect(await readSpendingResponse(new Response("<html>", { status: 200 }))).toEqual({ kind: "failed" });
  });

  it("says busy on 429, with the server's wait when it gives one, and failed on other errors", async () => {
    expect(await readSpendingResponse(json({ error: { code: "rate-limited" } }, { status: 429, headers: { "retry-after": "7" } }))).toEqual({
      kind: "busy",
      retryAfterSeconds: 7,
    });
    expect(await readSpendingResponse(json({}, { status: 429 }))).toEqual({ kind: "busy" });
    expect(await readSpendingResponse(json({ error: { code: "internal" } }, { status: 500 }))).toEqual({ kind: "failed" });
    expect(await readSpendingResponse(json({ error: { code: "bad-request" } }, { status: 400 }))).toEqual({ kind: "failed" });
  });
});
