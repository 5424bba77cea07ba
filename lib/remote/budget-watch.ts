// The page's agent budget as the MCP door sees it (docs/contract.md, section 11). The budget's
// session key lives only in the page, so an app's quote can be paid from it only while a page
// holding it is open: that page says so every few seconds (`POST /api/mcp/budget`, the wallet's
// own session), sending the budget's grant (the wallet's signed delegation, no key) and the
// person's confirmation threshold. While it does, `payForService` offers the quote to the budget
// as the chat does (at or below the threshold, within what is left, one payment per request);
// the page's next call gets the quotes waiting for it, signs them with the session key and
// approves them as the approval page would. A page gone quiet for WATCH_FRESH_MS is not counted on.
//
// Apps' payments without a prompt have a bound of their own, whatever the chat's cooldown is (it
// may be 0): at most one every SILENT_SPACING_SECONDS and SILENT_PER_HOUR an hour per wallet,
// across its apps. Past it, an app's quote waits for the person's approval through its link, so
// an app that loops meets the person, not the key.
import { z } from "zod";
import { claimCooldown, releaseCooldown } from "@/lib/cooldown";
import type { Database, Queryable } from "@/lib/db";
import { AppError } from "@/lib/errors";
import type { BudgetGrant } from "@/lib/payments/rails/rail";
import type { PaymentStatus } from "@/lib/protocol/lines";
import { quoteForPage, storedQuoteSchema } from "./remote-payments";

/** How long a page's last word counts: a few of its calls. */
export const WATCH_FRESH_MS = 15_000;

export type StandingBudget = { grant: BudgetGrant; threshold: bigint };

/** At most one app payment without a prompt this often, per wallet. */
export const SILENT_SPACING_SECONDS = 10;
/** At most this many app payments without a prompt in any hour, per wallet. */
export const SILENT_PER_HOUR = 20;

/**
 * Claims the wallet's next app payment without a prompt, or says why there is none now: the
 * hour's count first (a read), then the spacing (claimed atomically, so two quotes at once cannot
 * both pass). A claim whose quote ends up asking the wallet anyway is given back (`give`).
 */
export async function claimSilentPayment(
  db: Database,
  wallet: string,
  now: Date = new Date(),
): Promise<{ claimed: true; give: () => Promise<void> } | { claimed: false; why: string }> {
  const [row] = await db.query<{ count: string | number }>(
    `SELECT count(*) AS count FROM mcp_payments
     WHERE wallet = $1 AND created_at > $2
       AND (quote->>'paidFrom' = 'agent-budget' OR (quote->'channel'->>'opening' = 'false' AND quote->'channel'->>'confirm' IS NULL))`,
    [wallet, new Date(now.getTime() - 3_600_000)],
  );
  const bound = `the agent budget pays an app's payment without a prompt at most once every ${SILENT_SPACING_SECONDS} s and ${SILENT_PER_HOUR} times an hour`;
  if (Number(row?.count ?? 0) >= SILENT_PER_HOUR) return { claimed: false, why: bound };
  const keys = [`mcp-silent:${wallet}`];
  try {
    await claimCooldown({ db, keys, seconds: SILENT_SPACING_SECONDS, now });
  } catch (error) {
    if (error instanceof AppError && error.code === "rate-limited") return { claimed: false, why: bound };
    throw error;
  }
  return { claimed: true, give: () => releaseCooldown({ db, keys, now }) };
}

/**
 * The grant as watchBudget keeps it (`mcp_budget_watch.budget`), read back through this: a row
 * that does not hold one (written by an older version, or changed by hand) is no budget. Its
 * signature is checked when a quote would use it, like every other grant's.
 */
const storedGrantSchema = z.object({
  wallet: z.string(),
  session: z.string(),
  maxAmount: z.string().regex(/^\d{1,78}$/),
  validUntil: z.number().int(),
  networks: z.array(z.string()),
  signature: z.string(),
}) satisfies z.ZodType<BudgetGrant>;

/**
 * A page open for the wallet says what it holds: the agent budget's grant and threshold, its
 * channel key (docs/contract.md, section 15), or both.
 */
export async function watchBudget(
  db: Queryable,
  { wallet, grant, threshold, channelKey, now = new Date() }: { wallet: string; grant?: BudgetGrant | undefined; threshold?: bigint | undefined; channelKey?: string | undefined; now?: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO mcp_budget_watch (wallet, budget, threshold, channel_key, seen_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (wallet) DO UPDATE SET budget = EXCLUDED.budget, threshold = EXCLUDED.threshold, channel_key = EXCLUDED.channel_key, seen_at = EXCLUDED.seen_at`,
    [wallet, grant ? JSON.stringify(grant) : null, grant ? (threshold ?? 0n).toString() : null, channelKey ?? null, now],
  );
}

export async function stopWatching(db: Queryable, wallet: string): Promise<void> {
  await db.query("DELETE FROM mcp_budget_watch WHERE wallet = $1", [wallet]);
}

/** The budget a page open for this wallet holds, if it spoke lately. */
export async function standingBudget(db: Queryable, wallet: string, now: Date = new Date()): Promise<StandingBudget | undefined> {
  const [row] = await db.query<{ budget: unknown; threshold: string | null }>(
    "SELECT budget, threshold::text AS threshold FROM mcp_budget_watch WHERE wallet = $1 AND seen_at > $2 AND budget IS NOT NULL",
    [wallet, new Date(now.getTime() - WATCH_FRESH_MS)],
  );
  const grant = row ? storedGrantSchema.safeParse(row.budget) : undefined;
  return row && grant?.success ? { grant: grant.data, threshold: BigInt(row.threshold ?? "0") } : undefined;
}

/** The channel key a page open for this wallet holds, if it spoke lately: an app's call may then be paid by channel. */
export async function standingChannelKey(db: Queryable, wallet: string, now: Date = new Date()): Promise<string | undefined> {
  const [row] = await db.query<{ channel_key: string }>(
    "SELECT channel_key FROM mcp_budget_watch WHERE wallet = $1 AND seen_at > $2 AND channel_key IS NOT NULL",
    [wallet, new Date(now.getTime() - WATCH_FRESH_MS)],
  );
  return row?.channel_key;
}

/**
 * An app's quotes the page signs without a prompt, still open and not yet approved: those made for
 * this wallet's budget, and calls on its open channels (their vouchers, for its channel key).
 */
export async function quotesForBudget(db: Queryable, wallet: string, now: Date = new Date()): Promise<Array<{ paymentId: string; quote: PaymentStatus; app: string }>> {
  const rows = await db.query<{ payment_id: string; quote: unknown; app_label: string }>(
    `SELECT m.payment_id, m.quote, m.app_label FROM mcp_payments m
     WHERE m.wallet = $1 AND m.result IS NULL AND m.expires_at > $2
       AND (m.quote->>'paidFrom' = 'agent-budget' OR (m.quote->'channel'->>'opening' = 'false' AND m.quote->'channel'->>'confirm' IS NULL))
       AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.payment_id = m.payment_id)
     ORDER BY m.created_at LIMIT 10`,
    [wallet, now],
  );
  // A quote that is not one (an older version's, or changed by hand) is not offered to the page to sign.
  return rows.flatMap((row) => {
    const quote = storedQuoteSchema.safeParse(row.quote);
    return quote.success ? [{ paymentId: row.payment_id, quote: quoteForPage(quote.data), app: row.app_label }] : [];
  });
}
