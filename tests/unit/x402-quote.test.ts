// Quotes from 402 answers of both protocol versions, built by the real x402 client, signed
// by a test key as the person's wallet would sign them.
import { x402Client, x402HTTPClient } from "@x402/core/client";
import type { PaymentRequired } from "@x402/core/types";
import { verifyTypedData } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, test } from "vitest";
import { parseServerEnv } from "@/lib/env";
import { createQuote, type PaymentQuote } from "@/lib/payments/quote";
import { withinWords } from "@/lib/tools/pay";
import { authorizationOf, authorizationTypedData, withSignature } from "@/lib/payments/rails/evm/exact/prepare";
import { MAX_AUTHORIZATION_SECONDS } from "@/lib/payments/rails/rail";
import { typedDataMessage, } from "@/lib/chain/typed-data";
import { readPaymentRequired } from "@/lib/x402/payment-required";

const wallet = privateKeyToAccount(generatePrivateKey());
const payTo = "0x1111111111111111111111111111111111111111";
const baseSepoliaUsdc = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const env = parseServerEnv({ X402_NETWORKS: "eip155:84532,eip155:8453" });

const v1Required = {
  x402Version: 1,
  error: "X-PAYMENT header is required",
  accepts: [
    {
      scheme: "exact",
      network: "base-sepolia",
      maxAmountRequired: "10000",
      resource: "https://weather.example/now",
      description: "Weather",
      mimeType: "application/json",
      payTo,
      maxTimeoutSeconds: 120,
      asset: baseSepoliaUsdc,
      extra: { name: "USDC", version: "2" },
    },
  ],
} as unknown as PaymentRequired;

const v2Required: PaymentRequired = {
  x402Version: 2,
  resource: { url: "https://weather.example/now", serviceName: "Weather" },
  accepts: [
    { scheme: "exact", network: "eip155:1", amount: "5000", asset: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", payTo, maxTimeoutSeconds: 60, extra: { name: "USD Coin", version: "2" } },
    { scheme: "exact", network: "eip155:8453", amount: "20000", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", payTo, maxTimeoutSeconds: 60, extra: { name: "USD Coin", version: "2" } },
    { scheme: "exact", network: "eip155:84532", amount: "10000", asset: baseSepoliaUsdc, payTo, maxTimeoutSeconds: 60, extra: { name: "USDC", version: "2" } },
  ],
};

async function quoteOf(required: PaymentRequired, options: { perPayment?: bigint; defaultChain?: string } = {}) {
  return createQuote({
    paymentRequired: required,
    wallet: wallet.address,
    perPaymentLimit: options.perPayment ?? 1_000_000n,
    defaultChain: options.defaultChain,
    env,
  });
}

/** What the wallet signs for a quote on EVM: EIP-712 typed data. */
const typedDataOf = (quote: PaymentQuote) => authorizationTypedData(quote);

async function signQuote(quote: PaymentQuote) {
  const typedData = typedDataOf(quote);
  return wallet.signTypedData({
    domain: typedData.domain,
    types: typedData.types,
    primaryType: typedData.primaryType,
    message: typedDataMessage(typedData),
  });
}

describe("x402 quotes", () => {
  test("reads v1 requirements from the body and v2 from the PAYMENT-REQUIRED header", () => {
    const v1 = readPaymentRequired(new Response(null, { status: 402 }), v1Required);
    expect(v1?.x402Version).toBe(1);
    const header = Buffer.from(JSON.stringify(v2Required), "utf8").toString("base64");
    const v2 = readPaymentRequired(new Response(null, { status: 402, headers: { "PAYMENT-REQUIRED": header } }), {});
    expect(v2?.accepts).toHaveLength(3);
    expect(readPaymentRequired(new Response(null, { status: 402 }), { hello: "world" })).toBeUndefined();
  });

  test("a v1 requirement is quoted and signed through the v1 exact scheme, sent as X-PAYMENT", async () => {
    const quote = await quoteOf(v1Required);
    if ("code" in quote) throw new Error(quote.message);
    expect(quote.x402Version).toBe(1);
    expect(quote.amount).toBe(10_000n);
    expect(quote.network.id).toBe("eip155:84532");
    expect(typedDataOf(quote).domain).toEqual({ name: "USDC", version: "2", chainId: 84532, verifyingContract: baseSepoliaUsdc });
    expect(typedDataOf(quote).message).toMatchObject({ from: wallet.address, to: payTo, value: "10000" });

    const signature = await signQuote(quote);
    const payload = withSignature(quote.unsignedPayload, signature);
    const headers = new x402HTTPClient(new x402Client()).encodePaymentSignatureHeader(payload);
    expect(Object.keys(headers)).toEqual(["X-PAYMENT"]);
    const sent = JSON.parse(Buffer.from(headers["X-PAYMENT"] ?? "", "base64").toString("utf8")) as Record<string, unknown>;
    expect(sent).toMatchObject({ x402Version: 1, scheme: "exact", network: "base-sepolia", payload: { signature } });
    const authorization = authorizationOf(payload);
    expect(authorization.nonce).toBe(quote.exposure.instrument);
    expect(
      await verifyTypedData({
        address: wallet.address,
        domain: typedDataOf(quote).domain,
        types: typedDataOf(quote).types,
        primaryType: typedDataOf(quote).primaryType,
        message: typedDataMessage(typedDataOf(quote)),
        signature,
      }),
    ).toBe(true);
  });

  test("v2: skips disabled networks, prefers the default chain, else the cheapest", async () => {
    const cheapest = await quoteOf(v2Required);
    if ("code" in cheapest) throw new Error(cheapest.message);
    expect([cheapest.network.id, cheapest.amount]).toEqual(["eip155:84532", 10_000n]);
    // The quote says why this network: the other one the service takes (Base) asks more.
    expect(cheapest.networkChoice).toBe("The service also takes Base, at a higher price there.");
    const preferred = await quoteOf(v2Required, { defaultChain: "eip155:8453" });
    if ("code" in preferred) throw new Error(preferred.message);
    expect([preferred.network.id, preferred.amount]).toEqual(["eip155:8453", 20_000n]);
    expect(preferred.unsignedPayload.accepted).toEqual(v2Required.accepts[1]);
    expect(preferred.networkChoice).toBe("The service also takes Base Sepolia; this is your default chain.");
    // One network the service takes: nothing to explain.
    const only = await quoteOf({ ...v2Required, accepts: v2Required.accepts.slice(2) });
    if ("code" in only) throw new Error(only.message);
    expect(only.networkChoice).toBeUndefined();
  });

  test("refuses what cannot be paid safely: unknown asset, wrong EIP-712 domain, other schemes", async () => {
    const first = v2Required.accepts[2];
    if (!first) throw new Error("fixture");
    const variants = [
      { ...first, asset: "0x2222222222222222222222222222222222222222" },
      { ...first, extra: { name: "USD Coin", version: "2" } },
      { ...first, scheme: "upto" },
    ];
    for (const accepts of variants) {
      const refused = await quoteOf({ ...v2Required, accepts: [accepts] });
      expect(refused).toMatchObject({ code: "payment-failed" });
    }
  });

  test("a v1 402 whose amount and maxAmountRequired differ is shown, compared and signed at maxAmountRequired, the amount v1 signs", async () => {
    const v1 = v1Required.accepts[0];
    if (!v1) throw new Error("fixture");
    const quote = await quoteOf({ ...v1Required, accepts: [{ ...v1, amount: "1" }] } as PaymentRequired);
    if ("code" in quote) throw new Error(quote.message);
    expect(quote.amount).toBe(10_000n);
    expect(typedDataOf(quote).message.value).toBe("10000");
    // Compared with the per-payment limit at that amount too: above it, it is refused on its card.
    const limited = await quoteOf({ ...v1Required, accepts: [{ ...v1, amount: "1" }] } as PaymentRequired, { perPayment: 9_999n });
    if ("code" in limited) throw new Error(limited.message);
    expect(limited.amount).toBe(10_000n);
  });

  test("a v1 402 on a CAIP-2 network is refused: the v1 scheme knows network names only", async () => {
    const v1 = v1Required.accepts[0];
    if (!v1) throw new Error("fixture");
    const refused = await quoteOf({ ...v1Required, accepts: [{ ...v1, network: "eip155:84532" }] });
    expect(refused).toMatchObject({ code: "payment-failed", message: expect.stringContaining("network eip155:84532 is not enabled here") });
  });

  test("within the per-payment limit first; above it, the cheapest is still quoted for pre-flight to refuse on a card", async () => {
    // The default chain's price (0.02) is above the limit, Base Sepolia's (0.01) is within it.
    const within = await quoteOf(v2Required, { perPayment: 15_000n, defaultChain: "eip155:8453" });
    if ("code" in within) throw new Error(within.message);
    expect([within.network.id, within.amount]).toEqual(["eip155:84532", 10_000n]);
    expect(within.networkChoice).toBe("The service also takes Base, above your per-payment limit there.");
    // Every option above the limit: the lowest price asked, even off the default chain.
    const above = await quoteOf(v2Required, { perPayment: 9_999n, defaultChain: "eip155:8453" });
    if ("code" in above) throw new Error(above.message);
    expect([above.network.id, above.amount]).toEqual(["eip155:84532", 10_000n]);
    expect(above.networkChoice).toBeUndefined();
  });

  test("a service asking for a one-year window gets an authorization valid for at most 10 minutes", async () => {
    const oneYear = 365 * 24 * 60 * 60;
    const v2 = v2Required.accepts[2];
    const v1 = v1Required.accepts[0];
    if (!v2 || !v1) throw new Error("fixture");
    for (const required of [
      { ...v2Required, accepts: [{ ...v2, maxTimeoutSeconds: oneYear }] },
      { ...v1Required, accepts: [{ ...v1, maxTimeoutSeconds: oneYear }] },
    ] as PaymentRequired[]) {
      const before = Math.floor(Date.now() / 1000);
      const quote = await quoteOf(required);
      if ("code" in quote) throw new Error(quote.message);
      const after = Math.floor(Date.now() / 1000);
      // What the wallet signs, what the payload carries and what the quote says all agree.
      const signed = Number(typedDataOf(quote).message.validBefore);
      expect(signed).toBe(quote.exposure.until);
      expect(Number(authorizationOf(quote.unsignedPayload).validBefore)).toBe(signed);
      expect(signed).toBeGreaterThanOrEqual(before + MAX_AUTHORIZATION_SECONDS);
      expect(signed).toBeLessThanOrEqual(after + MAX_AUTHORIZATION_SECONDS);
    }
  });

  test("the capped window leaves the echoed requirements as the service sent them", async () => {
    const asked = v2Required.accepts[2];
    if (!asked) throw new Error("fixture");
    const required = { ...v2Required, accepts: [{ ...asked, maxTimeoutSeconds: 86_400 }] };
    const quote = await quoteOf(required);
    if ("code" in quote) throw new Error(quote.message);
    // The service matches `accepted` against its own requirements field by field.
    expect(quote.unsignedPayload.accepted).toEqual(required.accepts[0]);
    // A window shorter than the cap is kept as asked.
    const short = await quoteOf({ ...v2Required, accepts: [{ ...asked, maxTimeoutSeconds: 60 }] });
    if ("code" in short) throw new Error(short.message);
    expect(short.exposure.until).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 60);
  });
});

describe("a quote's time, in words", () => {
  test("a person is told how long they have, not a timestamp", () => {
    expect(withinWords(300_000 - 40)).toBe("within 5 minutes");
    expect(withinWords(59_000)).toBe("within about a minute");
    expect(withinWords(3_600_000)).toBe("within the hour");
  });
});
