"use client";
// The budget beside the chat: how much of the day's, week's and month's limits the connected
// wallet has spent (GET /api/spending, settled payments only), the per-payment cap, the wallet's
// USDC balance, and the recent payments with their transaction links. Limits are the browser's;
// what is left is computed here in bigint micro-dollars.
import { useEffect, useState } from "react";
import type { SpendingLimitSettings } from "@/lib/client/settings";
import { safeLink } from "@/lib/client/safe-link";
import { formatUsd, parseUsd } from "@/lib/payments/money";
import styles from "./budget-panel.module.css";

type Period = "day" | "week" | "month";
type SpendingReport = {
  periods: { period: Period; spentUsd: string; since: string }[];
  recent: { paymentId: string; service: { name: string; url: string }; amountUsd: string; txHash: string; explorerUrl?: string; settledAt: string }[];
};

const periodNames: Record<Period, { title: string; limit: keyof SpendingLimitSettings; phrase: string }> = {
  day: { title: "Today", limit: "daily", phrase: "in the last 24 hours" },
  week: { title: "This week", limit: "weekly", phrase: "in the last 7 days" },
  month: { title: "This month", limit: "monthly", phrase: "in the last 30 days" },
};

type Load = { state: "idle" | "loading" | "ready" | "error"; report?: SpendingReport };

export function BudgetPanel({
  wallet,
  limits,
  refreshKey,
  balance,
}: {
  wallet: string | undefined;
  limits: SpendingLimitSettings;
  /** Changes after every payment: the report is read again. */
  refreshKey: number;
  /** The wallet's USDC balance on the network in use, when known. */
  balance?: string | undefined;
}) {
  const [load, setLoad] = useState<Load>({ state: "idle" });
  const [retry, setRetry] = useState(0);

  useEffect(() => {
    if (!wallet) {
      setLoad({ state: "idle" });
      return;
    }
    const controller = new AbortController();
    setLoad((current) => ({ state: "loading", ...(current.report ? { report: current.report } : {}) }));
    fetch(`/api/spending?wallet=${encodeURIComponent(wallet)}`, { signal: controller.signal, cache: "no-store" })
      .then(async (response) => {
        if (!response.ok) throw new Error(String(response.status));
        const report = (await response.json()) as SpendingReport;
        setLoad({ state: "ready", report });
      })
      .catch(() => {
        if (!controller.signal.aborted) setLoad((current) => ({ state: "error", ...(current.report ? { report: current.report } : {}) }));
      });
    return () => controller.abort();
  }, [wallet, refreshKey, retry]);

  if (!wallet) {
    return (
      <section className={styles.panel} data-testid="budget-panel" aria-labelledby="budget-title">
        <h2 id="budget-title" className={styles.title}>
          Budget
        </h2>
        <p className={styles.muted}>Connect a wallet to see your budget and payments.</p>
      </section>
    );
  }

  const report = load.report;
  return (
    <section className={styles.panel} data-testid="budget-panel" aria-labelledby="budget-title" aria-busy={load.state === "loading"}>
      <h2 id="budget-title" className={styles.title}>
        Budget
      </h2>
      {balance !== undefined ? (
        <p className={styles.balance} data-testid="budget-balance">
          Wallet balance <strong>{balance} USDC</strong>
        </p>
      ) : null}
      <ul className={styles.meters}>
        {(["day", "week", "month"] as const).map((period) => {
          const spentUsd = report?.periods.find((entry) => entry.period === period)?.spentUsd ?? "0";
          const limitUsd = limits[periodNames[period].limit];
          const spent = parseUsd(spentUsd) ?? 0n;
          const limit = parseUsd(limitUsd) ?? 0n;
          const left = limit > spent ? limit - spent : 0n;
          // Per mille, in integers: the meter's width never goes through a float of money.
          const used = limit === 0n ? (spent > 0n ? 1000 : 0) : Number(spent * 1000n > limit * 1000n ? 1000n : (spent * 1000n) / limit);
          return (
            <li key={period} className={styles.meter} data-testid={`budget-meter-${period}`} data-spent={spentUsd}>
              <div className={styles.meterHead}>
                <span className={styles.meterTitle}>{periodNames[period].title}</span>
                <span>
                  ${spentUsd} of ${limitUsd}
                </span>
              </div>
              <div
                className={styles.track}
                role="meter"
                aria-label={`Spent ${periodNames[period].phrase}`}
                aria-valuemin={0}
                aria-valuemax={1000}
                aria-valuenow={used}
                aria-valuetext={`$${spentUsd} of $${limitUsd} spent ${periodNames[period].phrase}, $${formatUsd(left)} left`}
              >
                <div className={styles.fill} style={{ width: `${used / 10}%` }} data-full={used >= 1000 ? "true" : undefined} />
              </div>
              <span className={styles.left}>${formatUsd(left)} left</span>
            </li>
          );
        })}
      </ul>
      <p className={styles.muted}>At most ${limits.perPayment} per payment.</p>
      {load.state === "error" ? (
        <p className={styles.error} role="status">
          The budget could not be read just now.{" "}
          <button type="button" className={styles.linkButton} onClick={() => setRetry((value) => value + 1)}>
            Try again
          </button>
        </p>
      ) : null}
      <h3 className={styles.subtitle}>Recent payments</h3>
      {report && report.recent.length > 0 ? (
        <ul className={styles.recent} data-testid="budget-recent">
          {report.recent.map((payment) => {
            const link = safeLink(payment.explorerUrl);
            return (
              <li key={payment.paymentId} className={styles.payment} data-testid="budget-payment">
                <span className={styles.paymentName}>{payment.service.name}</span>
                <span className={styles.paymentAmount}>${payment.amountUsd}</span>
                <span className={styles.paymentMeta}>
                  <time dateTime={payment.settledAt}>{formatWhen(payment.settledAt)}</time>
                  {link ? (
                    <>
                      {" · "}
                      <a href={link} target="_blank" rel="noopener noreferrer" title={payment.txHash}>
                        {payment.txHash.slice(0, 8)}…{payment.txHash.slice(-4)}
                      </a>
                    </>
                  ) : null}
                </span>
              </li>
            );
          })}
        </ul>
      ) : (
        <p className={styles.muted}>{report ? "No payments yet." : "Loading…"}</p>
      )}
    </section>
  );
}

function formatWhen(iso: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return "";
  const sameDay = at.toDateString() === new Date().toDateString();
  return sameDay
    ? at.toLocaleTimeString(undefined, { hour: "numeric", minute: "2-digit" })
    : at.toLocaleString(undefined, { month: "short", day: "numeric", hour: "numeric", minute: "2-digit" });
}
