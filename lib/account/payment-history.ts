// `GET /api/spending/history`: a person's whole payment history, for their own signed-in
// session only: a page at a time as JSON (newest first, filtered by period and by service), or
// all of it as CSV for their books. Each row is a settled payment with its transaction's link,
// and the service's signed receipt where it gave one: verified, with the key that signed it, or
// unverified, with why (lib/payments/receipt.ts). Text that came from services (their names and
// URLs, what a receipt says) is written so that a spreadsheet never runs it as a formula.
import { z } from "zod";
import type { Database } from "@/lib/db";
import type { ServerEnv } from "@/lib/env";
import { AppError, toAppError } from "@/lib/errors";
import { describeUpTo, formatUnits } from "@/lib/money";
import { clientKey, type RateLimiter } from "@/lib/rate-limit";
import { isSignedInAs } from "@/lib/session";
import { paymentHistory, periods, type HistoryCursor, type HistoryFilter, type PaymentRecord, type StoredReceipt } from "@/lib/payments/ledger";
import { channelsOfDeposits } from "@/lib/payments/ledger/channels";
import { protocolOfScheme } from "@/lib/payments/protocols";
import { paymentRails } from "@/lib/payments/rails";
import { transactionLink } from "@/lib/payments/spending-report";
import { spendingQuerySchema } from "./spending-request";

export const HISTORY_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;
/** The most rows one CSV export holds; a longer history is exported by period. */
export const MAX_EXPORT_ROWS = 100_000;
const EXPORT_PAGE_SIZE = 1_000;

const cursorSchema = z
  .string()
  .max(200)
  .transform((text, context): HistoryCursor => {
    try {
      const { at, id } = z.object({ at: z.iso.datetime(), id: z.string().min(1).max(100) }).parse(JSON.parse(Buffer.from(text, "base64url").toString("utf8")));
      return { at: new Date(at), paymentId: id };
    } catch {
      context.addIssue({ code: "custom", message: "is not a cursor this endpoint gave" });
      return z.NEVER;
    }
  });

export const historyQuerySchema = z.object({
  // The same wallets as GET /api/spending: one or a person's two, one per chain family.
  wallet: spendingQuerySchema.shape.wallet,
  period: z.enum(["day", "week", "month", "all"]).default("all"),
  service: z.string().trim().max(100).optional(),
  cursor: cursorSchema.optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(HISTORY_PAGE_SIZE),
  format: z.enum(["json", "csv"]).default("json"),
});

export type HistoryQuery = z.infer<typeof historyQuerySchema>;

export type HistoryEntry = {
  paymentId: string;
  wallet: string;
  service: { name: string; url: string };
  network: string;
  /** The network's name, e.g. "Base"; the id when this server no longer pays on it. */
  chain: string;
  amountUsd: string;
  /** Usage-priced (x402 `upto`): the maximum signed for, decimal USDC; `amountUsd` is what was charged. */
  upToUsd?: string;
  /** Usage-priced: "up to $X, charged $Y". */
  upTo?: string;
  /** What the payer paid on top of the price (0 where the facilitator pays the gas). */
  feeUsd: string;
  totalUsd: string;
  txHash: string;
  explorerUrl: string;
  settledAt: string;
  paidFrom?: "agent-budget";
  /** The protocol it was paid through, by its registered name (`x402`, `mpp`). */
  protocol: string;
  /** The service's signed receipt (x402 `offer-receipt`), where it gave one. */
  receipt?: HistoryReceipt;
  /**
   * Collected after the person was told it had not moved (a service that said it charged nothing,
   * or whose answer failed while the payment was pending): found on chain later, and why it is here.
   */
  collectedLate?: { note: string };
  /**
   * A pay-as-you-go channel's deposit (docs/contract.md, section 15): `amountUsd` is what its calls
   * took (what the service claimed on chain, once closed); each call with its voucher's amount; and
   * what came back, with its transaction.
   */
  channel?: {
    depositUsd: string;
    state: string;
    calls: Array<{ at: string; amountUsd: string; status: string }>;
    returned?: { usd: string; txHash: string; explorerUrl: string };
  };
};

/**
 * A receipt in the history: what it came to (`verified` names the key that signed it,
 * `unverified` says why it proves nothing), and the signed receipt and offer as received, for the
 * person to keep.
 */
export type HistoryReceipt = Pick<StoredReceipt, "status" | "signer" | "reason" | "format" | "signed" | "offer">;

export type HistoryPage = { wallets: string[]; payments: HistoryEntry[]; next?: string };

export type HistoryDependencies = {
  env: () => ServerEnv;
  database: () => Promise<Database>;
  rateLimit: RateLimiter;
  now?: () => Date;
};

export async function handleHistoryRequest(request: Request, deps: HistoryDependencies): Promise<Response> {
  try {
    const env = deps.env();
    const now = deps.now?.() ?? new Date();
    deps.rateLimit.take(clientKey(request, env), now);
    const query = readHistoryQuery(request);
    // Only the wallets of this session: anyone else's history is never shown, not even in part.
    const wallets = query.wallet.filter((wallet) => isSignedInAs(request, wallet, env, now));
    if (wallets.length === 0) {
      throw new AppError("unauthorized", "Payment history is shown only to the wallet's owner: sign in with the wallet (Show my payments), then ask again.");
    }
    const db = await deps.database();
    const filter = { since: query.period === "all" ? undefined : new Date(now.getTime() - periods[query.period]), service: query.service };
    if (query.format === "csv") return csvResponse(request, db, env, wallets, filter, now);

    const rows = await paymentHistory(db, wallets, { ...filter, after: query.cursor, limit: query.limit + 1 });
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    const channels = await channelsOfDeposits(db, page.map((record) => record.paymentId));
    const body: HistoryPage = {
      wallets,
      payments: page.map((record) => entryOf(record, env, channels.get(record.paymentId))),
      ...(rows.length > query.limit && last ? { next: cursorOf(last) } : {}),
    };
    return Response.json(body, { headers: { "Cache-Control": "no-store" } });
  } catch (error) {
    const response = toAppError(error).toResponse();
    response.headers.set("Cache-Control", "no-store");
    return response;
  }
}

export function readHistoryQuery(request: Request): HistoryQuery {
  const params = new URL(request.url).searchParams;
  const single = (name: string) => params.get(name) ?? undefined;
  const parsed = historyQuerySchema.safeParse({
    wallet: params.getAll("wallet"),
    period: single("period"),
    service: single("service"),
    cursor: single("cursor"),
    limit: single("limit"),
    format: single("format"),
  });
  if (parsed.success) return parsed.data;
  const fields = parsed.error.issues.map((issue) => ({ path: String(issue.path[0] ?? "query"), message: issue.message }));
  throw new AppError("bad-request", `The history query is not valid: ${fields.map((field) => `${field.path} ${field.message}`).join("; ")}.`, { details: { fields } });
}

const settledAtOf = (record: PaymentRecord) => record.settledAt ?? record.createdAt;

function cursorOf(record: PaymentRecord): string {
  return Buffer.from(JSON.stringify({ at: settledAtOf(record).toISOString(), id: record.paymentId }), "utf8").toString("base64url");
}

function entryOf(record: PaymentRecord, env: ServerEnv, opened?: DepositChannel): HistoryEntry {
  const network = paymentRails(env).find(record.network)?.network;
  const decimals = network?.asset.decimals ?? 6;
  const fee = network?.payerFee ?? 0n;
  return {
    paymentId: record.paymentId,
    wallet: record.wallet,
    service: { name: record.serviceName, url: record.serviceUrl },
    network: record.network,
    chain: network?.name ?? record.network,
    amountUsd: formatUnits(record.amount, decimals),
    // A usage-priced payment's maximum; a deposit's (which a channel's row says) is not one.
    ...(record.maxAmount === null || opened ? {} : { upToUsd: formatUnits(record.maxAmount, decimals), upTo: describeUpTo(record.maxAmount, record.amount) }),
    feeUsd: formatUnits(fee, decimals),
    totalUsd: formatUnits(record.amount + fee, decimals),
    txHash: record.txHash ?? "",
    explorerUrl: transactionLink(record.network, record.txHash ?? "", env),
    settledAt: settledAtOf(record).toISOString(),
    ...(record.payer ? { paidFrom: "agent-budget" as const } : {}),
    protocol: protocolOfScheme(record.scheme).name,
    ...(record.receipt ? { receipt: historyReceipt(record.receipt) } : {}),
    ...(record.outcome?.collectedLate ? { collectedLate: { note: lateNote(record) } } : {}),
    ...(opened ? { channel: channelEntry(opened, env, decimals) } : {}),
  };
}

type DepositChannel = NonNullable<ReturnType<Awaited<ReturnType<typeof channelsOfDeposits>>["get"]>>;

/** A deposit's channel as the history tells it: its calls, and what came back at the close. */
function channelEntry({ channel, calls }: DepositChannel, env: ServerEnv, decimals: number): NonNullable<HistoryEntry["channel"]> {
  const back = channel.claimed !== null && channel.closeTx ? channel.deposit - channel.claimed : undefined;
  return {
    depositUsd: formatUnits(channel.deposit, decimals),
    state: channel.state,
    calls: calls.map((call) => ({ at: call.createdAt.toISOString(), amountUsd: formatUnits(call.amount, decimals), status: call.status })),
    ...(back !== undefined && channel.closeTx
      ? { returned: { usd: formatUnits(back, decimals), txHash: channel.closeTx, explorerUrl: transactionLink(channel.network, channel.closeTx, env) } }
      : {}),
  };
}

/** Why a payment the person was told had not moved is in their history after all. */
function lateNote(record: PaymentRecord): string {
  return record.outcome?.status === "delivered"
    ? `${record.serviceName} delivered and said it had charged nothing, then collected this on chain later, within the window the signature allowed.`
    : `${record.serviceName}'s answer failed and the payment was left pending; the service collected it on chain later, without delivering its data.`;
}

function historyReceipt({ status, signer, reason, format, signed, offer }: StoredReceipt): HistoryReceipt {
  return {
    status,
    ...(signer ? { signer } : {}),
    ...(status === "unverified" && reason ? { reason } : {}),
    ...(format ? { format } : {}),
    ...(signed ? { signed } : {}),
    ...(offer ? { offer } : {}),
  };
}

// The receipt's columns come last, so a sheet built on the earlier columns keeps working:
// `receipt` is verified, unverified or none; `receipt_signer` the key that signed it;
// `receipt_note` why an unverified one proves nothing.
const CSV_COLUMNS = [
  "date",
  "service",
  "service_url",
  "network",
  "chain",
  "wallet",
  "amount_usdc",
  "fee_usdc",
  "total_usdc",
  "transaction",
  "transaction_url",
  "payment_id",
  "paid_from",
  "receipt",
  "receipt_signer",
  "receipt_note",
  "up_to_usdc",
  "collected_late",
  "deposit_usdc",
  "deposit_calls",
  "deposit_returned_usdc",
  "deposit_return_transaction",
];

/**
 * One CSV field: quoted when it holds a comma, quote or line break; text a spreadsheet would run
 * as a formula (starting with =, +, -, @, a tab or a carriage return) is prefixed with a quote mark.
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function csvRow(entry: HistoryEntry, origin: string): string {
  return [
    entry.settledAt,
    entry.service.name,
    entry.service.url,
    entry.network,
    entry.chain,
    entry.wallet,
    entry.amountUsd,
    entry.feeUsd,
    entry.totalUsd,
    entry.txHash,
    new URL(entry.explorerUrl, origin).toString(),
    entry.paymentId,
    entry.paidFrom ?? "wallet",
    entry.receipt?.status ?? "none",
    entry.receipt?.signer ?? "",
    entry.receipt?.reason ?? "",
    entry.upToUsd ?? "",
    entry.collectedLate?.note ?? "",
    entry.channel?.depositUsd ?? "",
    entry.channel ? String(entry.channel.calls.length) : "",
    entry.channel?.returned?.usd ?? "",
    entry.channel?.returned?.txHash ?? "",
  ]
    .map(csvField)
    .join(",");
}

/** The whole history (up to MAX_EXPORT_ROWS), read a page at a time as the answer streams. */
function csvResponse(request: Request, db: Database, env: ServerEnv, wallets: string[], filter: Omit<HistoryFilter, "limit">, now: Date): Response {
  const origin = new URL(request.url).origin;
  const encoder = new TextEncoder();
  let after: HistoryCursor | undefined;
  let written = 0;
  let started = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(`${CSV_COLUMNS.join(",")}\r\n`));
        return;
      }
      const rows = await paymentHistory(db, wallets, { ...filter, after, limit: Math.min(EXPORT_PAGE_SIZE, MAX_EXPORT_ROWS - written) });
      if (rows.length === 0) {
        controller.close();
        return;
      }
      written += rows.length;
      const last = rows.at(-1) as PaymentRecord;
      after = { at: settledAtOf(last), paymentId: last.paymentId };
      const channels = await channelsOfDeposits(db, rows.map((record) => record.paymentId));
      controller.enqueue(encoder.encode(rows.map((record) => `${csvRow(entryOf(record, env, channels.get(record.paymentId)), origin)}\r\n`).join("")));
      if (written >= MAX_EXPORT_ROWS || rows.length < EXPORT_PAGE_SIZE) controller.close();
    },
  });
  return new Response(stream, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="x402-payments-${now.toISOString().slice(0, 10)}.csv"`,
      "Cache-Control": "no-store",
    },
  });
}
