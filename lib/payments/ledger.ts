// The spending ledger: every approved payment is reserved against the wallet's rolling limits
// before the service is paid, then marked settled (with its transaction) or failed (which
// releases it). A payment whose service neither delivered nor collected it is `pending`: still
// counted, until the chain shows its authorization used (settled) or expired unused (failed).
// Reservation is atomic per wallet, so concurrent approvals can never pass a limit together,
// and a payment id or nonce is recorded once, so nothing is paid twice.
//
// Amounts are atomic USDC units (6 decimals), which are also micro-dollars: USDC is counted 1:1
// with USD for limits.
import { z } from "zod";
import { caseKey } from "@/lib/address";
import type { Database, Queryable } from "@/lib/db";
import { windowSum } from "@/lib/db/migrations";
import { signedOfferSchema, signedReceiptSchema } from "@/lib/x402/offer-receipt-forms";
import type { SpendingLimits } from "./limits";
import { paymentFailureCodes, paymentStages, receiptStatuses, type PaymentFacts, type PaymentUpdate } from "./payment";

export const periods = {
  day: 24 * 60 * 60 * 1000,
  week: 7 * 24 * 60 * 60 * 1000,
  month: 30 * 24 * 60 * 60 * 1000,
} as const;
export type Period = keyof typeof periods;

const periodLimit: Record<Period, keyof SpendingLimits> = { day: "daily", week: "weekly", month: "monthly" };

/** reserved: its request is paying it; pending: waiting on the chain; settled and failed are final. */
export type PaymentRecordStatus = "reserved" | "pending" | "settled" | "failed";

export type PaymentRecord = {
  paymentId: string;
  wallet: string;
  network: string;
  asset: string;
  payTo: string;
  /**
   * What it counts against the limits: the price; for a usage-priced payment (x402 `upto`), the
   * maximum while it is reserved or pending, then what the chain shows it settled.
   */
  amount: bigint;
  /** The scheme it was paid in (x402 `exact` or `upto`, MPP's `evm` charge; `exact` for every payment recorded before schemes were). */
  scheme: string;
  /** A usage-priced payment's maximum, the amount the wallet signed for; null for a fixed price. */
  maxAmount: bigint | null;
  nonce: string;
  serviceName: string;
  serviceUrl: string;
  status: PaymentRecordStatus;
  txHash: string | null;
  failureCode: string | null;
  /** Its last update as recorded, replayed when the same approval comes again; null when none was. */
  outcome: RecordedUpdate | null;
  createdAt: Date;
  /** When it settled; null until then (and for rows settled before this was recorded). */
  settledAt: Date | null;
  /** The signed authorization's validBefore: after it, unused, nothing can move any more. */
  validBefore: Date | null;
  /** A block at or before the quote, where the search for its on-chain events starts. */
  fromBlock: bigint | null;
  /** The address that signed the transfer when it is not the wallet: its agent budget's session key. */
  payer: string | null;
  /** The service's signed receipt (x402 `offer-receipt`) and what it came to; null when it gave none. */
  receipt: StoredReceipt | null;
};

type PaymentRow = {
  payment_id: string;
  wallet: string;
  network: string;
  asset: string;
  pay_to: string;
  amount: string;
  scheme: string;
  max_amount: string | null;
  nonce: string;
  service_name: string;
  service_url: string;
  status: PaymentRecordStatus;
  tx_hash: string | null;
  failure_code: string | null;
  outcome: unknown;
  created_at: Date | string;
  settled_at: Date | string | null;
  valid_before: Date | string | null;
  from_block: string | null;
  payer: string | null;
  receipt: unknown;
};

const columns = `payment_id, wallet, network, asset, pay_to, amount::text AS amount, scheme, max_amount::text AS max_amount, nonce, service_name,
  service_url, status, tx_hash, failure_code, outcome, created_at, settled_at, valid_before, from_block::text AS from_block, payer, receipt`;

/** A payment as a list shows it (and the part of a whole record read from the same columns): no status or receipt JSON, no authorization's details. */
export type ListedPayment = Pick<
  PaymentRecord,
  "paymentId" | "wallet" | "network" | "amount" | "scheme" | "maxAmount" | "serviceName" | "serviceUrl" | "status" | "txHash" | "createdAt" | "settledAt" | "payer"
>;

const listedColumns = "payment_id, wallet, network, amount::text AS amount, scheme, max_amount::text AS max_amount, service_name, service_url, status, tx_hash, created_at, settled_at, payer";

function toListed(row: PaymentRow): ListedPayment {
  return {
    paymentId: row.payment_id,
    wallet: row.wallet,
    network: row.network,
    amount: BigInt(row.amount),
    scheme: row.scheme,
    maxAmount: row.max_amount === null ? null : BigInt(row.max_amount),
    serviceName: row.service_name,
    serviceUrl: row.service_url,
    status: row.status,
    txHash: row.tx_hash,
    createdAt: new Date(row.created_at),
    settledAt: row.settled_at === null ? null : new Date(row.settled_at),
    payer: row.payer,
  };
}

function toRecord(row: PaymentRow): PaymentRecord {
  return {
    ...toListed(row),
    asset: row.asset,
    payTo: row.pay_to,
    nonce: row.nonce,
    failureCode: row.failure_code,
    outcome: readOutcome(readJson(row.outcome)),
    validBefore: row.valid_before === null ? null : new Date(row.valid_before),
    fromBlock: row.from_block === null ? null : BigInt(row.from_block),
    receipt: readReceipt(readJson(row.receipt)),
  };
}

/** A jsonb value as the driver hands it: parsed already (Postgres) or as text; null stays null. */
function readJson(value: unknown): unknown {
  return typeof value === "string" ? (JSON.parse(value) as unknown) : (value ?? null);
}

// Wallets (and hex values) are stored in one case, so that checksummed and plain forms are one wallet.
const walletKey = caseKey;

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

/** A person's wallets, whose payments count against one set of limits: one address, or several (an EVM and a Solana wallet). */
export type Wallets = string | readonly string[];

const walletKeys = (wallets: Wallets): string[] => [...new Set((typeof wallets === "string" ? [wallets] : wallets).map(walletKey))].sort();

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

/** A limit a payment would pass: one of the person's, or the agent budget it would be paid from. */
export type LimitBreach = { limit: keyof SpendingLimits | "agentBudget"; limitAmount: bigint; spent: bigint; amount: bigint };

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

export type NewPayment = Omit<
  PaymentRecord,
  "status" | "txHash" | "failureCode" | "outcome" | "createdAt" | "settledAt" | "validBefore" | "fromBlock" | "payer" | "receipt" | "scheme" | "maxAmount"
> & { validBefore?: Date | null; fromBlock?: bigint | null; scheme?: string; maxAmount?: bigint | null };

export type ReserveResult =
  | { kind: "reserved"; record: PaymentRecord }
  | { kind: "existing"; record: PaymentRecord }
  | { kind: "limit-exceeded"; breach: LimitBreach };

/**
 * Reserves a payment against the limits, atomically per wallet. The same payment id (or the
 * same signed nonce) reserved again returns the first record instead of a second reservation.
 * A payment from the wallet's agent budget (`budget`) is also held to the budget's total; the
 * budget belongs to the wallet, so the wallet's lock serialises its payments too. `countedWith`:
 * the person's other wallets (an EVM and a Solana wallet), whose payments count against the same
 * limits: all of them are locked, always in one order, so concurrent payments from either pass
 * no limit together.
 */
export async function reservePayment(
  db: Database,
  {
    payment,
    limits,
    budget,
    countedWith = [],
    now = new Date(),
  }: { payment: NewPayment; limits: SpendingLimits; budget?: BudgetCap; countedWith?: readonly string[]; now?: Date },
): Promise<ReserveResult> {
  const wallets = walletKeys([payment.wallet, ...countedWith]);
  return db.transaction(async (tx) => {
    // Serialises reservations of one person's wallets across requests and processes.
    for (const key of wallets) await tx.query("SELECT pg_advisory_xact_lock(hashtext($1))", [key]);
    const [existing] = await tx.query<PaymentRow>(
      `SELECT ${columns} FROM payments WHERE payment_id = $1 OR nonce = $2 LIMIT 1`,
      [payment.paymentId, payment.nonce],
    );
    if (existing) return { kind: "existing", record: toRecord(existing) };
    const breach =
      (await findLimitBreach(tx, { wallet: wallets, amount: payment.amount, limits, now })) ??
      (budget ? await findBudgetBreach(tx, { budget, amount: payment.amount }) : undefined);
    if (breach) return { kind: "limit-exceeded", breach };
    const [row] = await tx.query<PaymentRow>(
      `INSERT INTO payments (payment_id, wallet, network, asset, pay_to, amount, nonce, service_name, service_url, status,
         created_at, updated_at, valid_before, from_block, payer, scheme, max_amount)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'reserved', $10, $10, $11, $12, $13, $14, $15)
       RETURNING ${columns}`,
      [
        payment.paymentId,
        walletKey(payment.wallet),
        payment.network,
        caseKey(payment.asset),
        caseKey(payment.payTo),
        payment.amount.toString(),
        caseKey(payment.nonce),
        payment.serviceName,
        payment.serviceUrl,
        now.toISOString(),
        payment.validBefore ? payment.validBefore.toISOString() : null,
        payment.fromBlock === undefined || payment.fromBlock === null ? null : payment.fromBlock.toString(),
        budget ? walletKey(budget.payer) : null,
        payment.scheme ?? "exact",
        payment.maxAmount === undefined || payment.maxAmount === null ? null : payment.maxAmount.toString(),
      ],
    );
    if (!row) throw new Error("the reservation was not written");
    return { kind: "reserved", record: toRecord(row) };
  });
}

/**
 * Records a settlement: the payment counts against the limits for good. The hash is null only
 * when the chain shows the authorization used but its transaction could not be found (or, for a
 * usage-priced payment, when the service settled nothing). `receipt`: the service's signed
 * receipt, judged (lib/payments/receipt.ts), when its answer carried one. `amount`: what a
 * usage-priced payment settled, which replaces the maximum it held (the rest is released at
 * once); absent, the amount recorded stands.
 */
export async function markSettled(
  db: Queryable,
  {
    paymentId,
    txHash,
    outcome,
    receipt,
    amount,
    late = false,
    now = new Date(),
  }: {
    paymentId: string;
    txHash: string | null;
    outcome: Outcome;
    receipt?: StoredReceipt | undefined;
    amount?: bigint;
    /** Found on chain after the person was told it had not moved (pending, or "nothing charged so far"): kept with its outcome, for the history to say. */
    late?: boolean;
    now?: Date;
  },
): Promise<void> {
  // A settlement recorded again (a replayed outcome) keeps its first time, its hash, its receipt
  // and its amount; a settled amount never exceeds the maximum it was reserved for.
  await db.query(
    `UPDATE payments SET status = 'settled', tx_hash = COALESCE($2, tx_hash), outcome = $3, updated_at = now(),
       settled_at = COALESCE(settled_at, $4), checked_at = $4, receipt = COALESCE(receipt, $5::jsonb),
       amount = CASE WHEN $6::numeric IS NOT NULL AND status <> 'settled' AND $6::numeric <= COALESCE(max_amount, amount) THEN $6::numeric ELSE amount END
     WHERE payment_id = $1`,
    [
      paymentId,
      txHash,
      JSON.stringify(late ? { ...storedOutcome(outcome), collectedLate: true } : storedOutcome(outcome)),
      now.toISOString(),
      receipt ? JSON.stringify(receipt) : null,
      amount === undefined ? null : amount.toString(),
    ],
  );
}

/**
 * Records a failure: the reservation is released and nothing is charged. Only for a payment
 * that nothing can move any more; a settled one stays settled.
 */
export async function markFailed(
  db: Queryable,
  { paymentId, failureCode, outcome }: { paymentId: string; failureCode: string; outcome: Outcome },
): Promise<void> {
  await db.query(
    `UPDATE payments SET status = 'failed', failure_code = $2, outcome = $3, updated_at = now()
     WHERE payment_id = $1 AND status IN ('reserved', 'pending')`,
    [paymentId, failureCode, JSON.stringify(storedOutcome(outcome))],
  );
}

/**
 * Records that the service could still collect the payment: it stays counted against the
 * limits, and the sweep asks the chain about it until it is settled or expired.
 */
export async function markPending(
  db: Queryable,
  { paymentId, outcome, now = new Date() }: { paymentId: string; outcome: Outcome; now?: Date },
): Promise<void> {
  await db.query(
    `UPDATE payments SET status = 'pending', outcome = $2, updated_at = now(), checked_at = $3
     WHERE payment_id = $1 AND status IN ('reserved', 'pending')`,
    [paymentId, JSON.stringify(storedOutcome(outcome)), now.toISOString()],
  );
}

/** Notes that the chain was asked about an unfinished payment, so the next sweep asks about others first. */
export async function markChecked(db: Queryable, { paymentId, now = new Date() }: { paymentId: string; now?: Date }): Promise<void> {
  await db.query("UPDATE payments SET checked_at = $2 WHERE payment_id = $1", [paymentId, now.toISOString()]);
}

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

export async function findPayment(db: Queryable, paymentId: string): Promise<PaymentRecord | undefined> {
  const [row] = await db.query<PaymentRow>(`SELECT ${columns} FROM payments WHERE payment_id = $1`, [paymentId]);
  return row ? toRecord(row) : undefined;
}

/** The payment sent with this signed authorization (an EVM nonce; a Solana message with its blockhash), if one was. */
export async function findPaymentByNonce(db: Queryable, nonce: string): Promise<PaymentRecord | undefined> {
  const [row] = await db.query<PaymentRow>(`SELECT ${columns} FROM payments WHERE nonce = $1`, [caseKey(nonce)]);
  return row ? toRecord(row) : undefined;
}

export async function recentPayments(db: Queryable, wallets: Wallets, limit = 10): Promise<ListedPayment[]> {
  const rows = await db.query<PaymentRow>(
    perWallet("ORDER BY created_at DESC LIMIT $2", "ORDER BY created_at DESC LIMIT $2", listedColumns),
    [walletKeys(wallets), limit],
  );
  return rows.map(toListed);
}

/** These payments (of any wallet: the caller chose them), newest first; ids the ledger does not hold are left out. */
export async function paymentsById(db: Queryable, paymentIds: readonly string[]): Promise<ListedPayment[]> {
  if (paymentIds.length === 0) return [];
  const rows = await db.query<PaymentRow>(`SELECT ${listedColumns} FROM payments WHERE payment_id = ANY($1::text[]) ORDER BY created_at DESC`, [[...paymentIds]]);
  return rows.map(toListed);
}

/**
 * What is held against a person's limits and has not settled: payments reserved or pending (their
 * exposure: the price, or a usage-priced payment's maximum, that the chain may still move), newest first.
 */
export async function heldPayments(db: Queryable, wallets: Wallets, limit: number): Promise<PaymentRecord[]> {
  const rows = await db.query<PaymentRow>(
    perWallet("AND status IN ('reserved', 'pending') ORDER BY created_at DESC LIMIT $2", "ORDER BY created_at DESC LIMIT $2"),
    [walletKeys(wallets), limit],
  );
  return rows.map(toRecord);
}

/** Settled payments of a wallet, or of a person's wallets (each with its transaction), newest settlement first. */
export async function settledPayments(db: Queryable, wallets: Wallets, limit: number): Promise<ListedPayment[]> {
  const rows = await db.query<PaymentRow>(
    perWallet(
      "AND status = 'settled' AND tx_hash IS NOT NULL ORDER BY COALESCE(settled_at, created_at) DESC, payment_id DESC LIMIT $2",
      "ORDER BY COALESCE(settled_at, created_at) DESC, payment_id DESC LIMIT $2",
      listedColumns,
    ),
    [walletKeys(wallets), limit],
  );
  return rows.map(toListed);
}

/**
 * A newest-first read of a person's payments, one wallet at a time (`$1`: their keys): each
 * wallet's rows come in its index's order, at most the limit of them, and the pages are merged.
 * One query, whatever the wallet's history holds; `wallet = ANY(...)` would sort it all first.
 */
function perWallet(whereAndOrder: string, mergedOrder: string, select = columns): string {
  return `SELECT page.* FROM unnest($1::text[]) AS person(wallet)
    CROSS JOIN LATERAL (SELECT ${select} FROM payments WHERE payments.wallet = person.wallet ${whereAndOrder}) AS page
    ${mergedOrder}`;
}

/** Where a page of history ends: the next page starts after this payment (newest first). */
export type HistoryCursor = { at: Date; paymentId: string };

export type HistoryFilter = {
  /** Settled after this moment. */
  since?: Date | undefined;
  /** Words in the service's name or URL (case-insensitive). */
  service?: string | undefined;
  after?: HistoryCursor | undefined;
  limit: number;
};

/** One page of a person's settled payments, newest first, by settlement time then payment id. */
export async function paymentHistory(db: Queryable, wallets: Wallets, { since, service, after, limit }: HistoryFilter): Promise<PaymentRecord[]> {
  const pattern = service?.trim() ? `%${service.trim().replace(/[\\%_]/g, (char) => `\\${char}`)}%` : null;
  const rows = await db.query<PaymentRow>(
    perWallet(
      `AND status = 'settled' AND tx_hash IS NOT NULL
       AND ($2::timestamptz IS NULL OR COALESCE(settled_at, created_at) > $2::timestamptz)
       AND ($3::text IS NULL OR service_name ILIKE $3 OR service_url ILIKE $3)
       AND ($4::timestamptz IS NULL OR (COALESCE(settled_at, created_at), payment_id) < ($4::timestamptz, $5::text))
       ORDER BY COALESCE(settled_at, created_at) DESC, payment_id DESC LIMIT $6`,
      "ORDER BY COALESCE(settled_at, created_at) DESC, payment_id DESC LIMIT $6",
    ),
    [walletKeys(wallets), since?.toISOString() ?? null, pattern, after?.at.toISOString() ?? null, after?.paymentId ?? null, limit],
  );
  return rows.map(toRecord);
}

/** What a wallet (or a person's wallets together) has settled in each rolling period, by settlement time, in one query. Reserved and failed payments are not counted. */
export function settledByPeriod(db: Queryable, wallets: Wallets, now: Date = new Date()): Promise<Record<Period, bigint>> {
  return sumsByPeriod(db, "settled", wallets, now);
}

/** Which of these hex transaction ids (any wallet's) the ledger holds, lowercase: the secret scan asks about hex values only. */
export async function knownTxHashes(db: Queryable, hashes: readonly string[]): Promise<Set<string>> {
  const wanted = [...new Set(hashes.map((hash) => hash.toLowerCase()))];
  if (wanted.length === 0) return new Set();
  const rows = await db.query<{ tx_hash: string }>(
    "SELECT DISTINCT lower(tx_hash) AS tx_hash FROM payments WHERE lower(tx_hash) = ANY($1::text[])",
    [wanted],
  );
  return new Set(rows.map((row) => row.tx_hash));
}

export async function isKnownTxHash(db: Queryable, hash: string): Promise<boolean> {
  return (await knownTxHashes(db, [hash])).has(hash.toLowerCase());
}

// The JSON columns' shapes, one schema each, beside the marks that write them: a row is read back
// through its schema, so that one written by an older version, or changed by hand, is read for
// what it can be shown to be and nothing more. Built once; a row without them (a new reservation)
// is not parsed at all.

/** What a service's signed receipt came to, as the page and the agent are told (ReceiptSummary). */
const receiptSummaryShape = {
  status: z.enum(receiptStatuses),
  signer: z.string().optional(),
  reason: z.string().optional(),
};

/**
 * A payment's last update as the ledger keeps it (`payments.outcome`), to tell it again when the
 * same approval comes back: the parts that are not the payment's facts, under the names rows have
 * always held them. Without a stage of the flow it tells nothing; a detail that is not in its form
 * is left out and the rest is told.
 */
const recordedUpdateSchema = z.object({
  status: z.enum(paymentStages),
  reason: z.object({ code: z.enum(paymentFailureCodes), message: z.string() }).optional().catch(undefined),
  txHash: z.string().optional().catch(undefined),
  explorerUrl: z.string().optional().catch(undefined),
  collectableUntil: z
    .string()
    .refine((text) => !Number.isNaN(Date.parse(text)))
    .optional()
    .catch(undefined),
  receipt: z.object(receiptSummaryShape).optional().catch(undefined),
  /** Settled by what the chain showed after the person was told it had not moved (markSettled's `late`). */
  collectedLate: z.literal(true).optional().catch(undefined),
});

export type RecordedUpdate = z.infer<typeof recordedUpdateSchema>;

/**
 * A receipt as the ledger keeps it (`payments.receipt`, written by markSettled): what the service
 * sent, and what it came to (lib/payments/receipt.ts judges it).
 */
const storedReceiptSchema = z.object({
  ...receiptSummaryShape,
  format: z.enum(["eip712", "jws"]).optional(),
  /** Why the signing key speaks for the service: it is the payee's, or it signed the service's offer. */
  binding: z.enum(["pay-to", "offer"]).optional(),
  /** The signed receipt as received (the fields its signature covers). */
  signed: signedReceiptSchema.optional(),
  /** The signed offer it was held to. */
  offer: signedOfferSchema.optional(),
  checkedAt: z.string(),
});

export type StoredReceipt = z.infer<typeof storedReceiptSchema>;

function readOutcome(value: unknown): RecordedUpdate | null {
  if (value === null) return null;
  const parsed = recordedUpdateSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/**
 * A kept receipt, or null when the service gave none. One that is not in the form markSettled
 * writes cannot be shown to be what was judged: it is told as unverified, never as proof.
 */
function readReceipt(value: unknown): StoredReceipt | null {
  if (value === null) return null;
  const parsed = storedReceiptSchema.safeParse(value);
  return parsed.success ? parsed.data : { status: "unverified", reason: "the receipt kept with this payment could not be read", checkedAt: new Date().toISOString() };
}

/** What a payment ended with, as a mark records it: its last update (kept in its recorded form). */
type Outcome = PaymentUpdate | Partial<RecordedUpdate> | undefined;

function storedOutcome(outcome: Outcome): Partial<RecordedUpdate> | undefined {
  return outcome && "facts" in outcome ? recordedForm(outcome) : outcome;
}

function recordedForm(update: PaymentUpdate | undefined): RecordedUpdate | undefined {
  if (!update) return undefined;
  return {
    status: update.stage,
    ...(update.reason ? { reason: update.reason } : {}),
    ...(update.txHash ? { txHash: update.txHash } : {}),
    ...(update.explorerUrl ? { explorerUrl: update.explorerUrl } : {}),
    ...(update.collectableUntil ? { collectableUntil: update.collectableUntil.toISOString() } : {}),
    ...(update.receipt ? { receipt: update.receipt } : {}),
  };
}

/** The recorded last update of a payment, told again with its facts; undefined when none was recorded. */
export function recordedUpdate(facts: PaymentFacts, outcome: RecordedUpdate | null): PaymentUpdate | undefined {
  if (!outcome) return undefined;
  const { status, reason, txHash, explorerUrl, collectableUntil, receipt } = outcome;
  return {
    facts,
    stage: status,
    ...(reason ? { reason } : {}),
    ...(txHash !== undefined ? { txHash } : {}),
    ...(explorerUrl !== undefined ? { explorerUrl } : {}),
    ...(collectableUntil !== undefined ? { collectableUntil: new Date(collectableUntil) } : {}),
    ...(receipt ? { receipt } : {}),
  };
}
