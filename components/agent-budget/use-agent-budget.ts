"use client";
// The connected wallet's agent budget: what this browser holds of it (lib/client/agent-budget.ts),
// what is left of it on chain, and the two things a person does with it. Granting makes a session
// key here, has the wallet sign the delegation and move the amount to the key's address (two
// wallet prompts, the person pays the transfer's gas). Revoking stops its use at once, has the
// key sign an EIP-3009 authorization returning everything left, and has the wallet submit it.
// What is left is the session address's USDC balance: the chain's figure, not the page's sum.
import { useCallback, useEffect, useState } from "react";
import { useCommitted } from "@/components/shared/use-committed";
import type { PaymentWallet, WalletActions } from "@/components/wallet/wallet-context";
import type { WalletNetwork } from "@/lib/chain/wallet-networks";
import {
  isBudgetUsable,
  readStoredBudget,
  removeStoredBudget,
  sessionQuoteProblem,
  storedBudgetKey,
  wasRefusedByWallet,
  writeStoredBudget,
  type QuotedPayment,
  type StoredAgentBudget,
} from "@/lib/client/agent-budget";
import type { ApprovalTypedData } from "@/lib/client/wallet-signer";
import type { AgentBudgetDelegation, AgentBudgetGrant } from "@/lib/chain/delegation";
import { formatUsd, ZERO_USD } from "@/lib/money";

const loadKeys = () => import("@/lib/client/agent-budget-keys");

export type GrantInput = { amount: bigint; validUntil: number; network: WalletNetwork };

export type AgentBudgetNotice = { kind: "granted" | "returned"; message: string; txHash: `0x${string}`; network: WalletNetwork };

export type AgentBudgetState = {
  /** This browser's budget for the connected wallet, revoked or not. */
  stored: StoredAgentBudget | undefined;
  /** Not revoked and not expired: requests carry it and its key signs. */
  usable: boolean;
  /** USDC still at the session address (atomic units); undefined while unknown. */
  left: bigint | undefined;
  busy: "granting" | "revoking" | undefined;
  error: string | undefined;
  notice: AgentBudgetNotice | undefined;
  grant: (input: GrantInput) => Promise<void>;
  revoke: () => Promise<void>;
  /** Drops a revoked budget whose funding never confirmed and whose address holds nothing: the person says nothing will arrive. */
  forget: () => void;
  /** The grant requests carry, read at send time. */
  requestGrant: () => AgentBudgetGrant | undefined;
  /** Signs a quote made for the budget, after the page's own checks; absent without a usable budget. */
  signQuote: ((typedData: ApprovalTypedData, threshold: bigint, quote: QuotedPayment) => Promise<`0x${string}`>) | undefined;
};

/** `onMoved`: USDC moved between the wallet and the budget (a grant or a withdrawal): balances are read again. */
export function useAgentBudget(wallet: Pick<PaymentWallet, "address" | "actions">, refreshKey: number, onMoved?: () => void): AgentBudgetState {
  const { address, actions } = wallet;
  const [stored, setStored] = useState<StoredAgentBudget | undefined>(undefined);
  const [left, setLeft] = useState<bigint | undefined>(undefined);
  const [busy, setBusy] = useState<AgentBudgetState["busy"]>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [notice, setNotice] = useState<AgentBudgetNotice | undefined>(undefined);
  const [readKey, setReadKey] = useState(0);
  // The budget as committed, for what runs after a render (a revoke, a request's grant).
  const storedRef = useCommitted(stored);

  useEffect(() => {
    setStored(address ? readStoredBudget(address) : undefined);
    setError(undefined);
    if (!address) return;
    // Another tab of this page granted, revoked or withdrew: every open tab hears it at once.
    const heard = (event: StorageEvent) => {
      if (event.key === null || event.key === storedBudgetKey(address)) setStored(readStoredBudget(address));
    };
    window.addEventListener("storage", heard);
    return () => window.removeEventListener("storage", heard);
  }, [address]);

  // The balance at the session address: read when the budget, a payment or a grant changes it.
  useEffect(() => {
    if (!stored || !actions) {
      setLeft(undefined);
      return;
    }
    let live = true;
    actions.usdcBalanceOf(stored.network, stored.grant.session).then(
      (value) => live && setLeft(value),
      () => live && setLeft(undefined),
    );
    return () => {
      live = false;
    };
  }, [stored, actions, refreshKey, readKey]);

  const save = (next: StoredAgentBudget | undefined, owner: string) => {
    if (next) writeStoredBudget(next);
    else removeStoredBudget(owner);
    setStored(next);
  };

  const grant = async ({ amount, validUntil, network }: GrantInput) => {
    if (!address || !actions) {
      setError("Connect a wallet first.");
      return;
    }
    setBusy("granting");
    setError(undefined);
    setNotice(undefined);
    await fundBudget({ amount, validUntil, network }, address, actions, (next) => save(next, address)).then(
      (fundingTx) => {
        onMoved?.();
        setNotice({ kind: "granted", message: `Moved ${formatUsd(amount)} USDC to your agent budget.`, txHash: fundingTx, network });
      },
      (cause: unknown) => setError(`The budget was not granted: ${describe(cause)}`),
    );
    setBusy(undefined);
  };

  const revoke = async () => {
    const current = storedRef.current;
    if (!current || !address || !actions) return;
    setBusy("revoking");
    setError(undefined);
    setNotice(undefined);
    // Stopped first: whatever happens next, the key signs no more payments.
    const revoked = current.revokedAt ? current : { ...current, revokedAt: new Date().toISOString() };
    save(revoked, address);
    const returned = (notice: AgentBudgetNotice) => setNotice(notice);
    await withdrawBudget(current, revoked, actions, returned).then(
      (after) => {
        // The key is forgotten only once nothing can reach its address any more: the funding
        // transfer is mined (a grant whose transfer never confirmed may still pay in) and the
        // address, read after the withdrawal, holds nothing.
        if (after > ZERO_USD || !current.fundingTx) {
          setLeft(after);
          setError(
            after > ZERO_USD
              ? `The budget is revoked; ${formatUsd(after)} USDC is still at its address. Revoke again to withdraw it.`
              : "The budget is revoked. Its funding transfer never confirmed here, so its key is kept: if that USDC still arrives, revoke again to withdraw it.",
          );
        } else {
          save(undefined, address);
          setLeft(undefined);
        }
        onMoved?.();
      },
      (cause: unknown) => {
        setError(`The budget is revoked, but what is left is still at its address: ${describe(cause)}`);
        setReadKey((key) => key + 1);
      },
    );
    setBusy(undefined);
  };

  const forget = () => {
    const current = storedRef.current;
    if (!current || !address || current.fundingTx || !current.revokedAt || left !== ZERO_USD) return;
    save(undefined, address);
    setError(undefined);
  };

  const requestGrant = useCallback(() => {
    const current = storedRef.current;
    return isBudgetUsable(current) ? current.grant : undefined;
  }, [storedRef]);

  const usable = isBudgetUsable(stored);
  const signQuote = usable
    ? async (typedData: ApprovalTypedData, threshold: bigint, quote: QuotedPayment) => {
        // Read afresh: another tab may have revoked it a moment ago.
        const current = address ? readStoredBudget(address) : undefined;
        if (!isBudgetUsable(current)) throw new Error("The agent budget was revoked or has expired.");
        const problem = sessionQuoteProblem(typedData, current, threshold, quote);
        if (problem) throw new Error(`The agent budget does not sign this payment: ${problem}.`);
        const { signWithSessionKey } = await loadKeys();
        return signWithSessionKey(current, typedData);
      }
    : undefined;

  return { stored, usable, left, busy, error, notice, grant, revoke, forget, requestGrant, signQuote };
}

/**
 * A grant's steps (outside the hook: the React Compiler does not compile a function with a `finally`
 * or a rethrow in it): a session key made here, the delegation signed by the wallet, the amount
 * moved to the key's address; the funding transaction's hash. `keep` stores the budget as it goes.
 */
async function fundBudget(
  { amount, validUntil, network }: GrantInput,
  address: `0x${string}`,
  actions: WalletActions,
  keep: (budget: StoredAgentBudget | undefined) => void,
): Promise<`0x${string}`> {
  const { createSessionKey } = await loadKeys();
  const { address: session, sealedKey } = await createSessionKey();
  const delegation: AgentBudgetDelegation = { wallet: address, session, maxAmount: amount.toString(), validUntil, networks: [network.id] };
  const signature = await actions.signDelegation(delegation);
  // Kept before any money moves, unused until the transfer is mined: whatever happens to this
  // page from here on, the key to what reaches the session address is not lost.
  const pending: StoredAgentBudget = { grant: { ...delegation, signature }, network, sealedKey, grantedAt: new Date().toISOString() };
  keep(pending);
  let fundingTx: `0x${string}`;
  try {
    // The chain's wall: the session address holds what is moved here, and nothing else.
    fundingTx = await actions.transferUsdc(network, session, amount);
  } catch (cause) {
    // The key is dropped only when nothing was sent: the wallet refused to send the transfer.
    // Any other failure (a timeout, a dropped connection, an RPC error) may leave a transfer
    // on its way, and USDC arriving a moment later must find its key: the budget stays, to be
    // withdrawn (revoked) once it arrives.
    if (wasRefusedByWallet(cause)) keep(undefined);
    throw cause;
  }
  keep({ ...pending, fundingTx });
  return fundingTx;
}

/**
 * A revoke's withdrawal: everything at the session address goes back to the wallet, by an
 * authorization the key signs and the wallet submits (`returned` hears of it as soon as it is
 * mined); then what is at the address after it.
 */
async function withdrawBudget(
  current: StoredAgentBudget,
  revoked: StoredAgentBudget,
  actions: WalletActions,
  returned: (notice: AgentBudgetNotice) => void,
): Promise<bigint> {
  const balance = await actions.usdcBalanceOf(current.network, current.grant.session);
  if (balance === 0n) return balance;
  const { withdrawalAuthorization } = await loadKeys();
  const authorization = await withdrawalAuthorization(revoked, balance);
  const txHash = await actions.submitUsdcAuthorization(current.network, authorization);
  returned({ kind: "returned", message: `Revoked. ${formatUsd(balance)} USDC went back to your wallet.`, txHash, network: current.network });
  return actions.usdcBalanceOf(current.network, current.grant.session);
}

function describe(cause: unknown): string {
  const message = cause instanceof Error ? (cause as Error & { shortMessage?: string }).shortMessage ?? cause.message : String(cause);
  return message.split("\n")[0] ?? "unknown error";
}
