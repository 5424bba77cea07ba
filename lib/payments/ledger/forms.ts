// The JSON columns' forms (`payments.outcome`, `payments.receipt`): what a mark writes, and what
// a row is read back as through its schema.
import { z } from "zod";
import { signedOfferSchema, signedReceiptSchema } from "@/lib/x402/offer-receipt-forms";
import { paymentFailureCodes, paymentStages, receiptStatuses, type PaymentFacts, type PaymentUpdate } from "../payment";

// The JSON columns' shapes, one schema each, beside the marks that write them: a row is read back
// through its schema, so that one written by an older version, or changed by hand, is read for
// what it can be shown to be and nothing more. Built once; a row without them (a new reservation)
// is not parsed at all.

/** What a service's signed receipt came to, as the page and the agent are told (ReceiptSummary). */
const receiptSummaryShape = {
  status: z.enum(receiptStatuses),
  signer: z.string().optional(),
  reason: z.string().optional(),
};

/**
 * A payment's last update as the ledger keeps it (`payments.outcome`), to tell it again when the
 * same approval comes back: the parts that are not the payment's facts, under the names rows have
 * always held them. Without a stage of the flow it tells nothing; a detail that is not in its form
 * is left out and the rest is told.
 */
const recordedUpdateSchema = z.object({
  status: z.enum(paymentStages),
  reason: z.object({ code: z.enum(paymentFailureCodes), message: z.string() }).optional().catch(undefined),
  txHash: z.string().optional().catch(undefined),
  explorerUrl: z.string().optional().catch(undefined),
  collectableUntil: z
    .string()
    .refine((text) => !Number.isNaN(Date.parse(text)))
    .optional()
    .catch(undefined),
  receipt: z.object(receiptSummaryShape).optional().catch(undefined),
  /** Settled by what the chain showed after the person was told it had not moved (markSettled's `late`). */
  collectedLate: z.literal(true).optional().catch(undefined),
});

export type RecordedUpdate = z.infer<typeof recordedUpdateSchema>;

/**
 * A receipt as the ledger keeps it (`payments.receipt`, written by markSettled): what the service
 * sent, and what it came to (lib/payments/receipt.ts judges it).
 */
const storedReceiptSchema = z.object({
  ...receiptSummaryShape,
  format: z.enum(["eip712", "jws"]).optional(),
  /** Why the signing key speaks for the service: it is the payee's, or it signed the service's offer. */
  binding: z.enum(["pay-to", "offer"]).optional(),
  /** The signed receipt as received (the fields its signature covers). */
  signed: signedReceiptSchema.optional(),
  /** The signed offer it was held to. */
  offer: signedOfferSchema.optional(),
  checkedAt: z.string(),
});

export type StoredReceipt = z.infer<typeof storedReceiptSchema>;

export function readOutcome(value: unknown): RecordedUpdate | null {
  if (value === null) return null;
  const parsed = recordedUpdateSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/**
 * A kept receipt, or null when the service gave none. One that is not in the form markSettled
 * writes cannot be shown to be what was judged: it is told as unverified, never as proof.
 */
export function readReceipt(value: unknown): StoredReceipt | null {
  if (value === null) return null;
  const parsed = storedReceiptSchema.safeParse(value);
  return parsed.success ? parsed.data : { status: "unverified", reason: "the receipt kept with this payment could not be read", checkedAt: new Date().toISOString() };
}

/** What a payment ended with, as a mark records it: its last update (kept in its recorded form). */
export type Outcome = PaymentUpdate | Partial<RecordedUpdate> | undefined;

export function storedOutcome(outcome: Outcome): Partial<RecordedUpdate> | undefined {
  return outcome && "facts" in outcome ? recordedForm(outcome) : outcome;
}

function recordedForm(update: PaymentUpdate | undefined): RecordedUpdate | undefined {
  if (!update) return undefined;
  return {
    status: update.stage,
    ...(update.reason ? { reason: update.reason } : {}),
    ...(update.txHash ? { txHash: update.txHash } : {}),
    ...(update.explorerUrl ? { explorerUrl: update.explorerUrl } : {}),
    ...(update.collectableUntil ? { collectableUntil: update.collectableUntil.toISOString() } : {}),
    ...(update.receipt ? { receipt: update.receipt } : {}),
  };
}

/** The recorded last update of a payment, told again with its facts; undefined when none was recorded. */
export function recordedUpdate(facts: PaymentFacts, outcome: RecordedUpdate | null): PaymentUpdate | undefined {
  if (!outcome) return undefined;
  const { status, reason, txHash, explorerUrl, collectableUntil, receipt } = outcome;
  return {
    facts,
    stage: status,
    ...(reason ? { reason } : {}),
    ...(txHash !== undefined ? { txHash } : {}),
    ...(explorerUrl !== undefined ? { explorerUrl } : {}),
    ...(collectableUntil !== undefined ? { collectableUntil: new Date(collectableUntil) } : {}),
    ...(receipt ? { receipt } : {}),
  };
}
