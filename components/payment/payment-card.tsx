"use client";
// One payment's latest status (`p:` lines, SPEC section 3) as a small card: which service, how
// far the payment got, what it costs and where it settled. Amounts are the server's decimal
// strings, shown as they are: the page never does arithmetic on money. A quote waiting for a
// signature offers Approve and Reject (SPEC section 4) when the chat hands the card its actions.
import { useEffect, useState } from "react";
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

/** What the chat lets a card do with a quote. */
export type PaymentActions = {
  /** A wallet is there to sign. */
  canSign: boolean;
  /** A reply is streaming or an approval is under way: no second one may start. */
  busy: boolean;
  /** The paymentId being approved right now, if any. */
  approving: string | undefined;
  approve: (payment: PaymentStatus) => void;
  reject: (paymentId: string) => void;
};

export function PaymentCard({ payment, actions }: { payment: PaymentStatus; actions?: PaymentActions | undefined }) {
  const { amount } = payment;
  const explorer = safeLink(payment.explorerUrl);
  const awaiting = payment.status === "awaiting-signature";
  const expiresAt = awaiting ? readableTime(payment.approval?.expiresAt) : undefined;
  const expired = useExpired(awaiting ? payment.approval?.expiresAt : undefined);
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
        {awaiting ? (
          <>
            <dt>Service</dt>
            <dd className={styles.hash} data-testid="payment-service-url">
              {payment.service.url}
            </dd>
            <dt>Pay to</dt>
            <dd className={styles.hash} data-testid="payment-pay-to">
              {payment.payTo}
            </dd>
            {expiresAt ? (
              <>
                <dt>Expires</dt>
                <dd data-testid="payment-expiry">
                  {expired ? <strong className={styles.expired}>Expired</strong> : <>at {expiresAt}</>}
                </dd>
              </>
            ) : null}
          </>
        ) : null}
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
      {awaiting && actions ? <ApprovalButtons payment={payment} actions={actions} expired={expired} /> : null}
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

function ApprovalButtons({ payment, actions, expired }: { payment: PaymentStatus; actions: PaymentActions; expired: boolean }) {
  const inFlight = actions.approving === payment.paymentId;
  const canApprove = actions.canSign && !actions.busy && !expired && payment.approval !== undefined;
  const hint = expired
    ? "This quote has expired. Ask again for a new one."
    : !actions.canSign
      ? "Connect a wallet to approve"
      : inFlight
        ? "Signing and paying…"
        : undefined;
  return (
    <div className={styles.approval}>
      <div className={styles.buttons}>
        <button
          type="button"
          className={styles.approve}
          data-testid="approve-payment"
          disabled={!canApprove}
          onClick={() => actions.approve(payment)}
        >
          Approve and pay
        </button>
        <button
          type="button"
          className={styles.reject}
          data-testid="reject-payment"
          disabled={actions.busy}
          onClick={() => actions.reject(payment.paymentId)}
        >
          Reject
        </button>
      </div>
      {hint ? (
        <p className={styles.note} data-testid="approval-hint">
          {hint}
        </p>
      ) : null}
    </div>
  );
}

/** Whether an ISO time has passed, turning true by itself when it does. */
function useExpired(iso: string | undefined): boolean {
  const at = iso ? new Date(iso).getTime() : Number.NaN;
  const [passed, setPassed] = useState(() => Number.isFinite(at) && at <= Date.now());
  useEffect(() => {
    if (!Number.isFinite(at)) {
      setPassed(false);
      return;
    }
    const left = at - Date.now();
    setPassed(left <= 0);
    if (left <= 0) return;
    // setTimeout's delay is a 32-bit number of milliseconds; a quote never lives that long.
    const timer = window.setTimeout(() => setPassed(true), Math.min(left, 2_147_483_647));
    return () => window.clearTimeout(timer);
  }, [at]);
  return Number.isFinite(at) && passed;
}

function shortHash(hash: string): string {
  return hash.length > 14 ? `${hash.slice(0, 8)}…${hash.slice(-6)}` : hash;
}

function readableTime(iso: string | undefined): string | undefined {
  if (!iso) return undefined;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? undefined : date.toLocaleTimeString();
}
