// Where a payment stands in its flow (docs/contract.md, section 3): the five steps a card shows, which are
// done, which one is current, and where a failed payment stopped. A `p:` line says only the
// latest status, so the step a failure happened at is read from its reason, its transaction
// and the furthest status the card has already shown.
import type { PaymentStatus, PaymentStatusName } from "@/lib/protocol/lines";

export type StepName = Exclude<PaymentStatusName, "failed">;
export type StepState = "done" | "current" | "failed" | "upcoming";
export type PaymentStep = { name: StepName; label: string; state: StepState; current: boolean };

export const stepOrder: readonly StepName[] = ["checking", "awaiting-signature", "submitted", "confirmed", "delivered"];

export const stepLabels: Record<StepName, string> = {
  checking: "Checking",
  "awaiting-signature": "Waiting for your approval",
  submitted: "Submitted",
  confirmed: "Confirmed on chain",
  delivered: "Delivered",
};

// The step each failure can happen at, at the earliest. Codes a newer server sends that this
// page does not know count from the first step.
const failedAtByCode: Record<string, number> = {
  "limit-exceeded": 0,
  "insufficient-balance": 0,
  "service-unavailable": 0,
  rejected: 1,
  expired: 1,
  "payment-failed": 2,
  "insufficient-gas": 2,
  "network-congestion": 2,
  // Sent to the service, not (yet) collected: it never reached the chain.
  "payment-pending": 3,
  // On chain, no data: everything but the delivery happened.
  "not-delivered": 4,
};

/** The index of a status in the flow; a failure has none of its own. */
export function stepIndex(status: PaymentStatusName): number | undefined {
  const index = stepOrder.indexOf(status as StepName);
  return index === -1 ? undefined : index;
}

/**
 * The steps of a payment as its card shows them. `furthest` is the index of the furthest
 * status the card has shown before (a failure happens at that step or after it).
 */
export function paymentSteps(
  payment: Pick<PaymentStatus, "status" | "txHash" | "reason" | "collectableUntil"> & { amount?: PaymentStatus["amount"]; channel?: PaymentStatus["channel"] },
  furthest = 0,
): PaymentStep[] {
  const reached = stepIndex(payment.status);
  if (reached !== undefined) {
    // Delivered with nothing settled on chain (a usage-priced service that says it used nothing):
    // the chain step is not ticked, and says whether the signed maximum is still held.
    const unsettled = payment.status === "delivered" && !payment.txHash && payment.amount?.charged !== undefined;
    // A call on a channel: the page's key signs it, and its money is the deposit's, already on chain.
    const fromDeposit = payment.channel?.opening === false;
    return stepOrder.map((name, index) => {
      if (fromDeposit && (name === "awaiting-signature" || name === "confirmed")) {
        const label = name === "confirmed" ? "From your deposit" : "Signed in this page";
        return { name, label, state: index < reached || payment.status === "delivered" ? ("done" as const) : index === reached ? ("current" as const) : ("upcoming" as const), current: index === reached };
      }
      if (unsettled && name === "confirmed") {
        return { name, label: payment.collectableUntil ? "Nothing settled yet" : "Nothing charged", state: "upcoming" as const, current: false };
      }
      return {
        name,
        label: stepLabels[name],
        // The last step, once reached, is as done as it will ever be.
        state: index < reached || (index === reached && name === "delivered") ? ("done" as const) : index === reached ? ("current" as const) : ("upcoming" as const),
        current: index === reached,
      };
    });
  }
  const code: string | undefined = payment.reason?.code;
  // Money moved once there is a transaction: everything up to the chain is done.
  const fromTx = payment.txHash ? 4 : 0;
  const fromCode = code !== undefined ? (failedAtByCode[code] ?? 0) : 0;
  const failedAt = Math.min(Math.max(fromCode, fromTx, furthest), stepOrder.length - 1);
  return stepOrder.map((name, index) => ({
    name,
    label: stepLabels[name],
    state: index < failedAt ? "done" : index === failedAt ? "failed" : "upcoming",
    current: index === failedAt,
  }));
}
