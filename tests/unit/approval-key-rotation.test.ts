// Rotating the approval key: approvals signed with the key being replaced keep verifying while
// PAYMENT_TOKEN_SECRET_PREVIOUS holds it; new approvals are signed with the new key only.
import { describe, expect, test } from "vitest";
import { signApproval, verifyApproval, type ApprovalClaims } from "@/lib/payments/approval-token";

const OLD = "the-old-approval-key-with-32-bytes-at-least";
const NEW = "the-new-approval-key-with-32-bytes-at-least";

const claims = {
  v: 1,
  paymentId: "pay_rotation",
  wallet: "0x00000000000000000000000000000000000000A1",
  service: { name: "Weather", url: "https://weather.example.com/", method: "GET" },
  network: "eip155:8453",
  asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
  payTo: "0x00000000000000000000000000000000000000B2",
  amount: "10000",
  nonce: `0x${"1".repeat(64)}`,
  expiresAt: 1_900_000_000,
  toSign: [],
} as unknown as ApprovalClaims;

describe("approval key rotation", () => {
  test("an approval signed with the previous key still verifies during the rotation", () => {
    const token = signApproval(claims, { PAYMENT_TOKEN_SECRET: OLD });
    expect(() => verifyApproval(token, claims.paymentId, { PAYMENT_TOKEN_SECRET: NEW })).toThrow(/not valid/);
    const rotated = { PAYMENT_TOKEN_SECRET: NEW, PAYMENT_TOKEN_SECRET_PREVIOUS: OLD };
    expect(verifyApproval(token, claims.paymentId, rotated)).toEqual(claims);
  });

  test("new approvals are signed with the new key, so they verify once the old key is gone", () => {
    const token = signApproval(claims, { PAYMENT_TOKEN_SECRET: NEW, PAYMENT_TOKEN_SECRET_PREVIOUS: OLD });
    expect(verifyApproval(token, claims.paymentId, { PAYMENT_TOKEN_SECRET: NEW })).toEqual(claims);
    expect(() => verifyApproval(token, claims.paymentId, { PAYMENT_TOKEN_SECRET: OLD })).toThrow(/not valid/);
  });

  test("a token signed with neither key is refused", () => {
    const token = signApproval(claims, { PAYMENT_TOKEN_SECRET: "some-other-key-that-is-32-bytes-long!!" });
    expect(() =>
      verifyApproval(token, claims.paymentId, { PAYMENT_TOKEN_SECRET: NEW, PAYMENT_TOKEN_SECRET_PREVIOUS: OLD }),
    ).toThrow(/not valid/);
  });
});
