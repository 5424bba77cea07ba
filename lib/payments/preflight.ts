// Pre-flight (SPEC section 3, status `checking`): before a wallet is asked to sign, and again
// before a signed payment is sent, the balance must cover the price plus any gas the payer
// pays, and no daily, weekly, monthly or per-payment limit may be passed.
import { getUsdcBalance } from "@/lib/chain/clients";
import type { NetworkConfig } from "@/lib/chain/networks";
import type { Queryable } from "@/lib/db";
import { findLimitBreach, type LimitBreach } from "./ledger";
import type { SpendingLimits } from "./limits";
import { formatUsd } from "./money";

/** In x402's exact scheme on EVM the facilitator submits the transfer and pays its gas. */
export const PAYER_GAS_FEE = 0n;

export type PreflightResult =
  | { ok: true; balance: bigint; warnings: string[] }
  | { ok: false; code: "limit-exceeded" | "insufficient-balance" | "blockchain-error"; message: string; breach?: LimitBreach };

export async function runPreflight(parameters: {
  db: Queryable;
  wallet: `0x${string}`;
  network: NetworkConfig;
  amount: bigint;
  limits: SpendingLimits;
  now?: Date;
}): Promise<PreflightResult> {
  const { wallet, network, amount, limits } = parameters;
  const breach = await findLimitBreach(parameters.db, { wallet, amount, limits, ...(parameters.now ? { now: parameters.now } : {}) });
  if (breach) return { ok: false, code: "limit-exceeded", message: describeBreach(breach), breach };

  let balance: bigint;
  try {
    balance = await getUsdcBalance({ network, owner: wallet });
  } catch {
    return { ok: false, code: "blockchain-error", message: `Could not read your USDC balance on ${network.name}. Please try again.` };
  }
  const total = amount + PAYER_GAS_FEE;
  if (balance < total) {
    return {
      ok: false,
      code: "insufficient-balance",
      message: `Your wallet holds ${formatUsd(balance)} USDC on ${network.name}, less than the ${formatUsd(total)} USDC this payment needs.`,
    };
  }
  const warnings: string[] = [];
  // The original specification recommends a 20% buffer above the total.
  if (balance * 10n < total * 12n) {
    warnings.push(`Low balance: ${formatUsd(balance)} USDC covers this payment but leaves less than a 20% buffer.`);
  }
  return { ok: true, balance, warnings };
}

const limitNames: Record<LimitBreach["limit"], string> = {
  daily: "daily (24 h)",
  weekly: "weekly (7 days)",
  monthly: "monthly (30 days)",
  perPayment: "per-payment",
};

export function describeBreach(breach: LimitBreach): string {
  if (breach.limit === "perPayment") {
    return `This payment of $${formatUsd(breach.amount)} is above your per-payment limit of $${formatUsd(breach.limitAmount)}.`;
  }
  const left = breach.limitAmount > breach.spent ? breach.limitAmount - breach.spent : 0n;
  return `This payment of $${formatUsd(breach.amount)} would pass your ${limitNames[breach.limit]} limit of $${formatUsd(breach.limitAmount)}: $${formatUsd(breach.spent)} is already spent, $${formatUsd(left)} is left.`;
}
