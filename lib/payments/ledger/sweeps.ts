// The sweep's bookkeeping (lib/payments/sweep.ts): which payments are unfinished with no request
// behind them, and a claim that spaces sweeps out across every process sharing the database.
import type { Queryable } from "@/lib/db";
import { columns, toRecord, type PaymentRecord, type PaymentRow } from "./records";

/**
 * A reservation untouched this long has no request behind it any more: the paid call, its
 * reconciliation and the stream's deadline all end well within it.
 */
export const STALE_RESERVATION_MS = 2 * 60_000;

/**
 * Payments that are not final and whose request is over: every pending one, and reserved ones
 * untouched since `reservedBefore` (their request died before recording an outcome). Least
 * recently checked first.
 */
export async function unfinishedPayments(
  db: Queryable,
  { reservedBefore, limit }: { reservedBefore: Date; limit: number },
): Promise<PaymentRecord[]> {
  const rows = await db.query<PaymentRow>(
    `SELECT ${columns} FROM payments
     WHERE status = 'pending' OR (status = 'reserved' AND updated_at < $1)
     ORDER BY checked_at ASC NULLS FIRST, created_at ASC LIMIT $2`,
    [reservedBefore.toISOString(), limit],
  );
  return rows.map(toRecord);
}

/**
 * Claims the next sweep for this caller if none ran within `every` ms, across every process
 * sharing the database. True means: sweep now.
 */
export async function claimSweep(db: Queryable, { now = new Date(), every }: { now?: Date; every: number }): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO ledger_sweeps (id, last_run_at) VALUES (1, $1)
     ON CONFLICT (id) DO UPDATE SET last_run_at = EXCLUDED.last_run_at
       WHERE ledger_sweeps.last_run_at <= $2 OR ledger_sweeps.last_run_at > $1
     RETURNING id`,
    [now.toISOString(), new Date(now.getTime() - every).toISOString()],
  );
  return rows.length > 0;
}

/** When the last sweep was claimed, by any process; undefined before the first. */
export async function lastSweepAt(db: Queryable): Promise<Date | undefined> {
  const [row] = await db.query<{ last_run_at: Date | string }>("SELECT last_run_at FROM ledger_sweeps WHERE id = 1");
  return row ? new Date(row.last_run_at) : undefined;
}
