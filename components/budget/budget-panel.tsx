"use client";
// The budget beside the chat: how much of the day's, week's and month's limits the connected
// wallet has spent (GET /api/spending, settled payments only, rolling periods), the per-payment
// cap, the wallet's USDC balance when known, and the recent payments with their transaction
// links; for the wallet's own session, what is held against the limits and not settled, with
// until when. Limits are the browser's; what is left is computed here in bigint micro-dollars.
//
//   <BudgetPanel wallet={address} limits={settings.spendingLimits} refreshKey={paymentsMade} balance="12.5" />
//
// The report is read again when `wallet` or `refreshKey` changes; a read that a newer one
// replaced is aborted. A 429 or a failure keeps the last report of that wallet on screen with
// a quiet note and a Try again button (a 429 also retries by itself after its Retry-After).
//
// Test ids: budget-panel, budget-meter-day|week|month (data-spent = the server's spentUsd, set
// once a report has arrived), budget-recent (the list), budget-payment (each item),
// budget-balance, budget-retry, budget-held (what is held), budget-held-payment (each),
// budget-held-day|week|month (a meter's held amount).
import { useEffect, useId, useState } from "react";
import { displayUsd, type SpendingLimitSettings } from "@/lib/client/settings";
import { formatLocalTime, parseMoment } from "@/components/payment/payment-display";
import { budgetMeters, readSpendingResponse, type BudgetPeriod, type HeldPayment, type SpendingReport } from "./budget-model";
import styles from "./budget-panel.module.css";
import { ChannelsList } from "./channels-list";
import { PaymentHistory } from "./payment-history";
import type { ChannelActions } from "./use-channel-actions";
import { PaymentItem } from "./payment-item";

export type BudgetPanelProps = {
  /** The connected wallet's address; undefined: nothing is read and the panel asks to connect. */
  wallet: string | undefined;
  /** The connected Solana wallet's address, if any: the limits count it with the other. */
  solanaWallet?: string | undefined;
  /** The person's limits (decimal USD strings), from useSettings().settings.spendingLimits. */
  limits: SpendingLimitSettings;
  /** Change it (e.g. count up) after a payment settles: the report is read again. */
  refreshKey: number;
  /** The wallet's USDC balance (a decimal string) on the network in use, when known. */
  balance?: string | undefined;
  /** Signs in with the wallet, so that its own payments can be listed; absent while it cannot sign. */
  signIn?: (() => Promise<void>) | undefined;
  /** Closing a pay-as-you-go channel, or taking its deposit back; absent without a wallet. */
  channelActions?: ChannelActions | undefined;
};

const periodText: Record<BudgetPeriod, { title: string; phrase: string }> = {
  day: { title: "Last 24 hours", phrase: "in the last 24 hours" },
  week: { title: "Last 7 days", phrase: "in the last 7 days" },
  month: { title: "Last 30 days", phrase: "in the last 30 days" },
};

/** A 429's own wait is honoured up to this; a longer one waits for the Try again button. */
const MAX_AUTO_RETRY_SECONDS = 60;

type Load = {
  state: "loading" | "ready" | "busy" | "failed";
  /** The last report read, and whose it is: another wallet's is never shown. */
  report?: { wallet: string; data: SpendingReport };
};

export function BudgetPanel({ wallet: evmWallet, solanaWallet, limits, refreshKey, balance, signIn, channelActions }: BudgetPanelProps) {
  // Whose report: the person's wallets, one per chain family, read together.
  const wallets = [evmWallet, solanaWallet].filter((value): value is string => value !== undefined);
  const wallet = wallets.length > 0 ? wallets.join(",") : undefined;
  const [load, setLoad] = useState<Load>({ state: "loading" });
  const [signing, setSigning] = useState<{ state: "idle" | "signing" } | { state: "failed"; message: string }>({ state: "idle" });
  const [attempt, setAttempt] = useState(0);
  const titleId = useId();

  useEffect(() => {
    if (!wallet) return;
    const controller = new AbortController();
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    setLoad((current) => ({ ...current, state: "loading" }));
    const query = wallet.split(",").map((one) => `wallet=${encodeURIComponent(one)}`).join("&");
    fetch(`/api/spending?${query}`, { signal: controller.signal, cache: "no-store" })
      .then(readSpendingResponse)
      .then((result) => {
        if (controller.signal.aborted) return;
        if (result.kind === "ok") {
          setLoad({ state: "ready", report: { wallet, data: result.report } });
          return;
        }
        setLoad((current) => ({ ...current, state: result.kind }));
        if (result.kind === "busy" && result.retryAfterSeconds && result.retryAfterSeconds <= MAX_AUTO_RETRY_SECONDS) {
          retryTimer = setTimeout(() => setAttempt((value) => value + 1), result.retryAfterSeconds * 1000);
        }
      })
      .catch(() => {
        if (!controller.signal.aborted) setLoad((current) => ({ ...current, state: "failed" }));
      });
    return () => {
      controller.abort();
      if (retryTimer) clearTimeout(retryTimer);
    };
  }, [wallet, refreshKey, attempt]);

  if (!wallet) {
    return (
      <section className={styles.panel} data-testid="budget-panel" aria-labelledby={titleId}>
        <h2 id={titleId} className={styles.title}>
          Budget
        </h2>
        <p className={styles.muted}>Connect a wallet to see your budget and payments.</p>
        <p className={styles.muted}>Your limits: {displayUsd(limits.daily)} a day, {displayUsd(limits.perPayment)} per payment.</p>
      </section>
    );
  }

  const report = load.report?.wallet === wallet ? load.report.data : undefined;
  const meters = budgetMeters(report?.periods ?? [], limits);

  return (
    <section className={styles.panel} data-testid="budget-panel" aria-labelledby={titleId} aria-busy={load.state === "loading"}>
      <h2 id={titleId} className={styles.title}>
        Budget
      </h2>
      {balance !== undefined ? (
        <p className={styles.balance} data-testid="budget-balance">
          Wallet balance <strong>{balance} USDC</strong>
        </p>
      ) : null}
      <ul className={styles.meters}>
        {meters.map((meter) => {
          const text = periodText[meter.period];
          const spentLabel = `${displayUsd(meter.spentUsd)} of ${displayUsd(meter.limitUsd)} spent`;
          return (
            <li
              key={meter.period}
              className={styles.meter}
              data-testid={`budget-meter-${meter.period}`}
              data-spent={report ? meter.spentUsd : undefined}
            >
              <div className={styles.meterHead}>
                <span className={styles.meterTitle}>{text.title}</span>
                <span>{report ? spentLabel : "…"}</span>
              </div>
              <div
                className={styles.track}
                role="meter"
                aria-label={`Spent ${text.phrase}`}
                aria-valuemin={0}
                aria-valuemax={1000}
                aria-valuenow={meter.usedPerMille}
                aria-valuetext={report ? `${spentLabel} ${text.phrase}, ${displayUsd(meter.leftUsd)} left` : "Loading"}
              >
                <div className={styles.fill} style={{ width: `${meter.usedPerMille / 10}%` }} data-full={meter.reached && report ? "true" : undefined} />
                {report && meter.heldPerMille > 0 ? <div className={styles.heldFill} style={{ width: `${meter.heldPerMille / 10}%` }} data-testid={`budget-held-fill-${meter.period}`} /> : null}
              </div>
              <span className={styles.left}>
                {report ? `${displayUsd(meter.leftUsd)} left` : "\u00a0"}
                {report && meter.heldUsd !== "0" ? <span data-testid={`budget-held-${meter.period}`}> · {displayUsd(meter.heldUsd)} held</span> : null}
              </span>
            </li>
          );
        })}
      </ul>
      <p className={styles.muted}>At most {displayUsd(limits.perPayment)} per payment.</p>
      {load.state === "busy" || load.state === "failed" ? (
        <p className={styles.notice} role="status">
          {load.state === "busy" ? "The budget is read often just now; it will update shortly." : "The budget could not be read just now."}{" "}
          <button type="button" className="link-button" onClick={() => setAttempt((value) => value + 1)} data-testid="budget-retry">
            Try again
          </button>
        </p>
      ) : null}
      {report?.held && report.held.length > 0 ? <HeldPayments held={report.held} /> : null}
      {report?.channels && report.channels.length > 0 ? <ChannelsList channels={report.channels} actions={channelActions} /> : null}
      <h3 className={styles.subtitle}>Recent payments</h3>
      {report && report.signedIn === false ? (
        <div>
          <p className={styles.muted}>
            {signIn
              ? "Which payments you made is shown only to you. Sign in with your wallet to see them (it signs a message, never a payment)."
              : "Which payments you made is shown only to you: they appear once your wallet proves itself here, by signing in or approving a payment."}
          </p>
          {signIn ? (
            <button
              type="button"
              className={styles.signInButton}
              data-testid="budget-sign-in"
              disabled={signing.state === "signing"}
              onClick={() => {
                setSigning({ state: "signing" });
                signIn().then(
                  () => setSigning({ state: "idle" }),
                  (error: unknown) => setSigning({ state: "failed", message: error instanceof Error && error.message ? error.message.split("\n")[0] ?? "" : "The sign-in did not go through." }),
                );
              }}
            >
              {signing.state === "signing" ? "Waiting for your wallet…" : "Show my payments"}
            </button>
          ) : null}
          {signing.state === "failed" ? (
            <p className={styles.notice} role="alert">
              {signing.message}
            </p>
          ) : null}
        </div>
      ) : report && report.recent.length > 0 ? (
        <ul className={styles.recent} data-testid="budget-recent">
          {report.recent.map((payment) => (
            <PaymentItem key={payment.paymentId} payment={payment} />
          ))}
        </ul>
      ) : (
        <p className={styles.muted}>{report ? "No payments yet." : load.state === "loading" ? "Loading…" : "Not read yet."}</p>
      )}
      {report && report.recent.length > 0 ? <PaymentHistory wallets={wallets} refreshKey={refreshKey} /> : null}
    </section>
  );
}

/**
 * What counts against the limits and has not settled: a payment on its way, one pending on the
 * chain, or a usage-priced maximum the service said it did not use but could still collect until
 * its window ends (docs/contract.md, section 12).
 */
function HeldPayments({ held }: { held: HeldPayment[] }) {
  return (
    <>
      <h3 className={styles.subtitle}>Held, not settled</h3>
      <ul className={styles.recent} data-testid="budget-held">
        {held.map((payment) => {
          const until = payment.until ? parseMoment(payment.until) : undefined;
          return (
            <li key={payment.paymentId} className={styles.payment} data-testid="budget-held-payment">
              <span className={styles.paymentName}>{payment.service.name}</span>
              <span className={styles.paymentAmount}>{displayUsd(payment.amountUsd)}</span>
              <span className={styles.paymentMeta}>
                {payment.deposit
                  ? "left in your deposit: it comes back when you close it in Channels"
                  : until
                    ? `held until ${formatLocalTime(until)} unless the service collects it`
                    : "held until the chain settles it"}
                {payment.delivered ? " · delivered, nothing charged so far" : ""}
              </span>
            </li>
          );
        })}
      </ul>
    </>
  );
}
