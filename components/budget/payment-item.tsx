// One settled payment as the budget lists it: the service, the amount, when, and its
// transaction's link; "agent budget" when the session key paid it; and what the service's signed
// receipt came to, where the list has it.
import { formatLocalTime, parseMoment, receiptWords, shortHex } from "@/components/payment/payment-display";
import type { ReceiptSummary } from "@/lib/payments/payment";
import { displayUsd } from "@/lib/client/settings";
import { safeLink } from "@/lib/client/safe-link";
import styles from "./budget-panel.module.css";

export type ListedPayment = {
  paymentId: string;
  service: { name: string };
  amountUsd: string;
  txHash: string;
  explorerUrl?: string | undefined;
  settledAt: string;
  paidFrom?: "agent-budget";
  /** The network's name, where the list says it. */
  chain?: string;
  /** The service's signed receipt, where the list says it (the history does). */
  receipt?: ReceiptSummary;
  /** Collected after the person was told it had not moved, and why it is listed (the history says it). */
  collectedLate?: { note: string };
  /** Usage-priced: "up to $0.02, charged $0.0015" (the history says it). */
  upTo?: string;
  /** A pay-as-you-go channel's deposit (the history says it): its calls, and what came back at the close. */
  channel?: { depositUsd: string; calls: unknown[]; returned?: { usd: string; explorerUrl: string } };
};

export function PaymentItem({ payment, testId = "budget-payment" }: { payment: ListedPayment; testId?: string }) {
  const link = safeLink(payment.explorerUrl);
  const settledAt = parseMoment(payment.settledAt);
  return (
    <li className={styles.payment} data-testid={testId}>
      <span className={styles.paymentName}>{payment.service.name}</span>
      <span className={styles.paymentAmount}>{displayUsd(payment.amountUsd)}</span>
      <span className={styles.paymentMeta}>
        {payment.paidFrom === "agent-budget" ? <span data-testid="budget-payment-from-agent">agent budget · </span> : null}
        {payment.chain ? `${payment.chain} · ` : null}
        {settledAt ? <time dateTime={payment.settledAt}>{formatLocalTime(settledAt)}</time> : null}
        {link ? (
          <>
            {settledAt ? " · " : null}
            <a href={link} target="_blank" rel="noopener noreferrer" title={payment.txHash} className={styles.txLink}>
              {shortHex(payment.txHash, 8, 4)}
              <span className={styles.visuallyHidden}> (transaction, opens in a new tab)</span>
            </a>
          </>
        ) : null}
      </span>
      {typeof payment.upTo === "string" ? (
        <span className={styles.paymentReceipt} data-testid="payment-up-to">
          Usage-priced: {payment.upTo}
        </span>
      ) : null}
      {payment.collectedLate ? (
        <span className={styles.paymentReceipt} data-testid="payment-collected-late">
          Collected later: {payment.collectedLate.note}
        </span>
      ) : null}
      {payment.channel && typeof payment.channel.depositUsd === "string" && Array.isArray(payment.channel.calls) ? (
        <span className={styles.paymentReceipt} data-testid="payment-channel-deposit">
          {depositWords(payment.channel)}
          {payment.channel.returned && safeLink(payment.channel.returned.explorerUrl) ? (
            <>
              {" "}
              <a href={safeLink(payment.channel.returned.explorerUrl)} target="_blank" rel="noopener noreferrer">
                (its transaction)
              </a>
            </>
          ) : null}
        </span>
      ) : null}
      {payment.receipt ? (
        <span className={styles.paymentReceipt} data-testid="payment-receipt" data-receipt={payment.receipt.status} title={payment.receipt.signer}>
          {receiptWords(payment.receipt)}
        </span>
      ) : null}
    </li>
  );
}

/** A deposit in the history: how much, how many calls it paid, and what came back. */
function depositWords(channel: NonNullable<ListedPayment["channel"]>): string {
  const calls = channel.calls.length;
  const back = channel.returned && typeof channel.returned.usd === "string" ? `; ${displayUsd(channel.returned.usd)} came back` : "; the rest comes back when you close it";
  return `A deposit of ${displayUsd(channel.depositUsd)}: ${calls} call${calls === 1 ? "" : "s"} paid from it${back}.`;
}
