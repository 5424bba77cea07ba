// getSpending and updatePreferences (docs/contract.md, section 8): the person's spending from the
// ledger (its answer is door-free, lib/tools/spending.ts), and proposed settings sent to the
// browser as a `d:` line (the browser stores settings; a raised limit waits for the person's
// confirmation there).
import { tool, zodSchema } from "ai";
import { z } from "zod";
import { sameAddress } from "@/lib/address";
import { networkIdSchema } from "@/lib/chat/request";
import { getSpendingTool, spendingAnswer } from "@/lib/tools/spending";
import { dollarsOf, formatUsd, parseUsd } from "@/lib/money";
import type { ToolContext } from "@/lib/chat/agent";

const usdInput = z
  .union([z.number(), z.string()])
  .refine((value) => parseUsd(value) !== undefined, "a USD amount with at most 6 decimals")
  .describe("USD amount, e.g. 2 or \"2.50\"");

// The inputs, wrapped once per process so that their JSON schema is made once (see discovery-tools.ts).
const getSpendingInput = zodSchema(getSpendingTool.input);

/** The settings as a person names them, in the summary the agent relays. */
const settingWords: Record<string, string> = {
  defaultChain: "default chain",
  priority: "priority",
  confirmationThreshold: "confirmation threshold",
  daily: "daily",
  weekly: "weekly",
  monthly: "monthly",
  perPayment: "per-payment",
};

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
      description: getSpendingTool.description,
      inputSchema: getSpendingInput,
      execute: ({ period }) => {
        const wallets = Object.values(context.wallets);
        // The limits count every wallet the person connected together; which payments, only for
        // a wallet that proved itself in this request.
        const proven = wallets.filter((wallet) => context.provenWallets.some((other) => sameAddress(other, wallet)));
        return spendingAnswer({ db: context.db, env: context.env, wallets, proven, limits: context.limits, period });
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
          ...Object.entries(preferences).map(([key, value]) => `${settingWords[key] ?? key} → ${key === "confirmationThreshold" ? dollarsOf(value) : value}`),
          ...Object.entries(limits).map(([key, value]) => `${settingWords[key] ?? key} limit → ${dollarsOf(value)}`),
        ];
        return {
          proposed: true,
          preferences,
          spendingLimits: limits,
          needsConfirmation: raised,
          summary: `Proposed: ${parts.join(", ")}.${
            raised.length > 0 ? ` Raising the ${raised.map((key) => settingWords[key] ?? key).join(", ")} limit needs your confirmation in the page.` : ""
          } Lowered limits and other settings apply right away.`,
        };
      },
    }),
  };
}
