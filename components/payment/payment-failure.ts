// What a failed payment means for the person, in plain words, and whether money moved. "Paid
// means paid" (docs/contract.md, section 3): a failure with a transaction hash was paid; `payment-pending`
// may still be collected; only a failure without either charged nothing.
import type { PaymentStatus } from "@/lib/protocol/lines";
import { parseMoment } from "./payment-display";

export type FailureExplanation = {
  /** One sentence saying what happened. */
  summary: string;
  /** A word or two for the step it stopped at. */
  stepNote: string;
  /** What it cost: paid, reserved, or nothing. */
  chargeNote: string;
  /** Whether the summary already says what the reason's own message says (the card then leaves it out). */
  saysReason: boolean;
  /** Whether money moved (a transaction exists). */
  paid: boolean;
};

const plainWords: Record<string, { summary: string; stepNote: string; saysReason?: true }> = {
  "limit-exceeded": { summary: "Your spending limit stopped this payment before anything was sent.", stepNote: "Over a limit" },
  "insufficient-balance": { summary: "Your wallet does not hold enough USDC for this payment.", stepNote: "Not enough USDC" },
  "service-unavailable": { summary: "The service is not answering right now.", stepNote: "Service down" },
  "payment-failed": { summary: "The payment did not go through.", stepNote: "Failed" },
  // The page's own reason for it ("You declined this payment.") would say it twice.
  rejected: { summary: "You turned this payment down, so nothing was sent.", stepNote: "Declined", saysReason: true },
  // Whether the quote ran out on the card or a late approval reached the server after it, the
  // server's reason ("… Nothing was paid; ask again …") would say it twice.
  expired: { summary: "The quote ran out before it could be paid. Ask again for a new one.", stepNote: "Expired", saysReason: true },
  "insufficient-gas": { summary: "There is not enough gas to send this payment.", stepNote: "No gas" },
  "network-congestion": { summary: "The network is too busy right now, so the payment was not sent.", stepNote: "Network busy" },
  "not-delivered": { summary: "Paid, but the service did not deliver: the payment is on chain.", stepNote: "Not delivered" },
  "payment-pending": { summary: "Not collected yet: the service could still collect it.", stepNote: "Not collected yet" },
};

export const noChargeNote = "No service fee was charged.";

/** Fields a server may add to a pending failure to say until when it can be collected. */
type PendingFields = { collectableUntil?: unknown; validBefore?: unknown };

/** Until when a `payment-pending` payment can still be collected, when the line says. */
export function collectableUntil(payment: PaymentStatus): Date | undefined {
  const fields = payment as PaymentStatus & PendingFields;
  const reason = payment.reason as (PaymentStatus["reason"] & PendingFields) | undefined;
  for (const value of [fields.collectableUntil, fields.validBefore, reason?.collectableUntil, reason?.validBefore]) {
    const at = parseMoment(value);
    if (at) return at;
  }
  return undefined;
}

export function explainFailure(payment: PaymentStatus, formatTime: (at: Date) => string): FailureExplanation {
  const code: string = payment.reason?.code ?? "payment-failed";
  const words = plainWords[code] ?? { summary: "The payment did not go through.", stepNote: "Failed" };
  if (payment.txHash) {
    return {
      summary: code === "not-delivered" ? words.summary : "Paid on chain, but the payment did not complete.",
      stepNote: code === "not-delivered" ? words.stepNote : "Failed after paying",
      chargeNote: "The amount was paid and counts against your limits.",
      saysReason: false,
      paid: true,
    };
  }
  if (code === "payment-pending") {
    const until = collectableUntil(payment);
    return {
      summary: until
        ? `Not collected yet: the service could still collect it until ${formatTime(until)}.`
        : words.summary,
      stepNote: words.stepNote,
      chargeNote: until
        ? "The amount stays reserved against your limits until then."
        : "The amount stays reserved against your limits until it is collected or runs out.",
      saysReason: false,
      paid: false,
    };
  }
  return { ...words, chargeNote: noChargeNote, saysReason: words.saysReason ?? false, paid: false };
}
