// What counts against a person's limits, and what they settled, over the rolling day, week and
// month, read from the hourly and daily totals (migration 8); the limit a payment would pass;
// what an agent budget has used. Amounts are atomic USDC units, also micro-dollars: USDC is
// counted 1:1 with USD for limits.
import type { Queryable } from "@/lib/db";
import { windowSum } from "@/lib/db/migrations";
import type { SpendingLimits } from "../limits";
import { walletKey, walletKeys, type Wallets } from "./records";

export const periods = {
  day: 24 * 60 * 60 * 1000,
  week: 7 * 24 * 60 * 60 * 1000,
  month: 30 * 24 * 60 * 60 * 1000,
} as const;

export type Period = keyof typeof periods;

const periodLimit: Record<Period, keyof SpendingLimits> = { day: "daily", week: "weekly", month: "monthly" };

/**
 * What counts against a wallet's limits since `since`: settled payments, and those reserved or
 * pending, which may still move money. Failed payments count for nothing. (What the wallet has
 * settled alone, what the chain shows, is `settledSince`.)
 */
export async function countedSince(db: Queryable, wallet: string, since: Date): Promise<bigint> {
  const [row] = await db.query<{ spent: string }>(`SELECT ${windowSumSql("counted", "$2::timestamptz")}::text AS spent`, [
    [walletKey(wallet)],
    since.toISOString(),
  ]);
  return BigInt(row?.spent ?? "0");
}

/** One rolling period against its limit: what counts against it (settled, pending, reserved), and what is left. */
export type PeriodCount = { period: Period; counted: bigint; limit: bigint; remaining: bigint };

/** Where each rolling period starts, `now` less its length. */
export function periodStarts(now: Date): Record<Period, Date> {
  const since = (period: Period) => new Date(now.getTime() - periods[period]);
  return { day: since("day"), week: since("week"), month: since("month") };
}

/**
 * One window's sum for the wallets in `$1` since `since`, read from the hourly and daily totals
 * (`windowSum`, lib/db/migrations.ts): what counts against the limits through migration 9's
 * function, whose plan the connection keeps; what was settled as a statement.
 */
function windowSumSql(measure: "counted" | "settled", since: string): string {
  return measure === "counted" ? `ledger_counted_since($1::text[], ${since})` : `(${windowSum("settled", "$1::text[]", since)})`;
}

/** A measure's sums over the three rolling periods, in one query. */
async function sumsByPeriod(db: Queryable, measure: "counted" | "settled", wallet: Wallets, now: Date): Promise<Record<Period, bigint>> {
  const starts = periodStarts(now);
  const [row] = await db.query<Record<Period, string>>(
    `SELECT ${windowSumSql(measure, "$2::timestamptz")}::text AS day,
            ${windowSumSql(measure, "$3::timestamptz")}::text AS week,
            ${windowSumSql(measure, "$4::timestamptz")}::text AS month`,
    [walletKeys(wallet), starts.day.toISOString(), starts.week.toISOString(), starts.month.toISOString()],
  );
  return { day: BigInt(row?.day ?? "0"), week: BigInt(row?.week ?? "0"), month: BigInt(row?.month ?? "0") };
}

export async function countedByPeriod(
  db: Queryable,
  { wallet, limits, now = new Date() }: { wallet: Wallets; limits: SpendingLimits; now?: Date },
): Promise<PeriodCount[]> {
  // One query for the three rolling periods: a reservation holds its wallet's lock while it runs.
  const sums = await sumsByPeriod(db, "counted", wallet, now);
  return (Object.keys(periods) as Period[]).map((period) => {
    const counted = sums[period];
    const limit = limits[periodLimit[period]];
    return { period, counted, limit, remaining: limit > counted ? limit - counted : 0n };
  });
}

/** What a wallet (or a person's wallets together) has settled in each rolling period, by settlement time, in one query. Reserved and failed payments are not counted. */
export function settledByPeriod(db: Queryable, wallets: Wallets, now: Date = new Date()): Promise<Record<Period, bigint>> {
  return sumsByPeriod(db, "settled", wallets, now);
}

/** A limit a payment would pass: one of the person's, or the agent budget it would be paid from. */
/**
 * A limit a payment would pass: `spent`, what already counts against it (settled, and held);
 * `held`, when known, the part of that not settled yet (reserved or pending), which may still move.
 */
export type LimitBreach = { limit: keyof SpendingLimits | "agentBudget"; limitAmount: bigint; spent: bigint; amount: bigint; held?: bigint };

/** An agent budget a payment is paid from: its session address and the most it may pay in all. */
export type BudgetCap = { payer: string; maxAmount: bigint };

/** What an agent budget's session address has paid or holds reserved, all time (a budget is used once). */
export async function spentByPayer(db: Queryable, payer: string): Promise<bigint> {
  const [row] = await db.query<{ spent: string }>(
    `SELECT COALESCE(SUM(amount), 0)::text AS spent FROM payments
     WHERE payer = $1 AND status IN ('reserved', 'pending', 'settled')`,
    [walletKey(payer)],
  );
  return BigInt(row?.spent ?? "0");
}

/** The agent budget's breach if paying `amount` from it would pass its `maxAmount`. */
export async function findBudgetBreach(db: Queryable, { budget, amount }: { budget: BudgetCap; amount: bigint }): Promise<LimitBreach | undefined> {
  const spent = await spentByPayer(db, budget.payer);
  return spent + amount > budget.maxAmount ? { limit: "agentBudget", limitAmount: budget.maxAmount, spent, amount } : undefined;
}

/** The first limit that paying `amount` now would pass, if any. */
export async function findLimitBreach(
  db: Queryable,
  { wallet, amount, limits, now = new Date() }: { wallet: Wallets; amount: bigint; limits: SpendingLimits; now?: Date },
): Promise<LimitBreach | undefined> {
  if (amount > limits.perPayment) return { limit: "perPayment", limitAmount: limits.perPayment, spent: 0n, amount };
  for (const { period, counted, limit } of await countedByPeriod(db, { wallet, limits, now })) {
    if (counted + amount > limit) return { limit: periodLimit[period], limitAmount: limit, spent: counted, amount };
  }
  return undefined;
}

/**
 * What of each rolling period's count is held: reserved or pending (not settled, and may still
 * move), by creation time as the limits count it. For the person's words only (spent and held
 * said apart, as the budget panel says them): the limits count both alike.
 */
export async function heldByPeriod(db: Queryable, wallet: Wallets, now: Date = new Date()): Promise<Record<Period, bigint>> {
  const starts = periodStarts(now);
  // Reserved or pending payments, and what the open channels' settled deposits still hold beyond
  // what their calls took (it comes back at the close: it is not spent).
  const held = (since: string) =>
    `((SELECT COALESCE(SUM(amount), 0) FROM payments WHERE wallet = ANY($1::text[]) AND status IN ('reserved', 'pending') AND created_at > ${since})
      + ${inDepositsSql(since)})::text`;
  const [row] = await db.query<Record<Period, string>>(
    `SELECT ${held("$2::timestamptz")} AS day, ${held("$3::timestamptz")} AS week, ${held("$4::timestamptz")} AS month`,
    [walletKeys(wallet), starts.day.toISOString(), starts.week.toISOString(), starts.month.toISOString()],
  );
  return { day: BigInt(row?.day ?? "0"), week: BigInt(row?.week ?? "0"), month: BigInt(row?.month ?? "0") };
}

/**
 * What the open channels' settled deposits hold beyond what their calls took, for deposits made
 * after `since`: counted against the limits (the deposit counts in full until the chain shows the
 * rest back), but not spent.
 */
function inDepositsSql(since: string): string {
  return `(SELECT COALESCE(SUM(c.deposit - c.vouched), 0) FROM channels c JOIN payments p ON p.payment_id = c.deposit_payment_id
      WHERE p.wallet = ANY($1::text[]) AND p.status = 'settled' AND c.state <> 'closed' AND p.created_at > ${since})`;
}

/** What the open channels' deposits hold unspent, per rolling period (by when each deposit was made). */
export async function inDepositsByPeriod(db: Queryable, wallet: Wallets, now: Date = new Date()): Promise<Record<Period, bigint>> {
  const starts = periodStarts(now);
  const [row] = await db.query<Record<Period, string>>(
    `SELECT ${inDepositsSql("$2::timestamptz")}::text AS day, ${inDepositsSql("$3::timestamptz")}::text AS week, ${inDepositsSql("$4::timestamptz")}::text AS month`,
    [walletKeys(wallet), starts.day.toISOString(), starts.week.toISOString(), starts.month.toISOString()],
  );
  return { day: BigInt(row?.day ?? "0"), week: BigInt(row?.week ?? "0"), month: BigInt(row?.month ?? "0") };
}

/** The breach with what of its `spent` is held (heldByPeriod), so it can be told apart from what settled. */
export async function withHeld(db: Queryable, breach: LimitBreach, { wallet, now = new Date() }: { wallet: Wallets; now?: Date }): Promise<LimitBreach> {
  const period = (Object.keys(periodLimit) as Period[]).find((candidate) => periodLimit[candidate] === breach.limit);
  if (!period) return breach;
  const held = (await heldByPeriod(db, wallet, now))[period];
  return { ...breach, held: held < breach.spent ? held : breach.spent };
}

/**
 * What counts against the limits for a draw from a hold (a call on a channel) in each rolling
 * period: the ledger's count, less what the holds opened in the period still hold undrawn (their
 * deposits count in full there, but a draw moves money out of that part, not beside it), plus the
 * draws in the period from holds opened before it (whose deposits the period does not count). A
 * draw is then held to every limit as a payment of its price, whichever door's limits they are.
 */
async function drawnByPeriod(db: Queryable, wallet: Wallets, now: Date): Promise<Record<Period, bigint>> {
  const starts = periodStarts(now);
  const spent = (since: string) =>
    `(${windowSumSql("counted", since)}
      - (SELECT COALESCE(SUM(c.deposit - c.vouched), 0) FROM channels c JOIN payments p ON p.payment_id = c.deposit_payment_id
         WHERE p.wallet = ANY($1::text[]) AND p.status IN ('reserved', 'pending', 'settled') AND c.state <> 'closed' AND p.created_at > ${since})
      + (SELECT COALESCE(SUM(k.amount), 0) FROM channel_calls k JOIN channels c ON c.channel_id = k.channel_id JOIN payments p ON p.payment_id = c.deposit_payment_id
         WHERE p.wallet = ANY($1::text[]) AND p.created_at <= ${since} AND k.created_at > ${since} AND k.call_id <> c.deposit_payment_id
           AND (k.status <> 'failed' OR k.charged IS NULL)))::text`;
  const [row] = await db.query<Record<Period, string>>(
    `SELECT ${spent("$2::timestamptz")} AS day, ${spent("$3::timestamptz")} AS week, ${spent("$4::timestamptz")} AS month`,
    [walletKeys(wallet), starts.day.toISOString(), starts.week.toISOString(), starts.month.toISOString()],
  );
  return { day: BigInt(row?.day ?? "0"), week: BigInt(row?.week ?? "0"), month: BigInt(row?.month ?? "0") };
}

/** The first limit that a draw of `amount` from a hold would pass now, if any (drawnByPeriod). */
export async function findDrawBreach(
  db: Queryable,
  { wallet, amount, limits, now = new Date() }: { wallet: Wallets; amount: bigint; limits: SpendingLimits; now?: Date },
): Promise<LimitBreach | undefined> {
  if (amount > limits.perPayment) return { limit: "perPayment", limitAmount: limits.perPayment, spent: 0n, amount };
  const sums = await drawnByPeriod(db, wallet, now);
  for (const period of Object.keys(periods) as Period[]) {
    const limit = limits[periodLimit[period]];
    const spent = sums[period] < 0n ? 0n : sums[period];
    if (spent + amount > limit) return { limit: periodLimit[period], limitAmount: limit, spent, amount };
  }
  return undefined;
}
