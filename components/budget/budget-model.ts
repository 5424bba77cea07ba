// What the budget panel reads and how it counts: the `GET /api/spending` answer (docs/contract.md, section 9)
// checked with zod before the page uses it, and each period's meter (spent, limit, what is left)
// computed in bigint micro-dollars. Pure, so it is unit-tested without a browser.
import * as z from "zod/mini";
import { onFirstUse } from "@/lib/client/lazy-load";
import { formatUsd, parseUsd } from "@/lib/money";

export const budgetPeriods = ["day", "week", "month"] as const;
export type BudgetPeriod = (typeof budgetPeriods)[number];

// zod's small build, as everywhere on the page, built on its first use (lib/client/stream-payloads.ts).
/** The answer of `GET /api/spending?wallet=`; fields the page does not know are let through. */
export const spendingReportSchema = onFirstUse(() => {
  const usd = z.string().check(z.refine((value) => parseUsd(value) !== undefined, "must be a decimal USD amount"));
  return z.object({
    wallet: z.string(),
    /** Whether this is the wallet's own signed-in session: only then does `recent` name its payments. */
    signedIn: z.optional(z.boolean()),
    periods: z.array(z.object({ period: z.enum(budgetPeriods), spentUsd: usd, since: z.string() })),
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
  /** limit − spent, never below 0. */
  leftUsd: string;
  /** How much of the limit is used, in thousandths, 0..1000 (integer arithmetic on micro-dollars). */
  usedPerMille: number;
  /** Spent at or above the limit (a limit of 0 counts as reached). */
  reached: boolean;
};

/** One period's meter. A limit the person lowered below what was already spent shows as full, 0 left. */
export function periodMeter(period: BudgetPeriod, spentUsd: string, limitUsd: string): PeriodMeter {
  const spent = parseUsd(spentUsd) ?? 0n;
  const limit = parseUsd(limitUsd) ?? 0n;
  const left = limit > spent ? limit - spent : 0n;
  const usedPerMille = limit === 0n ? (spent > 0n ? 1000 : 0) : Number(spent >= limit ? 1000n : (spent * 1000n) / limit);
  return { period, spentUsd, limitUsd, leftUsd: formatUsd(left), usedPerMille, reached: spent >= limit };
}

/** The day, week and month meters of a report's periods (none yet: nothing spent) against the person's limits. */
export function budgetMeters(
  periods: SpendingReport["periods"],
  limits: { daily: string; weekly: string; monthly: string },
): PeriodMeter[] {
  const limitOf: Record<BudgetPeriod, string> = { day: limits.daily, week: limits.weekly, month: limits.monthly };
  return budgetPeriods.map((period) => {
    const spentUsd = periods.find((entry) => entry.period === period)?.spentUsd ?? "0";
    return periodMeter(period, spentUsd, limitOf[period]);
  });
}
