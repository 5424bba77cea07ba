// The server's side of the agent budget (docs/contract.md, section 9): at quote time, whether a payment may be
// paid by the budget's session key without a prompt; at approval time, whether the grant that
// quote was made under still holds. A grant is used only when the wallet signed it (its rail
// checks the signature), it is for this wallet and network, it has not expired, the payment is
// at or below the person's confirmation threshold, and what is left of it covers the payment.
// Anything else falls back to the wallet's own prompt, with a note saying why when the person
// would wonder. The budget's total is enforced again at reservation (./ledger.ts), and the chain
// enforces it last: the session address holds only what the person moved there.
import { sameAddress } from "@/lib/address";
import type { Queryable } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { formatDollars } from "@/lib/money";
import { findBudgetBreach, type BudgetCap } from "./ledger";
import type { PaymentNetwork } from "./payment";
import { describeBreach } from "./preflight";
import { ChainUnavailableError, type BudgetGrant, type PaymentRail } from "./rails/rail";

/** A grant a payment is paid from: its cap as the ledger holds it to, and the grant itself. */
export type AgentBudgetUse = { budget: BudgetCap; grant: BudgetGrant };

export type ChooseAgentBudgetParameters = {
  db: Queryable;
  grant: BudgetGrant | undefined;
  wallet: string;
  rail: PaymentRail;
  network: PaymentNetwork;
  amount: bigint;
  /** The person's confirmation threshold: above it, a payment always asks. */
  threshold: bigint;
  now?: Date;
};

export type ChooseAgentBudgetReturnType = ({ use: true } & AgentBudgetUse) | { use: false; note?: string };

export async function chooseAgentBudget({
  db,
  grant,
  wallet,
  rail,
  network,
  amount,
  threshold,
  now = new Date(),
}: ChooseAgentBudgetParameters): Promise<ChooseAgentBudgetReturnType> {
  if (!grant) return { use: false };
  const problem = grantProblem(grant, { wallet, network, now });
  if (problem) return { use: false, note: `${problem} This payment needs your wallet's approval.` };
  if (amount > threshold) {
    return {
      use: false,
      note: `This payment of ${formatDollars(amount)} is above your confirmation threshold of ${formatDollars(threshold)}, so your agent budget does not pay it: it needs your wallet's approval.`,
    };
  }
  const budget = budgetOf(grant);
  const [signature, breach] = await Promise.all([grantSignatureProblem(grant, rail, network), findBudgetBreach(db, { budget, amount })]);
  if (signature) return { use: false, note: `${signature} This payment needs your wallet's approval.` };
  if (breach) return { use: false, note: `${describeBreach(breach)} This payment needs your wallet's approval; grant a new agent budget to go on without prompts.` };
  return { use: true, budget, grant };
}

/**
 * At approval time: the grant a session-key quote was made under must still hold (it may have
 * expired since) and be the wallet's signature, checked again rather than taken from the quote.
 * A refusal is a `bad-request`; a chain that cannot check a smart wallet's signature is a
 * `blockchain-error`. Either way nothing is reserved or paid.
 */
export async function agentBudgetRefusal(
  grant: BudgetGrant,
  { wallet, rail, network, now = new Date() }: { wallet: string; rail: PaymentRail; network: PaymentNetwork; now?: Date },
): Promise<AppError | undefined> {
  const refuse = (message: string) =>
    new AppError("bad-request", `${message} Nothing was paid.`, {
      details: { fields: [{ path: "payment.token", message: "its agent budget does not allow this payment" }] },
    });
  const problem = grantProblem(grant, { wallet, network, now });
  if (problem) return refuse(problem);
  const signature = await grantSignatureProblem(grant, rail, network, { throwIfUnavailable: true });
  return signature ? refuse(signature) : undefined;
}

/** The budget's cap as the ledger checks it. */
export function budgetOf(grant: BudgetGrant): BudgetCap {
  return { payer: grant.session, maxAmount: BigInt(grant.maxAmount) };
}

/** What is wrong with a grant for this payment that needs no chain to know, if anything. */
function grantProblem(grant: BudgetGrant, { wallet, network, now }: { wallet: string; network: PaymentNetwork; now: Date }): string | undefined {
  if (!sameAddress(grant.wallet, wallet)) return "The agent budget this page sent belongs to another wallet.";
  if (sameAddress(grant.session, wallet)) return "The agent budget's session address is the wallet itself.";
  if (grant.validUntil * 1000 <= now.getTime()) return `Your agent budget expired at ${new Date(grant.validUntil * 1000).toISOString()}.`;
  if (!grant.networks.includes(network.id)) return `Your agent budget does not cover ${network.name}.`;
  return undefined;
}

/** Why the wallet's signature of the grant does not hold, if it does not. */
async function grantSignatureProblem(
  grant: BudgetGrant,
  rail: PaymentRail,
  network: PaymentNetwork,
  { throwIfUnavailable = false }: { throwIfUnavailable?: boolean } = {},
): Promise<string | undefined> {
  try {
    return (await rail.verifyGrant(grant, network)) ? undefined : "The agent budget this page sent is not signed by your wallet.";
  } catch (error) {
    if (!(error instanceof ChainUnavailableError)) throw error;
    if (throwIfUnavailable) {
      throw new AppError("blockchain-error", `Could not check your agent budget's signature on ${network.name}: its RPC did not answer. Nothing was paid; please try again.`, { cause: error });
    }
    return `Could not check your agent budget's signature on ${network.name} (its RPC did not answer).`;
  }
}
