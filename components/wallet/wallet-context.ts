"use client";
// The wallet as the page sees it, without the wallet libraries. The page paints and the chat
// works before wagmi, RainbowKit and viem have arrived (see providers.tsx: at once when this
// browser remembers a connected wallet, else when a person reaches for the connect button); while
// a remembered wallet is on its way it is "loading": no address, nothing to sign with, the connect
// button a disabled placeholder. Components read the wallet here and never call wagmi's hooks
// themselves, so nothing is rendered outside the wallet providers.
import { createContext, useContext, useEffect } from "react";
import type { WalletNetwork } from "@/lib/chain/wallet-networks";
import type { ChannelWithdrawCall } from "@/lib/chain/channel-address";
import type { WithdrawalAuthorization } from "@/lib/client/agent-budget-keys";
import type { ApprovalTypedData } from "@/lib/client/wallet-signer";
import type { AgentBudgetDelegation } from "@/lib/chain/delegation";
import type { AccessGrant } from "@/lib/chain/access-grant";
import type { PaymentStatus } from "@/lib/protocol/lines";
import type { WalletFallback } from "@/lib/client/wallet-requests";

/** loading: a wallet used before is being reconnected (the wallet libraries are on their way, or
 * wagmi is reconnecting); ready: who is connected (if anyone) is known; failed: the libraries
 * could not load. */
export type WalletStatus = "loading" | "ready" | "failed";

export type PaymentWallet = {
  address: `0x${string}` | undefined;
  chainId: number | undefined;
  connectorName: string | undefined;
  /** Switches the wallet to the quote's chain when needed, then signs its typed data. */
  sign: ((typedData: ApprovalTypedData) => Promise<`0x${string}`>) | undefined;
  /** What the agent budget asks of the wallet; absent when no wallet is connected. */
  actions: WalletActions | undefined;
};

/** The wallet's part in an agent budget: sign its delegation, fund it, take back what is left. */
export type WalletActions = {
  signDelegation: (delegation: AgentBudgetDelegation) => Promise<`0x${string}`>;
  /** Signs an AI app's access grant (EIP-712) on this chain, switching to it first. */
  signAccessGrant: (grant: AccessGrant, chainId: number) => Promise<`0x${string}`>;
  /** Signs a text message (EIP-191, `personal_sign`): signing in with the wallet. */
  signMessage: (message: string) => Promise<`0x${string}`>;
  /** Sends USDC from the wallet (the person pays the gas) and waits until it is mined; the tx hash. */
  transferUsdc: (network: WalletNetwork, to: `0x${string}`, amount: bigint) => Promise<`0x${string}`>;
  /** Submits an EIP-3009 authorization signed by another key (the person pays the gas); the tx hash. */
  submitUsdcAuthorization: (network: WalletNetwork, authorization: WithdrawalAuthorization) => Promise<`0x${string}`>;
  /**
   * Lets a spender move the wallet's tokens, once (an ERC-20 approval of the fallback's token to
   * its spender; the person pays the gas), and waits until it is mined; the tx hash.
   */
  approveSpender: (network: WalletNetwork, fallback: WalletFallback) => Promise<`0x${string}`>;
  /**
   * Sends one step of taking a channel's deposit back without its service (asking for the
   * withdrawal, then taking it), only to the channel contract this page knows, only for a channel
   * the wallet pays into, and waits until it is mined; the tx hash.
   */
  channelWithdraw: (network: WalletNetwork, call: ChannelWithdrawCall) => Promise<`0x${string}`>;
  /** Any address's USDC balance, in atomic units, read through the wallet stack's transports. */
  usdcBalanceOf: (network: WalletNetwork, owner: `0x${string}`) => Promise<bigint>;
};

/** Which USDC balance the page wants read: the wallet's, on one network, read again when the key changes. */
export type BalanceQuery = { network: WalletNetwork | undefined; refreshKey: number };

/** A balance as read for one query and one address; undefined value while unknown. */
export type BalanceReading = {
  address: `0x${string}` | undefined;
  networkId: string | undefined;
  refreshKey: number;
  value: string | undefined;
};

/** What the wallet stack reports up each time something about the wallet changes. */
export type WalletReport = PaymentWallet & {
  /** wagmi has finished reconnecting a wallet used before (or found none to reconnect). */
  settled: boolean;
  balance: BalanceReading;
};

export type WalletContextValue = {
  status: WalletStatus;
  wallet: PaymentWallet;
  balance: BalanceReading | undefined;
  /** How many chains the wallet offers (RainbowKit shows a chain selector when more than one). */
  chainCount: number;
  /** The last try to load the wallet libraries failed; reaching for the button tries again. */
  loadFailed: boolean;
  /** Resolves once the status is "ready" (and the page has rendered with that wallet); rejects if it fails. */
  whenReady: () => Promise<void>;
  /** Loads the wallet libraries (once), RainbowKit's button with them, for a person about to use the wallet button. */
  loadWallet: () => void;
  requestBalance: (query: BalanceQuery) => void;
  /** Where the wallet stack puts the real connect button (see connect-button.tsx). */
  setConnectTarget: (element: HTMLElement | null) => void;
};

export const WalletContext = createContext<WalletContextValue | null>(null);

export function useWalletContext(): WalletContextValue {
  const context = useContext(WalletContext);
  if (!context) throw new Error("The wallet is read inside <WalletProviders> only.");
  return context;
}

/** The connected wallet (fields undefined while loading or when none is connected), its status,
 * and a promise for the moment it is ready. */
export function useWallet(): PaymentWallet & Pick<WalletContextValue, "status" | "whenReady"> {
  const { wallet, status, whenReady } = useWalletContext();
  return { ...wallet, status, whenReady };
}

/** The wallet's USDC balance on one network, as a decimal string; undefined while unknown. */
export function useWalletBalance(address: `0x${string}` | undefined, network: WalletNetwork | undefined, refreshKey = 0): string | undefined {
  const { balance, requestBalance } = useWalletContext();
  useEffect(() => requestBalance({ network, refreshKey }), [network, refreshKey, requestBalance]);
  const current =
    balance !== undefined &&
    address !== undefined &&
    balance.address === address &&
    balance.networkId === network?.id &&
    balance.refreshKey === refreshKey;
  return current ? balance.value : undefined;
}

/**
 * The card's offer to do once with the wallet what a quote's optional request or a failure's
 * remedy asks instead (approve a token's spender), on the payment's own network; none without a
 * connected wallet. One for the chat and the AI apps approval page alike.
 */
export function insteadApproval(
  actions: WalletActions | undefined,
  networks: readonly WalletNetwork[],
): { approveInstead?: (payment: PaymentStatus, fallback: WalletFallback) => Promise<void> } {
  if (!actions) return {};
  return {
    approveInstead: async (payment, fallback) => {
      const network = networks.find((candidate) => candidate.id === payment.network);
      if (!network) throw new Error("This payment's network is not one the wallet can use here.");
      await actions.approveSpender(network, fallback);
    },
  };
}
