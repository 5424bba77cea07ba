"use client";
// Every payment of the signed-in person, under the budget's recent ones: opened on demand, read a
// page at a time from GET /api/spending/history, filtered by period and by service, and
// downloadable as CSV with the same filters.
//
// Test ids: history (the disclosure), history-period, history-service, history-list,
// history-payment (each item), history-more, history-csv.
import { useEffect, useId, useState } from "react";
import styles from "./budget-panel.module.css";
import { PaymentItem, type ListedPayment } from "./payment-item";

type Period = "all" | "day" | "week" | "month";
type Page = { payments: ListedPayment[]; next?: string };
type Load = { state: "idle" | "loading" | "ready" | "failed"; payments: ListedPayment[]; next?: string | undefined; message?: string };

const periodLabels: Record<Period, string> = { all: "All time", day: "Last 24 hours", week: "Last 7 days", month: "Last 30 days" };

function historyUrl(wallets: readonly string[], { period, service, cursor, format }: { period: Period; service: string; cursor?: string | undefined; format?: "csv" }): string {
  const query = new URLSearchParams();
  for (const wallet of wallets) query.append("wallet", wallet);
  if (period !== "all") query.set("period", period);
  if (service.trim()) query.set("service", service.trim());
  if (cursor) query.set("cursor", cursor);
  if (format) query.set("format", format);
  return `/api/spending/history?${query.toString()}`;
}

async function readPage(response: Response): Promise<Page> {
  const body = (await response.json().catch(() => undefined)) as (Page & { error?: { message?: string } }) | undefined;
  if (!response.ok || !body || !Array.isArray(body.payments)) throw new Error(body?.error?.message ?? "The history could not be read just now.");
  return body;
}

export function PaymentHistory({ wallets, refreshKey }: { wallets: readonly string[]; refreshKey: number }) {
  const [open, setOpen] = useState(false);
  const [period, setPeriod] = useState<Period>("all");
  const [service, setService] = useState("");
  const [applied, setApplied] = useState("");
  const [load, setLoad] = useState<Load>({ state: "idle", payments: [] });
  const ids = { period: useId(), service: useId() };
  const key = wallets.join(",");

  useEffect(() => {
    if (!open) return;
    const controller = new AbortController();
    setLoad({ state: "loading", payments: [] });
    fetch(historyUrl(key.split(","), { period, service: applied }), { signal: controller.signal, cache: "no-store" })
      .then(readPage)
      .then((page) => setLoad({ state: "ready", payments: page.payments, next: page.next }))
      .catch((error: unknown) => {
        if (!controller.signal.aborted) setLoad({ state: "failed", payments: [], message: error instanceof Error ? error.message : undefined });
      });
    return () => controller.abort();
  }, [open, key, period, applied, refreshKey]);

  const more = () => {
    const cursor = load.next;
    if (!cursor) return;
    setLoad((current) => ({ ...current, state: "loading" }));
    fetch(historyUrl(wallets, { period, service: applied, cursor }), { cache: "no-store" })
      .then(readPage)
      .then((page) => setLoad((current) => ({ state: "ready", payments: [...current.payments, ...page.payments], next: page.next })))
      .catch((error: unknown) => setLoad((current) => ({ ...current, state: "failed", message: error instanceof Error ? error.message : undefined })));
  };

  return (
    <details className={styles.history} data-testid="history" onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary className={styles.historySummary}>All payments</summary>
      <form
        className={styles.historyFilters}
        onSubmit={(event) => {
          event.preventDefault();
          setApplied(service);
        }}
      >
        <label htmlFor={ids.period}>Period</label>
        <select id={ids.period} value={period} onChange={(event) => setPeriod(event.target.value as Period)} data-testid="history-period">
          {(Object.keys(periodLabels) as Period[]).map((value) => (
            <option key={value} value={value}>
              {periodLabels[value]}
            </option>
          ))}
        </select>
        <label htmlFor={ids.service}>Service</label>
        <input id={ids.service} type="search" value={service} onChange={(event) => setService(event.target.value)} placeholder="Any service" maxLength={100} data-testid="history-service" />
        <button type="submit" className="link-button">
          Filter
        </button>
      </form>
      {load.payments.length > 0 ? (
        <ul className={styles.recent} data-testid="history-list">
          {load.payments.map((payment) => (
            <PaymentItem key={payment.paymentId} payment={payment} testId="history-payment" />
          ))}
        </ul>
      ) : load.state === "ready" ? (
        <p className={styles.muted}>No payments match.</p>
      ) : null}
      {load.state === "loading" ? <p className={styles.muted}>Loading…</p> : null}
      {load.state === "failed" ? (
        <p className={styles.notice} role="alert">
          {load.message ?? "The history could not be read just now."}
        </p>
      ) : null}
      <p className={styles.historyActions}>
        {load.next && load.state === "ready" ? (
          <button type="button" className="link-button" onClick={more} data-testid="history-more">
            Show more
          </button>
        ) : null}
        <a href={historyUrl(wallets, { period, service: applied, format: "csv" })} download data-testid="history-csv">
          Download CSV
        </a>
      </p>
    </details>
  );
}
