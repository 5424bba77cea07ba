// The approval token carries the quoted service request, body included (docs/contract.md, section 4): the
// largest request a quote accepts makes a token that request B can still carry, and any
// change to it, its body included, is refused.
import type { PaymentRequired } from "@x402/core/types";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, test } from "vitest";
import { chatRequestSchema } from "@/lib/chat/request";
import { parseServerEnv } from "@/lib/env";
import {
  issueApproval,
  MAX_APPROVAL_TOKEN_CHARS,
  newPaymentId,
  signApproval,
  verifyApproval,
  type ApprovalClaims,
} from "@/lib/payments/approval-token";
import { createQuote } from "@/lib/payments/quote";
import { MAX_CALL_BODY_BYTES, MAX_CALL_URL_CHARS } from "@/lib/net/service-call";

const env = parseServerEnv({ X402_NETWORKS: "eip155:84532", PAYMENT_TOKEN_SECRET: "a-test-secret-of-at-least-32-characters" });
const wallet = privateKeyToAccount(generatePrivateKey()).address;
const baseSepoliaUsdc = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";

/** A JSON body exactly MAX_CALL_BODY_BYTES long in UTF-8, with characters JSON escapes and multi-byte ones. */
function largestBody(): { text: string } {
  const unit = "line\n\"quoted\" Grüße ☕ ";
  // Escaped in the JSON, a unit takes its JSON string's bytes less the two quotes.
  const unitBytes = Buffer.byteLength(JSON.stringify(unit)) - 2;
  let text = unit.repeat(Math.floor((MAX_CALL_BODY_BYTES - Buffer.byteLength(JSON.stringify({ text: "" }))) / unitBytes));
  const size = () => Buffer.byteLength(JSON.stringify({ text }));
  text += "x".repeat(MAX_CALL_BODY_BYTES - size());
  expect(size()).toBe(MAX_CALL_BODY_BYTES);
  return { text };
}

async function largestClaims({ description = 11_000 }: { description?: number } = {}): Promise<ApprovalClaims> {
  const base = "https://translate.example/v1/long";
  const url = `${base}?q=${"a".repeat(MAX_CALL_URL_CHARS - base.length - 3)}`;
  expect(url.length).toBe(MAX_CALL_URL_CHARS);
  // A v2 service's 402 as long as a response header gets (16 KiB), echoed in the payload.
  const paymentRequired: PaymentRequired = {
    x402Version: 2,
    resource: { url: base, description: "d".repeat(description) },
    accepts: [
      { scheme: "exact", network: "eip155:84532", amount: "10000", asset: baseSepoliaUsdc, payTo: wallet, maxTimeoutSeconds: 300, extra: { name: "USDC", version: "2" } },
    ],
  };
  const quote = await createQuote({ paymentRequired, wallet, perPaymentLimit: 1_000_000n, defaultChain: undefined, env });
  if ("code" in quote) throw new Error(quote.message);
  return {
    v: 1,
    paymentId: newPaymentId(),
    wallet,
    service: { name: "n".repeat(80), url, method: "POST", body: largestBody() },
    network: quote.network.id,
    asset: quote.asset,
    payTo: quote.payTo,
    amount: quote.amount.toString(),
    nonce: quote.exposure.instrument,
    expiresAt: quote.exposure.until,
    toSign: quote.toSign,
    payload: quote.unsignedPayload,
  };
}

const requestB = (token: string) => ({
  messages: [{ role: "user", content: "Translate this" }],
  payment: { paymentId: "pay_1", token, signature: `0x${"11".repeat(65)}` },
});

describe("approval tokens for long requests", () => {
  test("the largest body and URL a quote accepts make a token request B can carry, and it reads back whole", async () => {
    const claims = await largestClaims();
    const token = issueApproval(claims, env);
    if (token === undefined) throw new Error("no token for the largest request");
    expect(token.length).toBeLessThanOrEqual(MAX_APPROVAL_TOKEN_CHARS);
    expect(chatRequestSchema.safeParse(requestB(token)).success).toBe(true);
    expect(verifyApproval(token, claims.paymentId, env).service).toEqual(claims.service);
  });

  test("a changed body is refused", async () => {
    const claims = await largestClaims();
    const [body, mac] = signApproval(claims, env).split(".");
    const changed = JSON.parse(Buffer.from(body ?? "", "base64url").toString("utf8")) as ApprovalClaims;
    changed.service.body = { text: "something else" };
    const forged = `${Buffer.from(JSON.stringify(changed), "utf8").toString("base64url")}.${mac}`;
    expect(() => verifyApproval(forged, claims.paymentId, env)).toThrowErrorMatchingInlineSnapshot(
      `[AppError: The payment approval is not valid. Ask for the payment again to get a new quote.]`,
    );
  });

  test("no token is issued that request B could not carry: a bloated 402 gets no quote", async () => {
    const claims = await largestClaims({ description: 40_000 });
    expect(signApproval(claims, env).length).toBeGreaterThan(MAX_APPROVAL_TOKEN_CHARS);
    expect(issueApproval(claims, env)).toBeUndefined();
  });

  test("a token longer than any quote makes is refused by the request schema, naming the field", () => {
    const parsed = chatRequestSchema.safeParse(requestB("t".repeat(MAX_APPROVAL_TOKEN_CHARS + 1)));
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path.join("."))).toEqual(["payment.token"]);
  });
});
