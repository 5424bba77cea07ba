// What the budget panel reads and how it counts: the `GET /api/spending` answer (docs/contract.md, section 9)
// checked with zod before the page uses it, and each period's meter (spent, limit, what is left)
// computed in bigint micro-dollars. Pure, so it is unit-tested without a browser.
import * as z from "zod/mini";
import { onFirstUse } from "@/lib/lazy-load";
import { formatUsd, parseUsd } from "@/lib/money";

export const budgetPeriods = ["day", "week", "month"] as const;
export type BudgetPeriod = (typeof budgetPeriods)[number];

// zod's small build, as everywhere on the page, built on its first use (lib/protocol/stream-payloads.ts).
/** The answer of `GET /api/spending?wallet=`; fields the page does not know are let through. */
export const spendingReportSchema = onFirstUse(() => {
  const usd = z.string().check(z.refine((value) => parseUsd(value) !== undefined, "must be a decimal USD amount"));
  return z.object({
    wallet: z.string(),
    /** Whether this is the wallet's own signed-in session: only then does `recent` name its payments. */
    signedIn: z.optional(z.boolean()),
    /** `heldUsd`, for the wallet's own session: held against the limit and not settled (docs/contract.md, section 12). */
    periods: z.array(z.object({ period: z.enum(budgetPeriods), spentUsd: usd, since: z.string(), heldUsd: z.optional(usd) })),
    /** For the wallet's own session: what is held and not settled, and until when the chain may still move it. */
    held: z.optional(
      z.array(
        z.object({
          paymentId: z.string(),
          service: z.object({ name: z.string(), url: z.string() }),
          network: z.string(),
          amountUsd: usd,
          delivered: z.optional(z.literal(true)),
          until: z.optional(z.string()),
          deposit: z.optional(z.literal(true)),
        }),
      ),
    ),
    /** For the wallet's own session: its pay-as-you-go channels, newest first (docs/contract.md, section 15). */
    channels: z.optional(
      z.array(
        z.object({
          channelId: z.string(),
          service: z.object({ name: z.string(), url: z.string() }),
          network: z.string(),
          state: z.enum(["opening", "open", "closing", "withdrawing", "closed"]),
          depositUsd: usd,
          spentUsd: usd,
          leftUsd: usd,
          calls: z.int(),
          withdrawDelaySeconds: z.int(),
          withdrawRequestedAt: z.optional(z.string()),
          closeTx: z.optional(z.string()),
          closeExplorerUrl: z.optional(z.string()),
          createdAt: z.string(),
        }),
      ),
    ),
    recent: z.array(
      z.object({
        paymentId: z.string(),
        service: z.object({ name: z.string(), url: z.string() }),
        network: z.string(),
        amountUsd: usd,
        txHash: z.string(),
        explorerUrl: z.optional(z.string()),
        settledAt: z.string(),
        paidFrom: z.optional(z.literal("agent-budget")),
      }),
    ),
  });
});

export type SpendingReport = z.infer<ReturnType<typeof spendingReportSchema>>;
export type RecentPayment = SpendingReport["recent"][number];
export type ChannelEntry = NonNullable<SpendingReport["channels"]>[number];
export type HeldPayment = NonNullable<SpendingReport["held"]>[number];

export type ReadSpendingResult =
  | { kind: "ok"; report: SpendingReport }
  /** 429: the read is rate-limited; `retryAfterSeconds` from the Retry-After header when given. */
  | { kind: "busy"; retryAfterSeconds?: number }
  /** Any other status, or an answer that is not a spending report. */
  | { kind: "failed" };

/** Reads a spending response: never throws for a bad status or a body of the wrong shape. */
export async function readSpendingResponse(response: Response): Promise<ReadSpendingResult> {
  if (response.status === 429) {
    const seconds = Number(response.headers.get("retry-after"));
    return Number.isInteger(seconds) && seconds > 0 ? { kind: "busy", retryAfterSeconds: seconds } : { kind: "busy" };
  }
  if (!response.ok) return { kind: "failed" };
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    return { kind: "failed" };
  }
  const parsed = spendingReportSchema().safeParse(body);
  return parsed.success ? { kind: "ok", report: parsed.data } : { kind: "failed" };
}

export type PeriodMeter = {
  period: BudgetPeriod;
  /** As the server sent it (a decimal string); "0" when the period is missing. */
  spentUsd: string;
  limitUsd: string;
  /** Held against the limit and not settled (a payment on its way, a signed maximum the service may still collect); "0" when none or not known. */
  heldUsd: string;
  /** limit − spent − held, never below 0. */
  leftUsd: string;
  /** How much of the limit is used, in thousandths, 0..1000 (integer arithmetic on micro-dollars). */
  usedPerMille: number;
  /** How much of it is held, in thousandths, drawn after what was used: the two never pass 1000. */
  heldPerMille: number;
  /** Spent at or above the limit (a limit of 0 counts as reached). */
  reached: boolean;
};

/**
 * One period's meter. A limit the person lowered below what was already spent shows as full, 0
 * left. What is held counts against the limit as the server counts it, so "left" is what a new
 * payment can still use; the meter's fill is what was spent, and what is held is drawn after it.
 */
export function periodMeter(period: BudgetPeriod, spentUsd: string, limitUsd: string, heldUsd = "0"): PeriodMeter {
  const spent = parseUsd(spentUsd) ?? 0n;
  const limit = parseUsd(limitUsd) ?? 0n;
  const held = parseUsd(heldUsd) ?? 0n;
  const counted = spent + held;
  const left = limit > counted ? limit - counted : 0n;
  const perMille = (amount: bigint) => (limit === 0n ? (amount > 0n ? 1000 : 0) : Number(amount >= limit ? 1000n : (amount * 1000n) / limit));
  const usedPerMille = perMille(spent);
  const heldPerMille = Math.min(perMille(counted), 1000) - usedPerMille;
  return { period, spentUsd, limitUsd, heldUsd: formatUsd(held), leftUsd: formatUsd(left), usedPerMille, heldPerMille, reached: counted >= limit };
}

/** The day, week and month meters of a report's periods (none yet: nothing spent) against the person's limits. */
export function budgetMeters(
  periods: SpendingReport["periods"],
  limits: { daily: string; weekly: string; monthly: string },
): PeriodMeter[] {
  const limitOf: Record<BudgetPeriod, string> = { day: limits.daily, week: limits.weekly, month: limits.monthly };
  return budgetPeriods.map((period) => {
    const entry = periods.find((one) => one.period === period);
    return periodMeter(period, entry?.spentUsd ?? "0", limitOf[period], entry?.heldUsd ?? "0");
  });
}
