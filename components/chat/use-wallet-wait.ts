"use client";
// A person may act before the wallet has loaded: right after a reload, a wallet used before is
// being reconnected. An approval waits for it, then goes on with the wallet that is there (or
// finds none and asks to connect one); a message waits a moment, so that it goes with the person's
// address as it would a second later, and a person without a wallet waits at most WALLET_WAIT_MS.
import { useState } from "react";
import type { WalletStatus } from "@/components/wallet/wallet-context";

/** How long a message waits for a wallet that is still loading before it goes without one. */
const WALLET_WAIT_MS = 5_000;

export type WalletWait = {
  /** The payment whose approval waits for the wallet, if any. */
  awaitingWallet: string | undefined;
  /** Resolves once the loading wallet is ready or could not load. */
  forApproval: (paymentId: string) => Promise<void>;
  /** Resolves once the loading wallet is ready, could not load, or WALLET_WAIT_MS have passed. */
  forMessage: () => Promise<void>;
};

export function useWalletWait(wallet: { status: WalletStatus; whenReady: () => Promise<void> }): WalletWait {
  const [awaitingWallet, setAwaitingWallet] = useState<string | undefined>(undefined);
  const forApproval = async (paymentId: string) => {
    setAwaitingWallet(paymentId);
    // If it could not load, the approval finds no wallet and says so.
    await wallet.whenReady().catch(() => undefined);
    setAwaitingWallet(undefined);
  };
  const forMessage = () => settledWithin(wallet.whenReady(), WALLET_WAIT_MS);
  return { awaitingWallet, forApproval, forMessage };
}

/** Resolves when `promise` settles (either way) or after `ms`, whichever comes first. */
function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    promise.then(
      () => resolve(),
      () => resolve(),
    ).finally(() => clearTimeout(timer));
  });
}
