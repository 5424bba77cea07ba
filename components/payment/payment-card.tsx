"use client";
// One payment's latest status (`p:` lines, docs/contract.md, section 3) as a small card: which service, a
// stepper through the payment flow, what it costs and where it settled, and for a failure what
// happened in plain words and whether money moved ("Paid means paid"). Amounts are the server's
// decimal strings, shown as they are: the page never does arithmetic on money. A quote waiting
// for a signature offers Approve and Reject (docs/contract.md, section 4) when the chat hands the card its
// actions, with a live countdown to the quote's deadline. Delivered, it says what the service's
// signed receipt came to, if it gave one. Times are the person's locale's. What a person decides
// by stays in view (the total, the network, the deadline, the buttons, which stick to the bottom
// of the conversation while the card is taller than it); the fees, the protocol and the addresses
// are folded under Details. A payment the person turned down reads "Declined", quietly: it is
// their choice, not a failure.
import { useEffect, useState } from "react";
import { CopyButton } from "@/components/shared/copy-button";
import { safeLink } from "@/lib/client/safe-link";
import { optionalRequestOf, requestsOf, type WalletFallback } from "@/lib/client/wallet-requests";
import { dollarsOf } from "@/lib/money";
import type { PaymentStatus, PaymentStatusName } from "@/lib/protocol/lines";
import { formatCountdown, formatLocalTime, localizeIsoTimes, quoteDeadline, quoteExpired, receiptWords, serviceAddressParts, shortHex } from "./payment-display";
import { explainFailure } from "./payment-failure";
import { paymentSteps, stepIndex, stepLabels, type PaymentStep } from "./payment-progress";
import styles from "./payment-card.module.css";

const statusLabels: Record<PaymentStatusName, string> = { ...stepLabels, failed: "Failed" };

type Tone = "progress" | "attention" | "success" | "failure" | "quiet";
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
  /** The wallet has not loaded yet: approving waits for it. */
  walletLoading?: boolean;
  /** A reply is streaming or an approval is under way: no second one may start. */
  busy: boolean;
  /** The paymentId being approved right now, if any. */
  approving: string | undefined;
  approve: (payment: PaymentStatus, options?: ApproveOptions) => void;
  reject: (paymentId: string) => void;
  /** Above the person's confirmation threshold: they confirm in the page before the wallet opens. */
  confirmRequired?: boolean;
  /** The wallet address that pays. */
  payingFrom?: string;
  /** The paying wallet's USDC balance on the quote's network, as a decimal string. */
  balance?: string;
  /** The wallet is on another chain than the quote's: approving switches to this one first. */
  wrongChain?: { name: string };
  /**
   * Does once, with the wallet, what a quote's optional request or a failure's remedy offers
   * (approve a token's spender; the person pays the gas). Resolves once it is mined.
   */
  approveInstead?: (payment: PaymentStatus, fallback: WalletFallback) => Promise<void>;
};

/** How the person approves: `skip`, the quote's optional requests they did otherwise, which the wallet is then not asked for. */
export type ApproveOptions = { skip?: number[] };

// Under a minute left, the countdown is marked and announced once.
const LAST_MINUTE_MS = 60_000;

export function PaymentCard({ payment, actions }: { payment: PaymentStatus; actions?: PaymentActions | undefined }) {
  const { amount } = payment;
  const explorer = safeLink(payment.explorerUrl);
  const furthest = useFurthestStep(payment.status);
  const deadline = quoteDeadline(payment);
  const now = useNow(deadline);
  const msLeft = deadline !== undefined ? deadline - now : undefined;
  // A quote that ran out while it waited is over, as the server will say: shown as that failure,
  // with nothing left to approve or reject.
  const expired = quoteExpired(payment, now);
  const shown: PaymentStatus = expired ? { ...payment, status: "failed", reason: { code: "expired", message: "The quote ran out before it was approved." } } : payment;
  const awaiting = shown.status === "awaiting-signature";
  const steps = paymentSteps(shown, furthest);
  const formatTime = (at: Date) => formatLocalTime(at, new Date(now));
  const failure = shown.status === "failed" ? explainFailure(shown, formatTime) : undefined;
  // Delivered, and the chain has not settled the signed maximum yet: it stays held until its window ends.
  const held = payment.status === "delivered" && payment.collectableUntil ? new Date(payment.collectableUntil) : undefined;
  // Turned down by the person: said as their choice, without the alarm of a failure.
  const declined = shown.status === "failed" && shown.reason?.code === "rejected";
  // Stopped by the person's own limit before anything was sent: the limit working, not a failure.
  const overLimit = shown.status === "failed" && shown.reason?.code === "limit-exceeded" && !shown.txHash;
  // Turned down, run out or over a limit: the person's choice, their time or their rule, without the alarm of a failure.
  const quiet = declined || overLimit || shown.reason?.code === "expired";
  const label = declined ? "Declined" : overLimit ? "Over your limit" : expired ? "Expired" : statusLabels[shown.status];
  return (
    <article
      className={styles.card}
      data-testid="payment-card"
      data-payment-id={payment.paymentId}
      data-status={payment.status}
      aria-label={`Payment to ${payment.service.name}: ${label}`}
    >
      <header className={styles.header}>
        <h3 className={styles.service}>{payment.service.name}</h3>
        <span className={styles.status} data-tone={quiet ? "quiet" : statusTones[shown.status]} data-testid="payment-status">
          {label}
        </span>
      </header>
      <PaymentSteps steps={steps} failedNote={failure?.stepNote} quiet={quiet} />
      {payment.paidFrom === "agent-budget" ? (
        <p className={styles.note} data-testid="payment-paid-from">
          {awaiting
            ? "Paying from your agent budget: no wallet prompt needed."
            : shown.status === "failed"
              ? "From your agent budget."
              : "Paid from your agent budget, without a prompt."}
        </p>
      ) : null}
      {payment.channel ? (
        <p className={styles.note} data-testid="payment-channel" data-opening={payment.channel.opening}>
          {channelWords(payment, payment.channel)}
        </p>
      ) : null}
      {failure ? (
        <div className={styles.failure} role={quiet ? undefined : "alert"} data-paid={failure.paid} data-tone={quiet ? "quiet" : undefined}>
          <p className={styles.failureSummary} data-testid="payment-failure-summary">
            {failure.summary}
          </p>
          <p className={styles.reason} data-testid="payment-reason" data-code={shown.reason?.code}>
            {[shown.reason && !failure.saysReason ? localizeIsoTimes(shown.reason.message, formatTime) : "", failure.chargeNote]
              .filter((part) => part.length > 0)
              .join(" ")}
          </p>
          {payment.reason?.remedy && actions?.approveInstead ? (
            <RemedyOffer payment={payment} remedy={payment.reason.remedy} approveInstead={actions.approveInstead} />
          ) : null}
        </div>
      ) : null}
      <dl className={styles.details}>
        <dt>{payment.channel?.opening ? "Deposit" : amount.upTo ? "Up to" : "Total"}</dt>
        <dd data-testid="payment-total">
          {amount.total} {amount.currency} <span className={styles.muted}>({dollarsOf(amount.usd)})</span>
          {amount.upTo && amount.charged === undefined ? <span className={styles.muted}> the service charges what it uses, at most this</span> : null}
        </dd>
        {amount.typical !== undefined && amount.charged === undefined ? (
          <>
            <dt>Typically</dt>
            <dd data-testid="payment-typical">
              {amount.typical} {amount.currency} <span className={styles.muted}>(what the service says a usual request costs)</span>
            </dd>
          </>
        ) : null}
        {amount.charged !== undefined ? (
          <>
            <dt>Charged</dt>
            <dd data-testid="payment-charged">
              {amount.charged} {amount.currency}{" "}
              <span className={styles.muted}>
                (up to {dollarsOf(amount.usd)}, charged {dollarsOf(amount.charged)}
                {held ? " so far" : ""})
              </span>
            </dd>
          </>
        ) : null}
        {held ? (
          <>
            <dt>Held</dt>
            <dd data-testid="payment-held">
              {dollarsOf(amount.usd)} held until {formatTime(held)} unless the service collects it{" "}
              <span className={styles.muted}>(it counts against your limits until then; what it collects is counted and listed)</span>
            </dd>
          </>
        ) : null}
        <dt>Network</dt>
        <dd>
          {payment.chain} <span className={styles.muted}>({payment.network})</span>
          {payment.networkChoice ? (
            <span className={styles.networkChoice} data-testid="payment-network-choice">
              {payment.networkChoice}
            </span>
          ) : null}
        </dd>
        {awaiting && deadline !== undefined && msLeft !== undefined ? (
          <>
            <dt>Expires</dt>
            <dd data-testid="payment-expiry">
              {/* Ticks every second without being read out each time (see the status below). */}
              <span role="timer" aria-live="off" className={msLeft <= LAST_MINUTE_MS ? styles.lastMinute : styles.countdown}>
                in {formatCountdown(msLeft)}
              </span>{" "}
              <span className={styles.muted}>(at {formatTime(new Date(deadline))})</span>
            </dd>
          </>
        ) : null}
        {payment.txHash ? (
          <>
            <dt>Transaction</dt>
            <dd className={styles.hash}>
              {explorer ? (
                <a href={explorer} target="_blank" rel="noopener noreferrer" title={payment.txHash} data-testid="payment-tx-link">
                  {shortHex(payment.txHash, 8, 6)}
                </a>
              ) : (
                <span title={payment.txHash}>{shortHex(payment.txHash, 8, 6)}</span>
              )}
            </dd>
          </>
        ) : null}
      </dl>
      <details className={styles.more} data-testid="payment-details">
        <summary>Details</summary>
        <dl className={styles.details}>
          <dt data-testid="payment-service-fee-label">{amount.upTo ? "Service fee, at most" : "Service fee"}</dt>
          <dd>
            {amount.serviceFee} {amount.currency}
          </dd>
          <dt>Gas fee</dt>
          <dd>
            {amount.gasFee} {amount.currency}
          </dd>
          {payment.protocol ? (
            <>
              <dt>Protocol</dt>
              <dd data-testid="payment-protocol" data-protocol={payment.protocol}>
                {payment.protocolLabel ?? payment.protocol}
              </dd>
            </>
          ) : null}
          <dt>Service</dt>
          <dd className={styles.copyable}>
            <ServiceAddress url={payment.service.url} />
            <CopyButton text={payment.service.url} label="Copy service address" />
          </dd>
          {awaiting ? (
            <>
              <dt>Pay to</dt>
              <dd className={styles.copyable}>
                <LongValue value={payment.payTo} tail={4} data-testid="payment-pay-to" />
                <CopyButton text={payment.payTo} label="Copy pay-to address" />
              </dd>
            </>
          ) : null}
        </dl>
      </details>
      {payment.receipt ? (
        <p className={styles.receipt} data-testid="payment-receipt" data-receipt={payment.receipt.status} title={payment.receipt.signer}>
          {receiptWords(payment.receipt)}
        </p>
      ) : null}
      {awaiting ? (
        <p className="sr-only" role="status">
          {msLeft !== undefined && msLeft > 0 && msLeft <= LAST_MINUTE_MS ? "Less than a minute left to approve this payment." : ""}
        </p>
      ) : null}
      {payment.warnings && payment.warnings.length > 0 ? (
        <ul className={styles.warnings}>
          {payment.warnings.map((warning) => (
            <li key={warning}>{warning}</li>
          ))}
        </ul>
      ) : null}
      {/* Last: it sticks to the bottom of the conversation while the card is taller than it. */}
      {awaiting && actions ? <ApprovalPanel payment={payment} actions={actions} expiresIn={msLeft !== undefined && msLeft > 0 ? formatCountdown(msLeft) : undefined} /> : null}
    </article>
  );
}

const stepStateText: Record<PaymentStep["state"], string> = {
  done: "done",
  current: "in progress",
  failed: "stopped here",
  upcoming: "not reached",
};

function PaymentSteps({ steps, failedNote, quiet }: { steps: PaymentStep[]; failedNote: string | undefined; quiet: boolean }) {
  return (
    <ol className={styles.steps} aria-label="Payment progress" data-testid="payment-steps" data-quiet={quiet || undefined}>
      {steps.map((step, index) => (
        <li
          key={step.name}
          className={styles.step}
          data-state={step.state}
          data-step={step.name}
          aria-current={step.current ? "step" : undefined}
        >
          <span className={styles.marker} aria-hidden="true">
            {step.state === "done" ? "✓" : step.state === "failed" ? (quiet ? "–" : "✕") : index + 1}
          </span>
          <span className={styles.stepLabel}>
            {step.label}
            <span className="sr-only">: {quiet && step.state === "failed" ? `${(failedNote ?? "stopped").toLowerCase()} here` : stepStateText[step.state]}</span>
          </span>
          {step.state === "failed" ? <span className={styles.stepNote}>{failedNote ?? "Failed"}</span> : null}
        </li>
      ))}
    </ol>
  );
}

/** A long value shortened in the middle on screen; its text (to select, copy or hear) is whole. */
function LongValue({ value, tail, "data-testid": testId }: { value: string; tail: number; "data-testid": string }) {
  const cut = value.length > tail * 2 ? value.length - tail : value.length;
  return (
    <span className={styles.longValue} title={value} data-testid={testId}>
      <span className={styles.longHead}>{value.slice(0, cut)}</span>
      {cut < value.length ? <span className={styles.longTail}>{value.slice(cut)}</span> : null}
    </span>
  );
}

/**
 * A service's URL with its host and port whole (they say who is paid for what); only its path,
 * which can be long, is shortened on screen. Its text (to select, copy or hear) is whole.
 */
function ServiceAddress({ url }: { url: string }) {
  const parts = serviceAddressParts(url);
  return (
    <span className={styles.address} title={url} data-testid="payment-service-url">
      <span className={styles.addressHost}>
        {parts.scheme}
        <span data-testid="payment-service-host">{parts.host}</span>
      </span>
      {parts.rest ? <span className={styles.addressPath}>{parts.rest}</span> : null}
    </span>
  );
}

/**
 * A payment refused for want of something the wallet does once (approving a spender): offered in
 * place (one transaction, with its gas); then the person asks again.
 */
function RemedyOffer({ payment, remedy, approveInstead }: { payment: PaymentStatus; remedy: WalletFallback; approveInstead: NonNullable<PaymentActions["approveInstead"]> }) {
  const [state, setState] = useState<"idle" | "sending" | "done" | "failed">("idle");
  if (state === "done") {
    return (
      <p className={styles.reason} data-testid="remedy-done">
        Done: {remedy.label} went through. Ask again to pay.
      </p>
    );
  }
  return (
    <p className={styles.reason}>
      <button
        type="button"
        className={styles.approve}
        data-testid="remedy"
        disabled={state === "sending"}
        onClick={() => {
          setState("sending");
          approveInstead(payment, remedy).then(
            () => setState("done"),
            () => setState("failed"),
          );
        }}
      >
        {state === "sending" ? `${sentenceCase(remedy.label)}…` : `${sentenceCase(remedy.label)} (one transaction, with its gas)`}
      </button>
      {state === "failed" ? " It was not made; nothing was paid. Try again." : null}
    </p>
  );
}

function approveLabel(payment: PaymentStatus, actions: PaymentActions): string {
  const price = `${payment.amount.upTo ? "up to " : ""}${dollarsOf(payment.amount.usd)}`;
  if (payment.paidFrom === "agent-budget") return `Pay ${price} from the agent budget`;
  if (actions.wrongChain) return `Switch to ${actions.wrongChain.name} and pay${actions.confirmRequired ? ` ${price}` : ""}`;
  if (actions.confirmRequired) return `Confirm and pay ${price}`;
  return "Approve and pay";
}

function ApprovalPanel({ payment, actions, expiresIn }: { payment: PaymentStatus; actions: PaymentActions; expiresIn: string | undefined }) {
  const inFlight = actions.approving === payment.paymentId;
  // What the wallet is asked for, in order; one it may decline, having done what it offers instead.
  const requests = payment.paidFrom === "agent-budget" ? undefined : requestsOf(payment.approval);
  const optional = optionalRequestOf(requests);
  const [instead, setInstead] = useState<"idle" | "sending" | "done" | "failed">("idle");
  const skipped = optional !== undefined && instead === "done";
  const canApprove = (actions.canSign || actions.walletLoading === true) && !actions.busy && payment.approval !== undefined;
  // A wallet still loading is said on the wallet's own line (below), which its account then takes.
  const hint = actions.walletLoading
    ? undefined
    : !actions.canSign
      ? payment.paidFrom === "agent-budget"
        ? "This page no longer holds the agent budget this was quoted for. Ask again to pay from your wallet."
        : "Connect a wallet to approve"
      : inFlight
        ? "Signing and paying…"
        : undefined;
  const { amount } = payment;
  return (
    <div className={styles.approval}>
      {/* On a narrow card, where this panel covers the card's middle while it is taller than the
          pane, what the payment costs, where and until when, in one line beside the buttons (the
          card's own lines say it to a screen reader). */}
      <p className={styles.panelSummary} aria-hidden="true" data-testid="payment-panel-summary">
        <strong>
          {payment.channel?.opening ? "Deposit " : amount.upTo ? "Up to " : ""}
          {amount.total} {amount.currency}
        </strong>{" "}
        on {payment.chain}
        {expiresIn ? ` · expires in ${expiresIn}` : ""}
      </p>
      {actions.payingFrom || actions.balance !== undefined ? (
        <p className={styles.payer}>
          {actions.payingFrom ? (
            <span data-testid="payment-paying-from" title={actions.payingFrom}>
              Pays from <span className={styles.hash}>{shortHex(actions.payingFrom)}</span>
            </span>
          ) : null}
          {actions.balance !== undefined ? (
            <span data-testid="payment-balance">
              Balance {actions.balance} {payment.amount.currency}
            </span>
          ) : (
            // The balance's place, kept while it is read.
            <span aria-hidden="true">{"\u00a0"}</span>
          )}
        </p>
      ) : actions.walletLoading ? (
        // The wallet's line says so while a remembered wallet reconnects, and its account and
        // balance take the same room: their arrival moves neither the buttons under a person's
        // finger nor what follows.
        <p className={styles.payer} data-testid="payment-wallet-loading">
          <span>Your wallet is loading…</span>
          <span aria-hidden="true">{"\u00a0"}</span>
        </p>
      ) : null}
      {actions.confirmRequired ? (
        <p className={styles.note} data-testid="payment-confirm-note">
          This is above your confirmation threshold: check it, then confirm here before your wallet opens.
        </p>
      ) : null}
      <div className={styles.buttons}>
        <button
          type="button"
          className={styles.approve}
          data-testid="approve-payment"
          disabled={!canApprove}
          onClick={() => actions.approve(payment, skipped ? { skip: [optional.index] } : undefined)}
        >
          {approveLabel(payment, actions)}
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
      {requests && requests.length > 1 ? (
        <p className={styles.note} data-testid="payment-requests-note">
          {skipped
            ? `Done: ${optional.instead.label} went through. Your wallet now asks only for ${requests
                .filter((_, index) => index !== optional.index)
                .map((request) => request.purpose)
                .join(", then ")}.`
            : `Your wallet asks ${requests.length === 2 ? "twice" : `${requests.length} times`}: ${requests.map((request) => request.purpose).join(", then ")}.`}
          {optional && actions.approveInstead && !skipped ? (
            <>
              {" "}
              <button
                type="button"
                className={styles.reject}
                data-testid="approve-instead"
                title={optional.instead.note}
                disabled={instead === "sending" || actions.busy}
                onClick={() => {
                  setInstead("sending");
                  actions.approveInstead?.(payment, optional.instead).then(
                    () => setInstead("done"),
                    () => setInstead("failed"),
                  );
                }}
              >
                {instead === "sending" ? `${sentenceCase(optional.instead.label)}…` : `Or ${optional.instead.label} yourself instead (one transaction, with its gas)`}
              </button>
              {instead === "failed" ? " It was not made; nothing was paid." : null}
            </>
          ) : null}
        </p>
      ) : null}
      {hint ? (
        <p className={styles.note} data-testid="approval-hint">
          {hint}
        </p>
      ) : null}
    </div>
  );
}

/**
 * The furthest step of the flow this card has shown: a `failed` line does not say how far the
 * payment got, and the card has seen it go by.
 */
function useFurthestStep(status: PaymentStatusName): number {
  const index = stepIndex(status);
  const [furthest, setFurthest] = useState(index ?? 0);
  if (index !== undefined && index > furthest) setFurthest(index);
  return index !== undefined ? Math.max(index, furthest) : furthest;
}

/** The current time, ticking on each whole second left until `deadline`, and then stopping. */
function useNow(deadline: number | undefined): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (deadline === undefined) return;
    let timer: number | undefined;
    const tick = () => {
      const current = Date.now();
      setNow(current);
      const left = deadline - current;
      if (left <= 0) return;
      // Wake just after the next whole second left, so the display never skips one.
      timer = window.setTimeout(tick, (left % 1000 || 1000) + 15);
    };
    tick();
    return () => window.clearTimeout(timer);
  }, [deadline]);
  return now;
}

/** A fallback's label ("approve ...") opening a sentence. */
function sentenceCase(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** What a channel payment is, in the person's words: the deposit it opens, or the call it takes from it. */
function channelWords(payment: PaymentStatus, channel: NonNullable<PaymentStatus["channel"]>): string {
  const name = payment.service.name;
  const price = dollarsOf(channel.price);
  const left = dollarsOf(channel.left);
  if (channel.opening) {
    if (payment.status === "awaiting-signature" || payment.status === "checking") {
      return `Deposit ${dollarsOf(channel.deposit)} with ${name}: each call takes what it costs from it (${price} this one), signed in this page without a prompt. What is left comes back to you when you close it in Channels, or you can take it back yourself ${delayWords(channel.withdrawDelaySeconds)} after asking.`;
    }
    if (payment.status === "delivered") return `Deposited ${dollarsOf(channel.deposit)} with ${name}: this call took ${price}, and ${left} is left for the next ones. Close it in Channels to get the rest back.`;
    return `A deposit of ${dollarsOf(channel.deposit)} with ${name}.`;
  }
  if (payment.status === "awaiting-signature" || payment.status === "checking") return `From your deposit with ${name}: no wallet prompt needed (${left} left after this call).`;
  if (payment.status === "failed") return `From your deposit with ${name}.`;
  return `${price} from your deposit with ${name}, without a prompt (${left} left).`;
}

/** A withdrawal delay in words: "15 minutes", "7 days". */
function delayWords(seconds: number): string {
  const [unit, size] = seconds >= 2 * 86_400 ? ["day", 86_400] : seconds >= 2 * 3_600 ? ["hour", 3_600] : ["minute", 60];
  const count = Math.max(1, Math.round(seconds / size));
  return `${count} ${unit}${count === 1 ? "" : "s"}`;
}
