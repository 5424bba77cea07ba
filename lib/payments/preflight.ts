// Pre-flight (docs/contract.md, section 3, status `checking`): before a wallet is asked to sign, and again
// before a signed payment is sent, the balance must cover the price plus any gas the payer
// pays, and no daily, weekly, monthly or per-payment limit may be passed.
import type { Queryable } from "@/lib/db";
import { formatDollars, formatUsd } from "@/lib/money";
import { findBudgetBreach, findLimitBreach, withHeld, type BudgetCap, type LimitBreach } from "./ledger";
import type { SpendingLimits } from "./limits";
import { totalOf, type PaymentNetwork } from "./payment";
import type { PaymentRail } from "./rails/rail";

export type PreflightResult =
  | { ok: true; balance: bigint; warnings: string[] }
  | { ok: false; code: "limit-exceeded" | "insufficient-balance" | "blockchain-error"; message: string; breach?: LimitBreach };

export type RunPreflightParameters = {
  db: Queryable;
  /** The wallet that pays, whose limits the payment counts against... */
  wallet: string;
  /** ...with the person's other wallets, whose payments count against the same limits. */
  countedWith?: readonly string[];
  /** Paid from the wallet's agent budget: its session address pays, within the budget's total. */
  budget?: BudgetCap;
  rail: PaymentRail;
  network: PaymentNetwork;
  amount: bigint;
  limits: SpendingLimits;
  now?: Date;
};

export async function runPreflight(parameters: RunPreflightParameters): Promise<PreflightResult> {
  const { wallet, budget, rail, network, amount, limits } = parameters;
  const wallets = [wallet, ...(parameters.countedWith ?? [])];
  const at = parameters.now ? { now: parameters.now } : {};
  const overLimit = await findLimitBreach(parameters.db, { wallet: wallets, amount, limits, ...at });
  const breach = overLimit
    ? await withHeld(parameters.db, overLimit, { wallet: wallets, ...at })
    : budget
      ? await findBudgetBreach(parameters.db, { budget, amount })
      : undefined;
  if (breach) return { ok: false, code: "limit-exceeded", message: describeBreach(breach), breach };

  const checked = await checkBalance({ rail, network, payer: budget?.payer ?? wallet, fromBudget: budget !== undefined, amount });
  if (!checked.ok) return checked;
  const { balance } = checked;
  const total = totalOf({ amount, network });
  const warnings: string[] = [];
  // The original specification recommends a 20% buffer above the total.
  if (balance * 10n < total * 12n) {
    warnings.push(`Low balance: ${formatUsd(balance)} USDC covers this payment but leaves less than a 20% buffer.`);
  }
  return { ok: true, balance, warnings };
}

export type CheckBalanceParameters = { rail: PaymentRail; network: PaymentNetwork; payer: string; fromBudget: boolean; amount: bigint };

/**
 * The balance half of pre-flight: the payer holds the price plus any gas it pays. At approval
 * this is all pre-flight needs to add: the reservation checks the limits itself, atomically.
 */
export async function checkBalance({ rail, network, payer, fromBudget, amount }: CheckBalanceParameters): Promise<
  { ok: true; balance: bigint } | Extract<PreflightResult, { ok: false }>
> {
  const holder = fromBudget ? "Your agent budget" : "Your wallet";
  let balance: bigint;
  try {
    balance = await rail.balance(network, payer);
  } catch {
    return { ok: false, code: "blockchain-error", message: `Could not read your USDC balance on ${network.name}. Please try again.` };
  }
  const total = totalOf({ amount, network });
  if (balance < total) {
    return {
      ok: false,
      code: "insufficient-balance",
      message: `${holder} holds ${formatUsd(balance)} USDC on ${network.name}, less than the ${formatUsd(total)} USDC this payment needs.`,
    };
  }
  return { ok: true, balance };
}

const limitNames: Record<LimitBreach["limit"], string> = {
  daily: "daily (24 h)",
  weekly: "weekly (7 days)",
  monthly: "monthly (30 days)",
  perPayment: "per-payment",
  agentBudget: "agent budget",
};

export function describeBreach(breach: LimitBreach): string {
  if (breach.limit === "agentBudget") {
    const left = breach.limitAmount > breach.spent ? breach.limitAmount - breach.spent : 0n;
    return `Your agent budget has ${formatDollars(left)} of ${formatDollars(breach.limitAmount)} left, less than this payment of ${formatDollars(breach.amount)}.`;
  }
  if (breach.limit === "perPayment") {
    return `This payment of ${formatDollars(breach.amount)} is above your per-payment limit of ${formatDollars(breach.limitAmount)}.`;
  }
  const left = breach.limitAmount > breach.spent ? breach.limitAmount - breach.spent : 0n;
  // What is held (not settled, and may still move) is said apart from what was spent, as the budget panel says it.
  const counted = breach.held
    ? `${formatDollars(breach.spent - breach.held)} is spent and ${formatDollars(breach.held)} is held (not settled yet)`
    : `${formatDollars(breach.spent)} is already spent`;
  return `This payment of ${formatDollars(breach.amount)} would pass your ${limitNames[breach.limit]} limit of ${formatDollars(breach.limitAmount)}: ${counted}, ${formatDollars(left)} is left.`;
}
