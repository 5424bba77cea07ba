// The x402 `offer-receipt` extension, read as a client reads it: the signed offers a service's
// 402 carries (one per payment option it accepts) and the signed receipt its paid answer
// carries in PAYMENT-RESPONSE. Both are a stranger's data: each is checked for form before
// anything reads it, and its signature is checked with the extension's own functions. A good
// signature only says which key signed; whether that key speaks for the service and whether
// the receipt is about this payment is the payment core's judgement (lib/payments/receipt.ts).
//
// EIP-712 artifacts are checked by recovering the signer. A JWS artifact names its key by a
// DID: `did:key` and `did:jwk` carry the key itself and are checked here; a key that would have
// to be fetched (`did:web`) is not looked up, since that fetch would go to an address the
// service chose, outside the address policy (lib/net), so such a signature stays unchecked.
import {
  decodeSignedOffers,
  extractJWSHeader,
  extractOffersFromPaymentRequired,
  extractPublicKeyFromKid,
  extractReceiptFromResponse,
  OFFER_RECEIPT,
  verifyOfferSignatureEIP712,
  verifyOfferSignatureJWS,
  verifyReceiptSignatureEIP712,
  verifyReceiptSignatureJWS,
  type DecodedOffer,
  type OfferPayload,
  type ReceiptPayload,
  type SignedOffer,
  type SignedReceipt,
} from "@x402/extensions/offer-receipt";
import type { PaymentRequired } from "@x402/core/types";
import type { z } from "zod";
import { offerPayloadSchema, receiptPayloadSchema, signedOfferSchema, signedReceiptSchema } from "./offer-receipt-forms";

export type { DecodedOffer, OfferPayload, ReceiptPayload, SignedOffer, SignedReceipt };

/** The most offers read from one 402: a service offers one per payment option. */
const MAX_OFFERS = 20;

/** Whether the 402 declares the extension at all: a service without it has no offers and gives no receipts. */
export function declaresOfferReceipt(paymentRequired: PaymentRequired): boolean {
  return typeof paymentRequired.extensions === "object" && paymentRequired.extensions !== null && OFFER_RECEIPT in paymentRequired.extensions;
}

/**
 * The well-formed signed offers of a 402, their payloads decoded (not yet checked): offers of
 * another form are left out, as the spec asks of fields a client does not support.
 */
export function readSignedOffers(paymentRequired: PaymentRequired): DecodedOffer[] {
  let offers: unknown;
  try {
    offers = extractOffersFromPaymentRequired(paymentRequired);
  } catch {
    return [];
  }
  if (!Array.isArray(offers)) return [];
  const wellFormed = offers.slice(0, MAX_OFFERS).flatMap((offer) => {
    const parsed = signedOfferSchema.safeParse(offer);
    return parsed.success ? [parsed.data as SignedOffer] : [];
  });
  try {
    return decodeSignedOffers(wellFormed).filter((decoded) => offerPayloadSchema.safeParse(payloadOf(decoded)).success);
  } catch {
    return [];
  }
}

function payloadOf(decoded: DecodedOffer): OfferPayload {
  const { resourceUrl, scheme, network, asset, payTo, amount, validUntil, version } = decoded;
  return { version, resourceUrl, scheme, network, asset, payTo, amount, validUntil };
}

/** What a paid answer's PAYMENT-RESPONSE says of a receipt: none, one in a readable form, or one that is not. */
export type ReadReceipt = { kind: "none" } | { kind: "signed"; receipt: SignedReceipt } | { kind: "unreadable" };

export function readSignedReceipt(response: Response): ReadReceipt {
  let receipt: unknown;
  try {
    receipt = extractReceiptFromResponse(response);
  } catch {
    return { kind: "unreadable" };
  }
  if (receipt === undefined || receipt === null) return { kind: "none" };
  const parsed = signedReceiptSchema.safeParse(receipt);
  return parsed.success ? { kind: "signed", receipt: parsed.data as SignedReceipt } : { kind: "unreadable" };
}

/** A signature checked: the key that made it (an address for EIP-712, or a JWS key's DID) and what it signed, or why it does not hold. */
export type SignatureCheck<Payload> = { ok: true; signer: string; payload: Payload } | { ok: false; problem: string };

export function checkOfferSignature(offer: SignedOffer): Promise<SignatureCheck<OfferPayload>> {
  return offer.format === "eip712"
    ? checkEip712(() => verifyOfferSignatureEIP712(offer))
    : checkJws(offer.signature, offerPayloadSchema, (key) => verifyOfferSignatureJWS(offer, key));
}

export function checkReceiptSignature(receipt: SignedReceipt): Promise<SignatureCheck<ReceiptPayload>> {
  return receipt.format === "eip712"
    ? checkEip712(() => verifyReceiptSignatureEIP712(receipt))
    : checkJws(receipt.signature, receiptPayloadSchema, (key) => verifyReceiptSignatureJWS(receipt, key));
}

async function checkEip712<Payload>(verify: () => Promise<{ signer: string; payload: Payload }>): Promise<SignatureCheck<Payload>> {
  try {
    const { signer, payload } = await verify();
    return { ok: true, signer, payload };
  } catch {
    return { ok: false, problem: "its signature is not a valid EIP-712 signature" };
  }
}

type JwsKey = Awaited<ReturnType<typeof extractPublicKeyFromKid>>;

async function checkJws<Payload>(jws: string, schema: z.ZodType, verify: (key: JwsKey) => Promise<unknown>): Promise<SignatureCheck<Payload>> {
  let kid: string | undefined;
  try {
    kid = extractJWSHeader(jws).kid;
  } catch {
    return { ok: false, problem: "its JWS header cannot be read" };
  }
  if (typeof kid !== "string" || kid.length === 0 || kid.length > 2_048) return { ok: false, problem: "its JWS names no key" };
  // Only keys that travel inside their DID: anything else would be fetched from where the service says.
  if (!/^did:(key|jwk):/.test(kid)) return { ok: false, problem: "its signing key would have to be fetched from an address the service names, which this agent does not do" };
  let payload: unknown;
  try {
    payload = await verify(await extractPublicKeyFromKid(kid));
  } catch {
    return { ok: false, problem: "its JWS signature does not verify against the key it names" };
  }
  const parsed = schema.safeParse(payload);
  if (!parsed.success) return { ok: false, problem: "what it signed is not in the extension's form" };
  return { ok: true, signer: kid, payload: parsed.data as Payload };
}
