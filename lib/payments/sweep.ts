// The sweep of unfinished payments (docs/contract.md, section 3, "Paid means paid"): pending
// payments, and reservations left behind by a request that died, reconciled against the chain
// (lib/payments/reconcile.ts) on the first use of a database and then at most every minute. The
// due check is a ledger read; the chains' code is loaded only when a payment needs asking about.
import type { Database } from "@/lib/db";
import { claimSweep, lastSweepAt, markChecked, STALE_RESERVATION_MS, unfinishedPayments } from "./ledger";
import type { RailEnv } from "./rails";

/**
 * Keeps the function alive for work that goes on after its answer (Next's `after()`): on a
 * serverless host a function frozen once it has answered would otherwise leave a sweep half done.
 * Without one (a long-lived server, tests), the work simply runs on.
 */
export type KeepAlive = (work: Promise<unknown>) => void;

/**
 * The sweep, if due, started in the background of a request and handed to its keep-alive. A
 * keep-alive that cannot take it (Next's `after()` called outside a request, as a handler called
 * directly is) leaves the already-started sweep to run on; the request's answer never depends on it.
 */
export function sweepInBackground({ keepAlive, ...parameters }: Parameters<typeof sweepIfDue>[0] & { keepAlive?: KeepAlive | undefined }): void {
  const sweeping = sweepIfDue(parameters);
  try {
    keepAlive?.(sweeping);
  } catch {
    // Nothing to keep alive past an answer here: the sweep runs on regardless.
  }
}

/** Sweeps run at most this often, across every process sharing the database. */
export const SWEEP_EVERY_MS = 60_000;
const SWEEP_BATCH = 25;

export type SweepReport = { checked: number; settled: number; released: number; pending: number; skipped: number };

/**
 * Reconciles unfinished payments whose request is over: pending ones, and reservations left
 * behind by a request that died. Bounded to one batch, least recently checked first.
 */
export async function sweepUnfinishedPayments({
  db,
  env,
  now = new Date(),
  limit = SWEEP_BATCH,
}: {
  db: Database;
  env: RailEnv;
  now?: Date;
  limit?: number;
}): Promise<SweepReport> {
  const report: SweepReport = { checked: 0, settled: 0, released: 0, pending: 0, skipped: 0 };
  const records = await unfinishedPayments(db, { reservedBefore: new Date(now.getTime() - STALE_RESERVATION_MS), limit });
  // Channels whose opening, close or withdrawal the chain may have ended (after the payments, whose deposits they wait on).
  const channels = async () => (await import("./channels")).settleChannels({ db, env, now });
  if (records.length === 0) {
    await channels();
    return report;
  }
  // The chains' code is loaded only when there is something to ask them about.
  const [{ paymentRails }, { factsOf, reconcilePayment }] = await Promise.all([import("./rails"), import("./reconcile")]);
  const rails = paymentRails(env);
  for (const record of records) {
    // Each payment's own scheme (`exact` for those recorded before schemes were).
    const found = rails.findScheme(record.network, record.scheme);
    if (!found?.network.readable) {
      // No RPC for its chain here: it stays counted until one is configured.
      await markChecked(db, { paymentId: record.paymentId, now });
      report.skipped += 1;
      continue;
    }
    report.checked += 1;
    const { verdict } = await reconcilePayment({ db, record, facts: factsOf(record, found), scheme: found.scheme, caller: "sweep", now });
    if (verdict.kind === "used") report.settled += 1;
    else if (verdict.kind === "released") report.released += 1;
    else report.pending += 1;
  }
  await channels();
  return report;
}

/**
 * When the next sweep is due, per database, as this process last learned it from the database
 * (its own claim, or another process's): until then a request does not ask the database again.
 */
const nextSweepDue = new WeakMap<Database, number>();

/**
 * The sweep, if it is due: on the first use of a database and then at most every minute,
 * triggered by requests rather than a timer, so it also runs where processes are short-lived.
 * The database is asked at most once per due time, not on every request. Never throws: a
 * failed sweep is logged and tried again later.
 */
export async function sweepIfDue({
  db,
  env,
  now = new Date(),
  log,
}: {
  db: Database;
  env: RailEnv;
  now?: Date;
  log?: (message: string, details?: Record<string, unknown>) => void;
}): Promise<SweepReport | undefined> {
  try {
    if (now.getTime() < (nextSweepDue.get(db) ?? Number.NEGATIVE_INFINITY)) return undefined;
    if (!(await claimSweep(db, { now, every: SWEEP_EVERY_MS }))) {
      // Another process swept within the minute: due a minute after its claim.
      const last = await lastSweepAt(db);
      nextSweepDue.set(db, (last?.getTime() ?? now.getTime()) + SWEEP_EVERY_MS);
      return undefined;
    }
    nextSweepDue.set(db, now.getTime() + SWEEP_EVERY_MS);
    const report = await sweepUnfinishedPayments({ db, env, now });
    if (report.settled + report.released > 0) log?.("reconciled unfinished payments", { ...report });
    return report;
  } catch (error) {
    log?.("payment sweep failed", { error: error instanceof Error ? error.name : typeof error });
    return undefined;
  }
}
