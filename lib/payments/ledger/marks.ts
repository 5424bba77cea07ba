// The ledger's state writes: a payment reserved against the limits (atomically per wallet, once
// per payment id and nonce), then settled with its transaction, failed (released), pending on the
// chain, or checked by the sweep.
import { caseKey } from "@/lib/address";
import type { Database, Queryable } from "@/lib/db";
import { storedOutcome, type Outcome, type StoredReceipt } from "./forms";
import { columns, toRecord, walletKey, walletKeys, type PaymentRecord, type PaymentRow } from "./records";
import { findBudgetBreach, findLimitBreach, type BudgetCap, type LimitBreach } from "./totals";
import type { SpendingLimits } from "../limits";
import { FIRST_SCHEME } from "../rails/rail";

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
        payment.scheme ?? FIRST_SCHEME,
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
