// Signed offers and receipts (x402 `offer-receipt`) judged for one payment, apart from the
// sandbox: offers and receipts signed here with @x402/extensions' own functions (EIP-712 with a
// key account, JWS with a key carried in its did:jwk), then checked as the payment core checks
// them (lib/payments/receipt.ts); and how the page shows the verdict and reads it off a `p:` line.
import { webcrypto } from "node:crypto";
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import {
  createJWSOfferReceiptIssuer,
  createOfferEIP712,
  createReceiptEIP712,
  OFFER_RECEIPT,
  type JWSSigner,
  type OfferInput,
  type SignTypedDataFn,
  type SignedOffer,
  type SignedReceipt,
} from "@x402/extensions/offer-receipt";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, test } from "vitest";
import { receiptWords } from "@/components/payment/payment-display";
import { readPaymentStatus } from "@/lib/protocol/stream-payloads";
import type { PaymentNetwork } from "@/lib/payments/payment";
import { checkOffer, judgeReceipt, sameResource, summaryOf, type CheckedOffer, type ReceiptExpectation } from "@/lib/payments/receipt";
import { readSignedReceipt, type ReadReceipt } from "@/lib/x402/offer-receipt";
import { samplePaymentStatus } from "../fixtures/payment-status";

const service = privateKeyToAccount(generatePrivateKey());
const stranger = privateKeyToAccount(generatePrivateKey());
const payer = privateKeyToAccount(generatePrivateKey()).address;
const signerOf = (account: typeof service): SignTypedDataFn => (data) => account.signTypedData(data as Parameters<typeof account.signTypedData>[0]);

const network = "eip155:31337";
const asset = "0x0000000000000000000000000000000000000001";
const resourceUrl = "http://127.0.0.1:4100/weather";
const txHash = `0x${"ab".repeat(32)}`;
const now = new Date();
const requirements: PaymentRequirements = { scheme: "exact", network, amount: "10000", asset, payTo: service.address, maxTimeoutSeconds: 300, extra: {} };
const quoted = {
  requirements,
  network: { id: network } as PaymentNetwork,
  amount: 10_000n,
  asset,
  payTo: service.address,
};
const offerInput = (change: Partial<OfferInput> = {}): OfferInput => ({ acceptIndex: 0, scheme: "exact", network, asset, payTo: service.address, amount: "10000", ...change });

function paymentRequiredWith(offers: unknown[] | undefined): PaymentRequired {
  return {
    x402Version: 2,
    resource: { url: resourceUrl },
    accepts: [requirements],
    ...(offers ? { extensions: { [OFFER_RECEIPT]: { info: { offers } } } } : {}),
  } as PaymentRequired;
}

const expectation = (change: Partial<ReceiptExpectation> = {}): ReceiptExpectation => ({
  payer,
  network,
  resourceUrl,
  payTo: service.address,
  txHash,
  paidAfter: new Date(now.getTime() - 5_000),
  ...change,
});

const signedReceipt = (account = service, change: { payer?: string; network?: string; resourceUrl?: string; transaction?: string } = {}) =>
  createReceiptEIP712({ resourceUrl: `${resourceUrl}?city=Lisbon`, payer, network, transaction: txHash, ...change }, signerOf(account));
const read = (receipt: SignedReceipt): ReadReceipt => ({ kind: "signed", receipt });

/** A JWS signer over P-256 whose key travels in its own did:jwk. */
async function jwsSigner(): Promise<JWSSigner> {
  const keys = await webcrypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
  const { kty, crv, x, y } = await webcrypto.subtle.exportKey("jwk", keys.publicKey);
  const kid = `did:jwk:${Buffer.from(JSON.stringify({ kty, crv, x, y, alg: "ES256" })).toString("base64url")}`;
  return {
    kid,
    format: "jws",
    algorithm: "ES256",
    sign: async (bytes) => Buffer.from(await webcrypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, keys.privateKey, bytes)).toString("base64url"),
  };
}

describe("the offer at quote time", () => {
  test("a service without the extension has no offer to check", async () => {
    expect(await checkOffer({ paymentRequired: paymentRequiredWith(undefined), quoted, resourceUrl })).toBeUndefined();
  });

  test("the offer for exactly the terms quoted, signed and still valid, names its signer", async () => {
    const other = await createOfferEIP712(resourceUrl, offerInput({ amount: "20000", acceptIndex: 1 }), signerOf(service));
    const offer = await createOfferEIP712(resourceUrl, offerInput(), signerOf(service));
    const checked = await checkOffer({ paymentRequired: paymentRequiredWith([other, { format: "eip712", signature: "junk" }, offer]), quoted, resourceUrl: `${resourceUrl}?city=Lisbon` });
    expect(checked).toEqual({ signed: offer, signer: service.address });
  });

  test("an offer for other terms, for another resource, expired, or changed after signing does not verify", async () => {
    const problem = async (offers: unknown[], at = now) => (await checkOffer({ paymentRequired: paymentRequiredWith(offers), quoted, resourceUrl, now: at }))?.problem;
    expect(await problem([await createOfferEIP712(resourceUrl, offerInput({ amount: "9999" }), signerOf(service))])).toBe("none of its signed offers is for the terms quoted");
    expect(await problem([await createOfferEIP712("http://127.0.0.1:4100/other", offerInput(), signerOf(service))])).toBe("it is for another resource (http://127.0.0.1:4100/other)");
    const offer = await createOfferEIP712(resourceUrl, offerInput({ offerValiditySeconds: 60 }), signerOf(service));
    expect(await problem([offer], new Date(now.getTime() + 120_000))).toMatch(/^it expired at \d{4}-/);
    // Changed after signing: the signature then names some other key, which the offer keeps as its signer.
    const changed = { ...offer, payload: { ...(offer as Extract<SignedOffer, { format: "eip712" }>).payload, resourceUrl: `${resourceUrl}/` } };
    const checked = await checkOffer({ paymentRequired: paymentRequiredWith([changed]), quoted, resourceUrl });
    expect(checked?.problem).toMatch(/another resource/);
    expect(checked?.signer).not.toBe(service.address);
  });

  test("a JWS offer whose key would have to be fetched is not checked", async () => {
    const signer = { ...(await jwsSigner()), kid: "did:web:127.0.0.1%3A4100#key-1" };
    const offer = await createJWSOfferReceiptIssuer(signer.kid, signer).issueOffer(resourceUrl, offerInput());
    expect((await checkOffer({ paymentRequired: paymentRequiredWith([offer]), quoted, resourceUrl }))?.problem).toMatch(/fetched from an address the service names/);
  });
});

describe("the receipt after settlement", () => {
  test("no receipt: nothing to keep", async () => {
    expect(await judgeReceipt({ kind: "none" }, expectation())).toBeUndefined();
  });

  test("signed with the payee's key, for this payer, network, resource and transaction: verified", async () => {
    const receipt = await signedReceipt();
    const kept = await judgeReceipt(read(receipt), expectation(), now);
    expect(kept).toEqual({ status: "verified", format: "eip712", signed: receipt, signer: service.address, binding: "pay-to", checkedAt: now.toISOString() });
    expect(summaryOf(kept as NonNullable<typeof kept>)).toEqual({ status: "verified", signer: service.address });
    // A privacy-minimal receipt names no transaction: that is no mismatch.
    expect((await judgeReceipt(read(await signedReceipt(service, { transaction: "" })), expectation(), now))?.status).toBe("verified");
  });

  test("signed by the key that signed the service's offer, not the payee's: verified, bound by the offer, kept with it", async () => {
    const offer = await createOfferEIP712(resourceUrl, offerInput(), signerOf(stranger));
    const kept = await judgeReceipt(read(await signedReceipt(stranger)), expectation({ offer: { signed: offer, signer: stranger.address } }), now);
    expect(kept).toMatchObject({ status: "verified", signer: stranger.address, binding: "offer", offer });
  });

  const cases: Array<[string, () => Promise<SignedReceipt>, Partial<ReceiptExpectation>, string | RegExp]> = [
    ["by a key that is not the service's", () => signedReceipt(stranger), {}, /^it is signed by 0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4}, a key that is neither the payee's nor the one that signed the service's offer$/],
    ["altered after signing", async () => {
      const receipt = (await signedReceipt()) as Extract<SignedReceipt, { format: "eip712" }>;
      return { ...receipt, payload: { ...receipt.payload, payer: stranger.address } };
    }, {}, /^it is signed by 0x.*neither the payee's/],
    ["with a broken signature", async () => ({ ...(await signedReceipt()), signature: `0x${"00".repeat(65)}` }), {}, "its signature is not a valid EIP-712 signature"],
    ["for another payer", () => signedReceipt(service, { payer: stranger.address }), {}, `it names another payer (${stranger.address.slice(0, 6)}…${stranger.address.slice(-4)})`],
    ["for another network", () => signedReceipt(service, { network: "eip155:8453" }), {}, "it is for another network (eip155:8453)"],
    ["for another resource", () => signedReceipt(service, { resourceUrl: "http://127.0.0.1:4100/prize" }), {}, "it is for another resource (http://127.0.0.1:4100/prize)"],
    ["for another transaction", () => signedReceipt(service, { transaction: `0x${"cd".repeat(32)}` }), {}, "it names another transaction (0xcdcd…cdcd)"],
    ["issued before the payment", () => signedReceipt(), { paidAfter: new Date(now.getTime() + 3_600_000) }, "it was issued before this payment was made"],
    ["for an offer that did not verify", () => signedReceipt(), { offer: { problem: "none of its signed offers is for the terms quoted" } }, "the service's signed offer did not verify: none of its signed offers is for the terms quoted"],
  ];

  test.each(cases)("a receipt %s is kept as unverified, with why", async (_name, make, change, why) => {
    const receipt = await make();
    const kept = await judgeReceipt(read(receipt), expectation(change), now);
    expect(kept?.status).toBe("unverified");
    expect(kept?.reason).toEqual(typeof why === "string" ? why : expect.stringMatching(why));
    expect(kept?.binding).toBeUndefined();
    expect(kept?.signed).toEqual(receipt);
    expect(summaryOf(kept as NonNullable<typeof kept>)).toMatchObject({ status: "unverified", reason: kept?.reason });
  });

  test("a receipt in no form this agent reads is unverified, and nothing of it is kept", async () => {
    const response = (receipt: unknown) =>
      new Response("{}", {
        headers: {
          "PAYMENT-RESPONSE": Buffer.from(JSON.stringify({ success: true, transaction: txHash, network, extensions: { [OFFER_RECEIPT]: { info: { receipt } } } })).toString("base64"),
        },
      });
    expect(readSignedReceipt(new Response("{}"))).toEqual({ kind: "none" });
    expect(readSignedReceipt(response(await signedReceipt()))).toMatchObject({ kind: "signed" });
    const unreadable = readSignedReceipt(response({ format: "eip712", payload: { payer: "x".repeat(10_000) }, signature: "0x00" }));
    expect(unreadable).toEqual({ kind: "unreadable" });
    expect(await judgeReceipt(unreadable, expectation(), now)).toEqual({ status: "unverified", reason: "the service's receipt is not in a form this agent reads", checkedAt: now.toISOString() });
  });

  test("JWS: a receipt signed by the did:jwk key that signed the offer verifies; by another key, or for a key to fetch, it does not", async () => {
    const signer = await jwsSigner();
    const issuer = createJWSOfferReceiptIssuer(signer.kid, signer);
    const offer = await issuer.issueOffer(resourceUrl, offerInput());
    const checked = (await checkOffer({ paymentRequired: paymentRequiredWith([offer]), quoted, resourceUrl })) as CheckedOffer;
    expect(checked).toEqual({ signed: offer, signer: signer.kid });
    const receipt = await issuer.issueReceipt(`${resourceUrl}?city=Lisbon`, payer, network, txHash);
    expect(await judgeReceipt(read(receipt), expectation({ offer: checked }), now)).toMatchObject({ status: "verified", format: "jws", signer: signer.kid, binding: "offer" });
    // Without the offer, nothing ties a JWS key to the service.
    expect((await judgeReceipt(read(receipt), expectation(), now))?.reason).toMatch(/neither the payee's nor the one that signed the service's offer/);
    const other = await jwsSigner();
    const foreign = await createJWSOfferReceiptIssuer(other.kid, other).issueReceipt(resourceUrl, payer, network, txHash);
    expect(await judgeReceipt(read(foreign), expectation({ offer: checked }), now)).toMatchObject({ status: "unverified", signer: other.kid });
    const remote = { ...other, kid: "did:web:127.0.0.1%3A4100" };
    const fetched = await createJWSOfferReceiptIssuer(remote.kid, remote).issueReceipt(resourceUrl, payer, network, txHash);
    expect((await judgeReceipt(read(fetched), expectation({ offer: checked }), now))?.reason).toMatch(/fetched from an address the service names/);
  });

  test("the same resource is one origin and path, whatever the query", () => {
    expect(sameResource(resourceUrl, `${resourceUrl}?city=Lisbon`)).toBe(true);
    expect(sameResource(resourceUrl, "http://127.0.0.1:4101/weather")).toBe(false);
    expect(sameResource(resourceUrl, `${resourceUrl}/x`)).toBe(false);
    expect(sameResource(resourceUrl, "not a url")).toBe(false);
  });
});

describe("what the page shows", () => {
  test("a verified receipt names its signer; an unverified one says why, never as proof", () => {
    expect(receiptWords({ status: "verified", signer: "0x1234567890abcdef1234567890abcdef123456ab" })).toBe("Signed receipt · verified by 0x1234…56ab");
    expect(receiptWords({ status: "unverified", reason: "it names another payer (0xdead…beef)" })).toBe("Receipt did not verify: it names another payer (0xdead…beef)");
  });

  test("the page keeps a `p:` line's receipt, and drops a malformed one with the line", () => {
    const receipt = { status: "verified" as const, signer: service.address };
    expect(readPaymentStatus(samplePaymentStatus({ status: "delivered", receipt }))?.receipt).toEqual(receipt);
    expect(readPaymentStatus({ ...samplePaymentStatus({ status: "delivered" }), receipt: { status: "trusted" } })).toBeUndefined();
    expect(readPaymentStatus(samplePaymentStatus({ status: "delivered" }))).not.toHaveProperty("receipt");
  });
});
