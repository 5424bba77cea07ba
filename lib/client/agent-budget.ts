// The agent budget as the page keeps it (lib/chain/delegation.ts): the wallet's signed
// delegation to a session key made in this browser, the network whose USDC was moved to it, and
// the key itself, sealed (lib/client/agent-budget-keys.ts). Kept in local storage per wallet.
// Light on purpose: the chat reads it on every request; the key's code loads only when used.
import { sameAddress } from "@/lib/address";
import type { WalletNetwork } from "@/lib/chain/wallet-networks";
import type { AgentBudgetGrant } from "@/lib/chain/delegation";
import type { ApprovalTypedData } from "./wallet-signer";

type Hex = `0x${string}`;

export type SealedKey = { iv: string; data: string };

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

const storageKey = (wallet: string) => `x402.agentBudget.${wallet.toLowerCase()}`;

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

/**
 * Why the session key must not sign this quote, if it must not: it has to be a USDC transfer
 * authorization from the session address, on the budget's network and token, for no more than
 * the threshold and the grant. The server checks all of it too; this is the page's own wall.
 */
export function sessionQuoteProblem(typedData: ApprovalTypedData, budget: StoredAgentBudget, threshold: bigint): string | undefined {
  const { message, domain } = typedData;
  if (typedData.primaryType !== "TransferWithAuthorization") return "it is not a USDC transfer authorization";
  if (!message.from || !sameAddress(message.from, budget.grant.session)) return "it is not for the agent budget's address";
  if (domain.chainId !== budget.network.chainId || !sameAddress(domain.verifyingContract, budget.network.usdc.address)) {
    return `it is not for USDC on ${budget.network.name}`;
  }
  const value = BigInt(message.value ?? "0");
  if (value > threshold) return "it is above your confirmation threshold";
  if (value > BigInt(budget.grant.maxAmount)) return "it is more than the whole budget";
  return undefined;
}

