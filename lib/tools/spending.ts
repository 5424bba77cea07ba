// getSpending (docs/contract.md, sections 8 and 11), door-free: the person's spending from the
// ledger against their limits, and which payments those are for a wallet that proved itself.
// The chat proves a wallet by its session or an approval it signed; MCP by the grant it signed.
import { z } from "zod";
import type { Database } from "@/lib/db";
import type { ServerEnv } from "@/lib/env";
import { describeUpTo, formatDollars, formatUsd } from "@/lib/money";
import type { Period } from "@/lib/payments/ledger";
import type { SpendingLimits } from "@/lib/payments/limits";

export const getSpendingTool = {
  description:
    "The connected wallet's spending: spent and remaining against the daily, weekly and monthly limits, the per-payment limit, and recent payments with transaction links.",
  input: z.object({ period: z.enum(["day", "week", "month"]).optional() }),
};

export type SpendingAnswerParameters = {
  db: Database;
  env: ServerEnv;
  /** Every wallet the person uses: their payments count against one set of limits. */
  wallets: readonly string[];
  /**
   * Those of them that proved themselves: which payments, to which services, only for them. Or,
   * for an AI app, the payments it asked for under its grant: only those are listed, beside the
   * wallet's totals.
   */
  proven: readonly string[] | { paymentIds: readonly string[] };
  limits: SpendingLimits;
  period?: Period | undefined;
};

export async function spendingAnswer({ db, env, wallets, proven, limits, period }: SpendingAnswerParameters) {
  if (wallets.length === 0) {
    return { connected: false, summary: "No wallet is connected, so there is no spending to show. Connect a wallet first." };
  }
  // For a wallet merely named: the totals and what is left, as the chain already shows them.
  const ownPayments = "paymentIds" in proven;
  const history = ownPayments || proven.length === wallets.length;
  // Loaded by the first spending question, not with the chat route (cold start).
  const { getLimitUse } = await import("@/lib/payments/spending-report");
  const use = await getLimitUse({ db, env, wallets, history: proven, limits });
  const spending = use.periods.filter((entry) => !period || entry.period === period);
  // Counted against the limit: what settled (spent), and what is held, reserved or pending, which
  // may still move money; what is left is the limit less both, as the budget panel says it.
  const periods = spending.map((entry) => ({
    period: entry.period,
    spentUsd: formatUsd(entry.counted - entry.held),
    ...(entry.held > 0n ? { heldUsd: formatUsd(entry.held) } : {}),
    limitUsd: formatUsd(entry.limit),
    remainingUsd: formatUsd(entry.remaining),
  }));
  const names: Record<Period, string> = { day: "24 hours", week: "7 days", month: "30 days" };
  return {
    connected: true,
    wallets,
    periods,
    perPaymentLimitUsd: formatUsd(limits.perPayment),
    ...(history ? {} : { history: "Sign in with this wallet (Budget → Show my payments) to see which payments these are." }),
    ...(ownPayments ? { history: "Only the payments this app asked for are listed; the totals count all of the wallet's payments." } : {}),
    recentPayments: use.recent.map((payment) => ({
      service: payment.service,
      amountUsd: formatUsd(payment.amount),
      // Usage-priced: the maximum, and what was charged once the chain showed it.
      ...(payment.maxAmount === undefined ? {} : { upTo: describeUpTo(payment.maxAmount, payment.status === "settled" ? payment.amount : undefined) }),
      status: payment.status,
      network: payment.network,
      at: payment.at.toISOString(),
      // Paid by the wallet's agent budget, without a prompt.
      ...(payment.paidFrom ? { paidFrom: "agent budget" } : {}),
      ...(payment.txHash ? { txHash: payment.txHash } : {}),
      ...(payment.explorerUrl ? { explorerUrl: payment.explorerUrl } : {}),
    })),
    summary: spending
      .map((entry) => {
        const held = entry.held > 0n ? ` and ${formatDollars(entry.held)} held (not settled; it may still move)` : "";
        return `Last ${names[entry.period]}: spent ${formatDollars(entry.counted - entry.held)}${held} of ${formatDollars(entry.limit)}, ${formatDollars(entry.remaining)} left.`;
      })
      .concat(`Per-payment limit: ${formatDollars(limits.perPayment)}.`)
      .join(" "),
  };
}
