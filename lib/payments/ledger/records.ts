// A payment as the ledger keeps it: its record, its row and the columns read, and the one form
// a wallet (and any hex value) is stored in. Every other part of the ledger reads rows through here.
import { caseKey } from "@/lib/address";
import { readOutcome, readReceipt, type RecordedUpdate, type StoredReceipt } from "./forms";

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

export type PaymentRow = {
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

export const columns = `payment_id, wallet, network, asset, pay_to, amount::text AS amount, scheme, max_amount::text AS max_amount, nonce, service_name,
  service_url, status, tx_hash, failure_code, outcome, created_at, settled_at, valid_before, from_block::text AS from_block, payer, receipt`;

/** A payment as a list shows it (and the part of a whole record read from the same columns): no status or receipt JSON, no authorization's details. */
export type ListedPayment = Pick<
  PaymentRecord,
  "paymentId" | "wallet" | "network" | "amount" | "scheme" | "maxAmount" | "serviceName" | "serviceUrl" | "status" | "txHash" | "createdAt" | "settledAt" | "payer"
>;

export const listedColumns = "payment_id, wallet, network, amount::text AS amount, scheme, max_amount::text AS max_amount, service_name, service_url, status, tx_hash, created_at, settled_at, payer";

export function toListed(row: PaymentRow): ListedPayment {
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

export function toRecord(row: PaymentRow): PaymentRecord {
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
export const walletKey = caseKey;

/** A person's wallets, whose payments count against one set of limits: one address, or several (an EVM and a Solana wallet). */
export type Wallets = string | readonly string[];

export const walletKeys = (wallets: Wallets): string[] => [...new Set((typeof wallets === "string" ? [wallets] : wallets).map(walletKey))].sort();

/**
 * A newest-first read of a person's payments, one wallet at a time (`$1`: their keys): each
 * wallet's rows come in its index's order, at most the limit of them, and the pages are merged.
 * One query, whatever the wallet's history holds; `wallet = ANY(...)` would sort it all first.
 */
export function perWallet(whereAndOrder: string, mergedOrder: string, select = columns): string {
  return `SELECT page.* FROM unnest($1::text[]) AS person(wallet)
    CROSS JOIN LATERAL (SELECT ${select} FROM payments WHERE payments.wallet = person.wallet ${whereAndOrder}) AS page
    ${mergedOrder}`;
}
