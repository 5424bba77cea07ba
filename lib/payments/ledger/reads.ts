// Reads of payments: one by id or by its signed nonce, a person's recent, held and settled ones,
// a page of their history, and which transaction hashes the ledger holds.
import { caseKey } from "@/lib/address";
import type { Queryable } from "@/lib/db";
import { columns, listedColumns, perWallet, toListed, toRecord, walletKeys, type ListedPayment, type PaymentRecord, type PaymentRow, type Wallets } from "./records";

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
