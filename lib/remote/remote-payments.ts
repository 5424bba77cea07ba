// The payments AI apps asked for through a remote door (MCP today), between the quote and the person's approval in the
// page, and after it until the app has read the outcome (docs/contract.md, section 11). Each
// row holds the quote as the page's card shows it (with its approval token), the grant it was
// asked under and that grant's limits, and, once known, how it ended and the service's data.
// The ledger stays the one record of money: this only carries a payment between two doors.
import { z } from "zod";
import { readPaymentStatus } from "@/lib/protocol/stream-payloads";
import type { Queryable } from "@/lib/db";
import type { SpendingLimits } from "@/lib/payments/limits";
import { paymentEnds, type PaymentEnd } from "@/lib/payments/payment";
import type { PaymentStatus } from "@/lib/protocol/lines";

/** How a payment an app asked for ended, as the app and the page are told. */
export type RemotePaymentResult = {
  status: string;
  /** What the app is told, the service's answer included. */
  summary: string;
  /** The same without the service's answer: what anyone holding the approval link may read. */
  publicSummary: string;
  end?: PaymentEnd;
  txHash?: string;
  explorerUrl?: string;
  /** The service's data, once delivered: for the grant's app, and the wallet's own session. */
  data?: unknown;
  /** The card's last state. */
  card?: PaymentStatus;
};

export type RemotePayment = {
  paymentId: string;
  grantId: string;
  /** What the person called the app the grant is for. */
  appLabel: string;
  wallet: string;
  grantValidUntil: Date;
  limits: SpendingLimits;
  /** The quote as the card shows it, approval token included. */
  quote: PaymentStatus;
  expiresAt: Date;
  result?: RemotePaymentResult;
  createdAt: Date;
};

type Row = {
  payment_id: string;
  grant_id: string;
  app_label: string;
  wallet: string;
  grant_valid_until: Date | string;
  limits: unknown;
  quote: unknown;
  expires_at: Date | string;
  result: unknown;
  created_at: Date | string;
};

// The JSON columns, read back through the shapes saveRemotePayment and recordRemoteResult write: a row
// that does not hold them (written by an older version, or changed by hand) is not a payment this
// server holds. Built once, with the module.

/** A quote as the card shows it: the stream's `p:` payload, through the page's own check of it. */
export const storedQuoteSchema = z.unknown().transform((value, context) => {
  const quote = readPaymentStatus(value);
  if (!quote) context.addIssue({ code: "custom", message: "is not a payment status" });
  return quote ?? z.NEVER;
});

const atomicUnits = z.string().regex(/^\d{1,78}$/).transform(BigInt);

const storedLimitsSchema = z.object({ daily: atomicUnits, weekly: atomicUnits, monthly: atomicUnits, perPayment: atomicUnits }) satisfies z.ZodType<SpendingLimits>;

const storedResultSchema = z.object({
  status: z.string(),
  summary: z.string(),
  publicSummary: z.string(),
  end: z.enum(paymentEnds).optional(),
  txHash: z.string().optional(),
  explorerUrl: z.string().optional(),
  data: z.unknown(),
  card: storedQuoteSchema.optional(),
}) satisfies z.ZodType<RemotePaymentResult>;

const storedColumnsSchema = z.object({ limits: storedLimitsSchema, quote: storedQuoteSchema, result: storedResultSchema.nullable() });

/**
 * The quote as the page reads it: the card and what to sign, never the approval token. The token
 * binds the service call and, for a quote made for an agent budget, the wallet's signed delegation;
 * the server keeps it and uses it when the page sends the signature. Anyone with the approval link
 * reads this.
 */
export function quoteForPage(quote: PaymentStatus): PaymentStatus {
  if (!quote.approval) return quote;
  const { token: _kept, ...approval } = quote.approval;
  return { ...quote, approval };
}

/** The whole approval in the page: the signature check, the reservation, the service's answer and the chain, as the chat allows. */
export const APPROVAL_DEADLINE_MS = 45_000;

/** How long a payment's outcome stays for its app to read, after its quote's time. */
const KEPT_FOR_MS = 24 * 60 * 60 * 1000;

export async function saveRemotePayment(db: Queryable, payment: Omit<RemotePayment, "result" | "createdAt">, now: Date = new Date()): Promise<void> {
  // What no app will read any more goes as a new one comes.
  await db.query("DELETE FROM mcp_payments WHERE created_at < $1", [new Date(now.getTime() - KEPT_FOR_MS)]);
  const { daily, weekly, monthly, perPayment } = payment.limits;
  await db.query(
    `INSERT INTO mcp_payments (payment_id, grant_id, app_label, wallet, grant_valid_until, limits, quote, expires_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      payment.paymentId,
      payment.grantId,
      payment.appLabel,
      payment.wallet,
      payment.grantValidUntil,
      JSON.stringify({ daily: String(daily), weekly: String(weekly), monthly: String(monthly), perPayment: String(perPayment) }),
      JSON.stringify(payment.quote),
      payment.expiresAt,
      now,
    ],
  );
}

/** The latest payments quoted under one grant, newest first: what an app may list of the wallet's history. */
export async function grantPaymentIds(db: Queryable, grantId: string, limit: number): Promise<string[]> {
  const rows = await db.query<{ payment_id: string }>("SELECT payment_id FROM mcp_payments WHERE grant_id = $1 ORDER BY created_at DESC LIMIT $2", [grantId, limit]);
  return rows.map((row) => row.payment_id);
}

export async function findRemotePayment(db: Queryable, paymentId: string): Promise<RemotePayment | undefined> {
  const [row] = await db.query<Row>("SELECT * FROM mcp_payments WHERE payment_id = $1", [paymentId]);
  const stored = row ? storedColumnsSchema.safeParse(row) : undefined;
  if (!row || !stored?.success) return undefined;
  const { limits, quote, result } = stored.data;
  return {
    paymentId: row.payment_id,
    grantId: row.grant_id,
    appLabel: row.app_label,
    wallet: row.wallet,
    grantValidUntil: new Date(row.grant_valid_until),
    limits,
    quote,
    expiresAt: new Date(row.expires_at),
    ...(result ? { result } : {}),
    createdAt: new Date(row.created_at),
  };
}

/** Records how the payment ended; the first outcome known stands, except that a delivery completes an unknown one. */
export async function recordRemoteResult(db: Queryable, paymentId: string, result: RemotePaymentResult, now: Date = new Date()): Promise<void> {
  await db.query(
    `UPDATE mcp_payments SET result = $2, finished_at = $3
     WHERE payment_id = $1 AND (result IS NULL OR result->>'end' IS NULL)`,
    [paymentId, JSON.stringify(result), now],
  );
}
