// The agent budget as the page keeps it (lib/chain/delegation.ts): the wallet's signed
// delegation to a session key made in this browser, the network whose USDC was moved to it, and
// the key itself, sealed (lib/client/agent-budget-keys.ts). Kept in local storage per wallet.
// Light on purpose: the chat reads it on every request; the key's code loads only when used.
import { sameAddress } from "@/lib/address-text";
import { transferWithAuthorizationTypes } from "@/lib/chain/typed-data";
import type { WalletNetwork } from "@/lib/chain/wallet-networks";
import type { AgentBudgetGrant } from "@/lib/chain/delegation";
import type { SealedKey } from "./sealed-keys";
import type { ApprovalTypedData } from "./wallet-signer";

type Hex = `0x${string}`;

export type StoredAgentBudget = {
  grant: AgentBudgetGrant;
  /** The network the budget's USDC sits on. */
  network: WalletNetwork;
  sealedKey: SealedKey;
  /** ISO 8601. */
  grantedAt: string;
  /**
   * The grant transfer's transaction, once mined. Until then the budget is kept (its key may be
   * receiving USDC) but not used: a page closed mid-transfer must not lose the key to that money.
   */
  fundingTx?: Hex;
  /** Set on revoke: never sent or used again; kept only until what is left is withdrawn. */
  revokedAt?: string;
};

type KeyValueStore = Pick<Storage, "getItem" | "setItem" | "removeItem">;

/** Where a wallet's budget is kept in local storage (other tabs hear changes to it). */
export const storedBudgetKey = (wallet: string) => `x402.agentBudget.${wallet.toLowerCase()}`;
const storageKey = storedBudgetKey;

export function readStoredBudget(wallet: string, storage: KeyValueStore = localStorage): StoredAgentBudget | undefined {
  const raw = storage.getItem(storageKey(wallet));
  if (!raw) return undefined;
  try {
    const value = JSON.parse(raw) as StoredAgentBudget;
    const ok =
      typeof value?.grant?.session === "string" &&
      typeof value.grant.signature === "string" &&
      sameAddress(value.grant.wallet, wallet) &&
      typeof value.sealedKey?.iv === "string" &&
      typeof value.network?.chainId === "number";
    return ok ? value : undefined;
  } catch {
    return undefined;
  }
}

export function writeStoredBudget(budget: StoredAgentBudget, storage: KeyValueStore = localStorage): void {
  storage.setItem(storageKey(budget.grant.wallet), JSON.stringify(budget));
}

export function removeStoredBudget(wallet: string, storage: KeyValueStore = localStorage): void {
  storage.removeItem(storageKey(wallet));
}

/** Whether requests may carry this budget and its key may sign: funded, not revoked, not expired. */
export function isBudgetUsable(budget: StoredAgentBudget | undefined, now: Date = new Date()): budget is StoredAgentBudget {
  return (
    budget !== undefined &&
    budget.fundingTx !== undefined &&
    budget.revokedAt === undefined &&
    budget.grant.validUntil * 1000 > now.getTime()
  );
}

/** The quote a session-key signature is for, as its card shows it: who is paid, how much, until when. */
export type QuotedPayment = { payTo: string; amount: bigint; expiresAt: Date };

/** How far past the quote's own deadline, or past 10 minutes from now, a validBefore may reach: none. */
const MAX_AUTHORIZATION_SECONDS = 600;

/**
 * Why the session key must not sign this quote, if it must not: it has to be exactly an EIP-3009
 * USDC transfer authorization (its domain, its types) from the session address to the quote's
 * payee, of exactly the quote's amount, valid no longer than the quote, on the budget's network
 * and token, for no more than the threshold and the grant. The server checks all of it too; this
 * is the page's own wall, so that nothing else can be slipped to the key.
 */
export function sessionQuoteProblem(
  typedData: ApprovalTypedData,
  budget: StoredAgentBudget,
  threshold: bigint,
  quote: QuotedPayment,
  now: Date = new Date(),
): string | undefined {
  const { domain } = typedData;
  if (typedData.primaryType !== "TransferWithAuthorization" || !sameTypes(typedData.types)) return "it is not a USDC transfer authorization";
  // EIP-3009's message is flat: a field that is a struct is not one of its fields.
  const message: Record<string, string | undefined> = Object.fromEntries(Object.entries(typedData.message).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
  if (!message.from || !sameAddress(message.from, budget.grant.session)) return "it is not for the agent budget's address";
  const { usdc } = budget.network;
  if (domain.chainId !== budget.network.chainId || !sameAddress(domain.verifyingContract, usdc.address) || domain.name !== usdc.name || domain.version !== usdc.version) {
    return `it is not for USDC on ${budget.network.name}`;
  }
  if (!message.to || !sameAddress(message.to, quote.payTo)) return "it pays someone other than the quote's service";
  const value = BigInt(message.value ?? "0");
  if (value !== quote.amount) return "its amount is not the quote's";
  const seconds = Math.floor(now.getTime() / 1000);
  const validBefore = Number(message.validBefore);
  if (!(Number(message.validAfter ?? "0") <= seconds) || !(validBefore > seconds) || validBefore > Math.floor(quote.expiresAt.getTime() / 1000) || validBefore > seconds + MAX_AUTHORIZATION_SECONDS) {
    return "it is valid for longer than the quote";
  }
  if (value > threshold) return "it is above your confirmation threshold";
  if (value > BigInt(budget.grant.maxAmount)) return "it is more than the whole budget";
  return undefined;
}

function sameTypes(types: ApprovalTypedData["types"]): boolean {
  const { EIP712Domain: _domain, ...rest } = types;
  return JSON.stringify(rest) === JSON.stringify(transferWithAuthorizationTypes);
}

/**
 * Whether a failed transfer certainly sent nothing: the wallet refused it (EIP-1193's 4001, the
 * person said no). Anything else may have left a transaction on its way.
 */
export function wasRefusedByWallet(error: unknown): boolean {
  for (let cause = error, depth = 0; cause !== undefined && cause !== null && depth < 8; depth += 1) {
    const { code, name } = cause as { code?: unknown; name?: unknown };
    if (code === 4001 || name === "UserRejectedRequestError") return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

export type { SealedKey } from "./sealed-keys";
