// What the page takes from a `p:` or final `d:` line: a payload it can show, or nothing, so that
// no field of the wrong type or size reaches a renderer.
import { describe, expect, test } from "vitest";
import { readFinish, readPaymentStatus } from "@/lib/protocol/stream-payloads";
import { samplePaymentStatus } from "@/tests/fixtures/payment-status";

describe("the page's reading of stream payloads", () => {
  test("a payment update the server sends is kept whole; one with a field of the wrong type, size or value is dropped", () => {
    const good = samplePaymentStatus({ status: "awaiting-signature", warnings: ["The price changed."] });
    expect(readPaymentStatus(good)).toEqual(good);

    const broken = [
      { ...good, paymentId: 42 },
      { ...good, paymentId: "p".repeat(101) },
      { ...good, status: "paid-twice" },
      { ...good, service: { name: "x".repeat(4_001), url: good.service.url } },
      { ...good, asset: { ...good.asset, decimals: 6.5 } },
      { ...good, asset: { ...good.asset, decimals: 37 } },
      { ...good, amount: { ...good.amount, total: "1e3" } },
      { ...good, amount: { ...good.amount, currency: "USDT" } },
      { ...good, paidFrom: "someone-else" },
      { ...good, warnings: Array.from({ length: 21 }, () => "w") },
      { ...good, reason: { code: "not-a-code", message: "?" } },
      "not an object",
      null,
    ];
    for (const payload of broken) expect(readPaymentStatus(payload)).toBeUndefined();
  });

  test("an ending keeps the fields the page knows and lets unknown ones through; a wrong reason is dropped", () => {
    const finish = { finishReason: "stop", model: "offline", paymentId: "pay-1", later: { anything: true } };
    expect(readFinish(finish)).toEqual(finish);
    expect(readFinish({ ...finish, finishReason: "exploded" })).toBeUndefined();
    expect(readFinish({ ...finish, model: 7 })).toBeUndefined();
  });
});
