// Signed offers and receipts (x402 `offer-receipt`), judged for one payment. At quote time the
// service's signed offer for the terms quoted is found and checked; after the payment settled,
// the receipt its answer carries is checked against that offer and against the payment itself.
// A receipt is `verified` only when every check holds: its signature, a signing key that speaks
// for the service (the payee's own key, as the spec's simplest binding has it, or the key that
// signed the service's offer for these terms), and what it says: this payer, this network, this
// resource, this transaction where it names one, issued around the payment, for an offer that
// itself verified. Anything less is kept as `unverified` with the reason, and never presented
// as proof (docs/contract.md, section 3). The amount is not in a receipt: it is in the offer,
// which must be for exactly the amount paid, and the chain backs the payment itself.
import { caseKey, sameAddress } from "@/lib/address";
import { cleanText } from "@/lib/text";
import {
  checkOfferSignature,
  checkReceiptSignature,
  declaresOfferReceipt,
  readSignedOffers,
  type DecodedOffer,
  type ReadReceipt,
  type SignedOffer,
} from "@/lib/x402/offer-receipt";
import type { PaymentRequired } from "@x402/core/types";
import type { StoredReceipt } from "./ledger";
import type { ReceiptSummary } from "./payment";
import type { PayableRequirement } from "./rails/rail";

/** How far a receipt's `issuedAt` may stray from the payment's own time (clocks differ). */
const RECEIPT_CLOCK_SKEW_SECONDS = 300;

/**
 * The service's signed offer for the terms quoted, as checked at quote time; it travels in the
 * approval token (lib/payments/approval-token.ts) so the receipt can be held to it.
 */
export type CheckedOffer = {
  /** The offer as received; absent when none of the service's offers is for the terms quoted. */
  signed?: SignedOffer;
  /** The key that signed it, when its signature holds. */
  signer?: string;
  /** Why it is not to be relied on, when it is not. */
  problem?: string;
};

/**
 * The offer of a 402 for the option quoted, checked: undefined when the service does not declare
 * `offer-receipt`. The offer must be signed, for the resource called, still valid, and for
 * exactly the scheme, network, asset, payee and amount quoted.
 */
export async function checkOffer({
  paymentRequired,
  quoted,
  resourceUrl,
  now = new Date(),
}: {
  paymentRequired: PaymentRequired;
  quoted: Pick<PayableRequirement, "requirements" | "network" | "amount" | "asset" | "payTo">;
  /** The URL this agent called for it. */
  resourceUrl: string;
  now?: Date;
}): Promise<CheckedOffer | undefined> {
  if (!declaresOfferReceipt(paymentRequired)) return undefined;
  const offer = readSignedOffers(paymentRequired).find((candidate) => offerIsFor(candidate, quoted));
  if (!offer) return { problem: "none of its signed offers is for the terms quoted" };
  const signed = offer.signedOffer;
  const checked = await checkOfferSignature(signed);
  if (!checked.ok) return { signed, problem: checked.problem };
  const problem = !sameResource(checked.payload.resourceUrl, resourceUrl)
    ? `it is for another resource (${cleanText(checked.payload.resourceUrl, 80)})`
    : checked.payload.validUntil > 0 && checked.payload.validUntil < Math.floor(now.getTime() / 1000)
      ? `it expired at ${new Date(checked.payload.validUntil * 1000).toISOString()}`
      : undefined;
  return { signed, signer: checked.signer, ...(problem ? { problem } : {}) };
}

function offerIsFor(offer: DecodedOffer, quoted: Pick<PayableRequirement, "requirements" | "network" | "amount" | "asset" | "payTo">): boolean {
  return (
    offer.network === quoted.network.id &&
    offer.scheme === quoted.requirements.scheme &&
    sameAddress(offer.asset, quoted.asset) &&
    sameAddress(offer.payTo, quoted.payTo) &&
    /^\d{1,78}$/.test(offer.amount) &&
    BigInt(offer.amount) === quoted.amount
  );
}

/**
 * The same resource: one origin and path. The query is left out: the x402 packages sign an offer
 * for the 402's resource URL and a receipt for the URL as it was requested, query included.
 */
export function sameResource(a: string, b: string): boolean {
  try {
    const [left, right] = [new URL(a), new URL(b)];
    return left.origin === right.origin && left.pathname === right.pathname;
  } catch {
    return false;
  }
}

/** What a receipt for this payment must say, and who may sign it. */
export type ReceiptExpectation = {
  /** The address whose authorization paid (the wallet, or its agent budget's session key). */
  payer: string;
  /** CAIP-2. */
  network: string;
  /** The URL this agent called. */
  resourceUrl: string;
  payTo: string;
  /** The transaction the chain shows paying it. */
  txHash: string;
  /** When the payment was reserved: a receipt issued well before is not for it. */
  paidAfter: Date;
  /** The offer checked at quote time, when the service declared `offer-receipt`. */
  offer?: CheckedOffer;
};

/**
 * Judges the receipt of a paid answer: undefined when there is none, else verified or unverified
 * with the reason. Never throws.
 */
export async function judgeReceipt(read: ReadReceipt, expected: ReceiptExpectation, now: Date = new Date()): Promise<StoredReceipt | undefined> {
  if (read.kind === "none") return undefined;
  const base = { checkedAt: now.toISOString(), ...(expected.offer?.signed ? { offer: expected.offer.signed } : {}) };
  const unverified = (reason: string, extra: Partial<StoredReceipt> = {}): StoredReceipt => ({ status: "unverified", reason, ...extra, ...base });
  if (read.kind === "unreadable") return unverified("the service's receipt is not in a form this agent reads");
  const { receipt } = read;
  const kept = { format: receipt.format, signed: receipt };
  try {
    const checked = await checkReceiptSignature(receipt);
    if (!checked.ok) return unverified(checked.problem, kept);
    const { signer, payload } = checked;
    const offer = expected.offer;
    const binding =
      receipt.format === "eip712" && sameAddress(signer, expected.payTo)
        ? "pay-to"
        : offer?.signer !== undefined && offer.signed?.format === receipt.format && sameKey(signer, offer.signer)
          ? "offer"
          : undefined;
    const signedBy = { ...kept, signer };
    if (!binding) return unverified(`it is signed by ${shortKey(signer)}, a key that is neither the payee's nor the one that signed the service's offer`, signedBy);
    if (offer?.problem) return unverified(`the service's signed offer did not verify: ${offer.problem}`, signedBy);
    const mismatch = contentMismatch(payload, expected, now);
    if (mismatch) return unverified(mismatch, signedBy);
    return { status: "verified", ...signedBy, binding, ...base };
  } catch {
    return unverified("it could not be checked", kept);
  }
}

/** What in a correctly signed receipt does not fit this payment, if anything. */
function contentMismatch(
  payload: { network: string; resourceUrl: string; payer: string; issuedAt: number; transaction?: string | undefined },
  expected: ReceiptExpectation,
  now: Date,
): string | undefined {
  if (payload.network !== expected.network) return `it is for another network (${cleanText(payload.network, 40)})`;
  if (!sameAddress(payload.payer, expected.payer)) return `it names another payer (${shortKey(cleanText(payload.payer, 128))})`;
  if (!sameResource(payload.resourceUrl, expected.resourceUrl)) return `it is for another resource (${cleanText(payload.resourceUrl, 80)})`;
  if (payload.transaction && caseKey(payload.transaction) !== caseKey(expected.txHash)) {
    return `it names another transaction (${shortKey(cleanText(payload.transaction, 128))})`;
  }
  const seconds = (date: Date) => Math.floor(date.getTime() / 1000);
  if (payload.issuedAt < seconds(expected.paidAfter) - RECEIPT_CLOCK_SKEW_SECONDS) return "it was issued before this payment was made";
  if (payload.issuedAt > seconds(now) + RECEIPT_CLOCK_SKEW_SECONDS) return "it is dated in the future";
  return undefined;
}

/** One key: EVM addresses in any case, a DID exactly. */
function sameKey(a: string, b: string): boolean {
  return caseKey(a) === caseKey(b);
}

function shortKey(key: string): string {
  return key.length > 14 ? `${key.slice(0, 6)}…${key.slice(-4)}` : key;
}

/** What a person is told of a kept receipt. */
export function summaryOf(receipt: Pick<StoredReceipt, "status" | "signer" | "reason">): ReceiptSummary {
  return {
    status: receipt.status,
    ...(receipt.signer ? { signer: receipt.signer } : {}),
    ...(receipt.status === "unverified" && receipt.reason ? { reason: receipt.reason } : {}),
  };
}
