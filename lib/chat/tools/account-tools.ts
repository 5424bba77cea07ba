// getSpending and updatePreferences (docs/contract.md, section 8): the person's spending from the ledger,
// and proposed settings sent to the browser as a `d:` line (the browser stores settings; a
// raised limit waits for the person's confirmation there).
import { tool, zodSchema } from "ai";
import { z } from "zod";
import { sameAddress } from "@/lib/address";
import { networkIdSchema, walletsOf } from "@/lib/chat/request";
import type { Period } from "@/lib/payments/ledger";
import { getLimitUse } from "@/lib/payments/spending-report";
import { formatUsd, parseUsd } from "@/lib/money";
import type { ToolContext } from "../agent";

const usdInput = z
  .union([z.number(), z.string()])
  .refine((value) => parseUsd(value) !== undefined, "a USD amount with at most 6 decimals")
  .describe("USD amount, e.g. 2 or \"2.50\"");

// The inputs, wrapped once per process so that their JSON schema is made once (see discovery-tools.ts).
const getSpendingInput = zodSchema(z.object({ period: z.enum(["day", "week", "month"]).optional() }));

const updatePreferencesInput = zodSchema(
  z.object({
    defaultChain: networkIdSchema.optional(),
    priority: z.enum(["cost", "speed"]).optional(),
    confirmationThreshold: usdInput.optional(),
    spendingLimits: z
      .object({
        daily: usdInput.optional(),
        weekly: usdInput.optional(),
        monthly: usdInput.optional(),
        perPayment: usdInput.optional(),
      })
      .optional(),
  }),
);

export function createAccountTools(context: ToolContext) {
  return {
    getSpending: tool({
      description:
        "The connected wallet's spending: spent and remaining against the daily, weekly and monthly limits, the per-payment limit, and recent payments with transaction links.",
      inputSchema: getSpendingInput,
      execute: async ({ period }) => {
        const wallets = Object.values(walletsOf(context));
        if (wallets.length === 0) {
          return { connected: false, summary: "No wallet is connected, so there is no spending to show. Connect a wallet first." };
        }
        // The limits count every wallet the person connected together. Which payments, to which
        // services, only for a wallet that proved itself in this request; for a wallet merely
        // named, the totals and what is left, as the chain already shows them.
        const proven = wallets.filter((wallet) => context.provenWallets.some((other) => sameAddress(other, wallet)));
        const history = proven.length === wallets.length;
        const use = await getLimitUse({ db: context.db, env: context.env, wallets, history: proven, limits: context.limits });
        const spending = use.periods.filter((entry) => !period || entry.period === period);
        const periods = spending.map((entry) => ({
          period: entry.period,
          // Counted against the limit: settled, and reserved or pending (money that may still move).
          spentUsd: formatUsd(entry.counted),
          limitUsd: formatUsd(entry.limit),
          remainingUsd: formatUsd(entry.remaining),
        }));
        const names: Record<Period, string> = { day: "24 hours", week: "7 days", month: "30 days" };
        return {
          connected: true,
          wallets,
          periods,
          perPaymentLimitUsd: formatUsd(context.limits.perPayment),
          ...(history ? {} : { history: "Sign in with this wallet (Budget → Show my payments) to see which payments these are." }),
          recentPayments: use.recent.map((payment) => ({
            service: payment.service,
            amountUsd: formatUsd(payment.amount),
            status: payment.status,
            network: payment.network,
            at: payment.at.toISOString(),
            // Paid by the wallet's agent budget, without a prompt.
            ...(payment.paidFrom ? { paidFrom: "agent budget" } : {}),
            ...(payment.txHash ? { txHash: payment.txHash } : {}),
            ...(payment.explorerUrl ? { explorerUrl: payment.explorerUrl } : {}),
          })),
          summary: spending
            .map((entry) => `Last ${names[entry.period]}: spent $${formatUsd(entry.counted)} of $${formatUsd(entry.limit)}, $${formatUsd(entry.remaining)} left.`)
            .concat(`Per-payment limit: $${formatUsd(context.limits.perPayment)}.`)
            .concat(use.periods.some((entry) => entry.counted > 0n) ? ["Spent counts settled payments and any still reserved or pending, which may yet move money."] : [])
            .join(" "),
        };
      },
    }),
    updatePreferences: tool({
      description:
        "Propose new settings to the person's browser: default chain, priority (cost or speed), confirmation threshold, spending limits. Lowering a limit applies at once; raising one needs the person's confirmation in the page.",
      inputSchema: updatePreferencesInput,
      execute: async (input) => {
        const preferences: Record<string, string> = {};
        if (input.defaultChain) preferences.defaultChain = input.defaultChain;
        if (input.priority) preferences.priority = input.priority;
        if (input.confirmationThreshold !== undefined) {
          preferences.confirmationThreshold = formatUsd(parseUsd(input.confirmationThreshold) ?? 0n);
        }
        const limits: Record<string, string> = {};
        const raised: string[] = [];
        for (const key of ["daily", "weekly", "monthly", "perPayment"] as const) {
          const value = input.spendingLimits?.[key];
          if (value === undefined) continue;
          const micros = parseUsd(value) ?? 0n;
          limits[key] = formatUsd(micros);
          if (micros > context.limits[key]) raised.push(key);
        }
        const hasPreferences = Object.keys(preferences).length > 0;
        const hasLimits = Object.keys(limits).length > 0;
        if (!hasPreferences && !hasLimits) return { proposed: false, summary: "Nothing to change was given." };
        context.writer.data({
          ...(hasPreferences ? { preferences } : {}),
          ...(hasLimits ? { spendingLimits: limits } : {}),
        });
        const parts = [
          ...Object.entries(preferences).map(([key, value]) => `${key} → ${value}`),
          ...Object.entries(limits).map(([key, value]) => `${key} limit → $${value}`),
        ];
        return {
          proposed: true,
          preferences,
          spendingLimits: limits,
          needsConfirmation: raised,
          summary: `Proposed: ${parts.join(", ")}.${
            raised.length > 0 ? ` Raising the ${raised.join(", ")} limit needs your confirmation in the page.` : ""
          } Lowered limits and other settings apply right away.`,
        };
      },
    }),
  };
}
