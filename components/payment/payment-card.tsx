// One payment's latest status (`p:` lines, SPEC section 3) as a small card: which service, how
// far the payment got, what it costs and where it settled. Amounts are the server's decimal
// strings, shown as they are: the page never does arithmetic on money. Approving a quote from
// the page belongs to the wallet issue; this card only reports.
import { safeLink } from "@/lib/client/safe-link";
import type { PaymentStatus, PaymentStatusName } from "@/lib/protocol/lines";
import styles from "./payment-card.module.css";

const statusLabels: Record<PaymentStatusName, string> = {
  checking: "Checking",
  "awaiting-signature": "Waiting for your approval",
  submitted: "Submitted",
  confirmed: "Confirmed on chain",
  delivered: "Delivered",
  failed: "Failed",
};

type Tone = "progress" | "attention" | "success" | "failure";
const statusTones: Record<PaymentStatusName, Tone> = {
  checking: "progress",
  "awaiting-signature": "attention",
  submitted: "progress",
  confirmed: "success",
  delivered: "success",
  failed: "failure",
};

export function PaymentCard({ payment }: { payment: PaymentStatus }) {
  const { amount } = payment;
  const explorer = safeLink(payment.explorerUrl);
  const expiresAt = payment.status === "awaiting-signature" ? readableTime(payment.approval?.expiresAt) : undefined;
  return (
    <article
      className={styles.card}
      data-testid="payment-card"
      data-payment-id={payment.paymentId}
      data-status={payment.status}
      aria-label={`Payment to ${payment.service.name}: ${statusLabels[payment.status]}`}
    >
      <header className={styles.header}>
        <h3 className={styles.service}>{payment.service.name}</h3>
        <span className={styles.status} data-tone={statusTones[payment.status]} data-testid="payment-status">
          {statusLabels[payment.status]}
        </span>
      </header>
      <dl className={styles.details}>
        <dt>Total</dt>
        <dd data-testid="payment-total">
          {amount.total} {amount.currency} <span className={styles.muted}>(${amount.usd})</span>
        </dd>
        <dt>Service fee</dt>
        <dd>
          {amount.serviceFee} {amount.currency}
        </dd>
        <dt>Gas fee</dt>
        <dd>
          {amount.gasFee} {amount.currency}
        </dd>
        <dt>Network</dt>
        <dd>
          {payment.chain} <span className={styles.muted}>({payment.network})</span>
        </dd>
        {payment.txHash ? (
          <>
            <dt>Transaction</dt>
            <dd className={styles.hash}>
              {explorer ? (
                <a href={explorer} target="_blank" rel="noopener noreferrer" data-testid="payment-tx-link">
                  {shortHash(payment.txHash)}
                </a>
              ) : (
                <span title={payment.txHash}>{shortHash(payment.txHash)}</span>
              )}
            </dd>
          </>
        ) : null}
      </dl>
      {expiresAt ? (
        <p className={styles.note}>
          Signing in the page is not available yet. This quote expires at {expiresAt}.
        </p>
      ) : null}
      {payment.status === "failed" && payment.reason ? (
        <p className={styles.reason} role="alert" data-testid="payment-reason" data-code={payment.reason.code}>
          {payment.reason.message} No service fee was charged.
        </p>
      ) : null}
      {payment.warnings && payment.warnings.length > 0 ? (
        <ul className={styles.warnings}>
          {payment.warnings.map((warning) => (
            <li key={warning}>{warning}</li>
          ))}
        </ul>
      ) : null}
    </article>
  );
}

function shortHash(hash: string): string {
  return hash.length > 14 ? `${hash.slice(0, 8)}…${hash.slice(-6)}` : hash;
}

function readableTime(iso: string | undefined): string | undefined {
  if (!iso) return undefined;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? undefined : date.toLocaleTimeString();
}
