// What a payment card says, apart from React: the stepper's states, failures in plain words with
// what they cost ("Paid means paid", docs/contract.md, section 3), and times in the person's locale.
import { describe, expect, test } from "vitest";
import {
  formatCountdown,
  formatLocalTime,
  localizeIsoTimes,
  parseMoment,
  quoteExpired,
  serviceAddressParts,
  shortHex,
} from "@/components/payment/payment-display";
import { explainFailure, noChargeNote } from "@/components/payment/payment-failure";
import { paymentSteps } from "@/components/payment/payment-progress";
import type { PaymentFailureCode, PaymentStatus } from "@/lib/protocol/lines";
import { samplePaymentStatus } from "../fixtures/payment-status";

const txHash = `0x${"ab".repeat(32)}`;
// Codes a server sends as strings; some are newer than the page's own list of them.
const failed = (code: string, overrides: Partial<PaymentStatus> = {}): PaymentStatus =>
  samplePaymentStatus({ status: "failed", reason: { code: code as PaymentFailureCode, message: "The server says so." }, ...overrides });
const states = (payment: PaymentStatus, furthest?: number) => paymentSteps(payment, furthest).map((step) => step.state);
const at = (iso: string) => (date: Date) => (date.toISOString() === new Date(iso).toISOString() ? "TIME" : "OTHER");

describe("payment steps", () => {
  test("a payment under way has the steps before it done and its own current", () => {
    expect(states(samplePaymentStatus({ status: "checking" }))).toEqual(["current", "upcoming", "upcoming", "upcoming", "upcoming"]);
    expect(states(samplePaymentStatus({ status: "awaiting-signature" }))).toEqual(["done", "current", "upcoming", "upcoming", "upcoming"]);
    expect(states(samplePaymentStatus({ status: "confirmed" }))).toEqual(["done", "done", "done", "current", "upcoming"]);
    const delivered = paymentSteps(samplePaymentStatus({ status: "delivered" }));
    expect(delivered.map((step) => step.state)).toEqual(["done", "done", "done", "done", "done"]);
    expect(delivered.filter((step) => step.current).map((step) => step.name)).toEqual(["delivered"]);
  });

  test("a call paid from a channel's deposit: signed in the page, no transaction of its own, and said so", () => {
    const base = samplePaymentStatus({ status: "delivered" });
    const call = paymentSteps({ ...base, txHash: undefined, channel: { opening: false, price: "0.001", deposit: "0.05", left: "0.048", withdrawDelaySeconds: 900 } });
    expect(call.map((step) => [step.label, step.state])).toEqual([
      ["Checking", "done"],
      ["Signed in this page", "done"],
      ["Submitted", "done"],
      ["From your deposit", "done"],
      ["Delivered", "done"],
    ]);
  });

  test("delivered with nothing settled on chain: the chain step is not ticked, and says whether the maximum is still held", () => {
    const base = samplePaymentStatus({ status: "delivered" });
    const held = paymentSteps({ ...base, txHash: undefined, amount: { ...base.amount, upTo: true, charged: "0" }, collectableUntil: "2030-01-01T12:00:00.000Z" });
    expect(held.map((step) => [step.label, step.state])).toEqual([
      ["Checking", "done"],
      ["Waiting for your approval", "done"],
      ["Submitted", "done"],
      ["Nothing settled yet", "upcoming"],
      ["Delivered", "done"],
    ]);
    const released = paymentSteps({ ...base, txHash: undefined, amount: { ...base.amount, upTo: true, charged: "0" } });
    expect(released[3]).toMatchObject({ label: "Nothing charged", state: "upcoming" });
  });

  test("a failure stops at the step its reason belongs to, or where the card last saw it", () => {
    expect(states(failed("limit-exceeded"))).toEqual(["failed", "upcoming", "upcoming", "upcoming", "upcoming"]);
    expect(states(failed("rejected"))).toEqual(["done", "failed", "upcoming", "upcoming", "upcoming"]);
    expect(states(failed("limit-exceeded"), 1)).toEqual(["done", "failed", "upcoming", "upcoming", "upcoming"]);
    expect(states(failed("payment-pending"))).toEqual(["done", "done", "done", "failed", "upcoming"]);
    expect(states(failed("not-delivered", { txHash }))).toEqual(["done", "done", "done", "done", "failed"]);
    expect(states(failed("payment-failed", { txHash }))).toEqual(["done", "done", "done", "done", "failed"]);
    expect(states(failed("something-new"))).toEqual(["failed", "upcoming", "upcoming", "upcoming", "upcoming"]);
    expect(paymentSteps(failed("expired")).filter((step) => step.current).map((step) => step.name)).toEqual(["awaiting-signature"]);
  });
});

describe("failures in plain words", () => {
  test("a failure without a transaction says nothing was charged", () => {
    for (const code of ["limit-exceeded", "insufficient-balance", "service-unavailable", "payment-failed", "rejected", "expired", "insufficient-gas", "network-congestion"]) {
      const explained = explainFailure(failed(code), String);
      expect(explained.chargeNote).toBe(noChargeNote);
      expect(explained.paid).toBe(false);
      // Each known code has words of its own, not the catch-all.
      if (code !== "payment-failed") expect(explained.summary).not.toBe("The payment did not go through.");
    }
  });

  test("a payment turned down or run out is said once: its summary already says what the reason says; a server's other reasons keep their words", () => {
    expect(explainFailure(failed("rejected"), String).saysReason).toBe(true);
    expect(explainFailure(failed("expired"), String).saysReason).toBe(true);
    for (const code of ["limit-exceeded", "insufficient-balance", "service-unavailable", "payment-failed", "payment-pending", "something-new"]) {
      expect(explainFailure(failed(code), String).saysReason).toBe(false);
    }
    expect(explainFailure(failed("rejected", { txHash }), String).saysReason).toBe(false);
  });

  test("not delivered with a transaction: paid, on chain, never 'no fee charged'", () => {
    const explained = explainFailure(failed("not-delivered", { txHash }), String);
    expect(explained.summary).toBe("Paid, but the service did not deliver: the payment is on chain.");
    expect(explained.chargeNote).toBe("The amount was paid and counts against your limits.");
    expect(explained.paid).toBe(true);
    // Any failure that carries a transaction hash moved money.
    expect(explainFailure(failed("payment-failed", { txHash }), String).chargeNote).not.toBe(noChargeNote);
  });

  test("payment pending: not collected yet, until when when the line says, never 'no fee charged'", () => {
    const until = "2030-01-02T03:04:05.000Z";
    const withTime = explainFailure(
      { ...failed("payment-pending"), collectableUntil: until } as PaymentStatus,
      at(until),
    );
    expect(withTime.summary).toBe("Not collected yet: the service could still collect it until TIME.");
    expect(withTime.chargeNote).toBe("The amount stays reserved against your limits until then.");
    const validBefore = Math.floor(Date.parse(until) / 1000);
    expect(explainFailure({ ...failed("payment-pending"), validBefore } as PaymentStatus, at(until)).summary).toContain("until TIME");
    const without = explainFailure(failed("payment-pending"), String);
    expect(without.summary).toBe("Not collected yet: the service could still collect it.");
    expect(without.chargeNote).not.toBe(noChargeNote);
  });
});

describe("display", () => {
  test("countdowns round up and grow an hour field only when needed", () => {
    expect(formatCountdown(272_000)).toBe("4:32");
    expect(formatCountdown(271_001)).toBe("4:32");
    expect(formatCountdown(59_000)).toBe("0:59");
    expect(formatCountdown(0)).toBe("0:00");
    expect(formatCountdown(-5_000)).toBe("0:00");
    expect(formatCountdown(3_723_000)).toBe("1:02:03");
  });

  test("a waiting quote has run out from the moment its countdown shows 0:00, never before; other payments never run out", () => {
    const expiresAt = "2030-01-02T03:04:05.000Z";
    const at = Date.parse(expiresAt);
    const waiting = samplePaymentStatus({ status: "awaiting-signature", approval: { toSign: [], token: "t", expiresAt } });
    for (const left of [1, 999]) {
      expect(formatCountdown(left)).toBe("0:01");
      expect(quoteExpired(waiting, at - left)).toBe(false);
    }
    expect(formatCountdown(0)).toBe("0:00");
    expect(quoteExpired(waiting, at)).toBe(true);
    expect(quoteExpired({ ...waiting, status: "delivered" }, at + 60_000)).toBe(false);
    expect(quoteExpired({ ...waiting, approval: { toSign: [], token: "t", expiresAt: "not a time" } }, at + 60_000)).toBe(false);
  });

  test("times follow the locale: the time alone today, with the date on another day", () => {
    const now = new Date(2030, 0, 2, 9, 0);
    expect(formatLocalTime(new Date(2030, 0, 2, 10, 42), now, "en-US")).toBe("10:42 AM");
    expect(formatLocalTime(new Date(2030, 0, 2, 10, 42), now, "de-DE")).toBe("10:42");
    expect(formatLocalTime(new Date(2030, 0, 3, 10, 42), now, "en-US")).toMatch(/Jan 3, 2030.*10:42\sAM/);
  });

  test("ISO timestamps in a server message are rewritten, the rest kept", () => {
    const message = "The service can collect it until 2030-01-02T03:04:05Z; after that it is released.";
    expect(localizeIsoTimes(message, at("2030-01-02T03:04:05Z"))).toBe(
      "The service can collect it until TIME; after that it is released.",
    );
    expect(localizeIsoTimes("No time here.", () => "TIME")).toBe("No time here.");
  });

  test("moments from seconds, milliseconds or ISO strings", () => {
    expect(parseMoment(1_893_553_445)?.toISOString()).toBe("2030-01-02T03:04:05.000Z");
    expect(parseMoment("1893553445")?.toISOString()).toBe("2030-01-02T03:04:05.000Z");
    expect(parseMoment(1_893_553_445_000)?.toISOString()).toBe("2030-01-02T03:04:05.000Z");
    expect(parseMoment("2030-01-02T03:04:05Z")?.toISOString()).toBe("2030-01-02T03:04:05.000Z");
    expect(parseMoment("soon")).toBeUndefined();
    expect(parseMoment(undefined)).toBeUndefined();
  });

  test("a service's address keeps its host and port whole; only the path may be shortened", () => {
    expect(serviceAddressParts("http://127.0.0.1:4151/weather")).toEqual({ scheme: "http://", host: "127.0.0.1:4151", rest: "/weather" });
    expect(serviceAddressParts("https://weather.example/now?city=Lisbon")).toEqual({ scheme: "https://", host: "weather.example", rest: "/now?city=Lisbon" });
    expect(serviceAddressParts("https://[::1]:8443/")).toEqual({ scheme: "https://", host: "[::1]:8443", rest: "" });
    expect(serviceAddressParts("not a url")).toEqual({ scheme: "", host: "", rest: "not a url" });
  });

  test("long hex values keep their ends", () => {
    expect(shortHex("0x1234567890abcdef1234567890abcdef12345678")).toBe("0x1234…5678");
    expect(shortHex(txHash, 8, 6)).toBe("0xababab…ababab");
    expect(shortHex("0x1234")).toBe("0x1234");
  });
});
