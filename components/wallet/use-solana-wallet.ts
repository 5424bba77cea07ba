"use client";
// The person's Solana wallet, beside the EVM one: which Solana wallets this browser has (found
// through the Wallet Standard as they register), the one connected, and signing a quoted
// transaction with it. The wallet last connected is reconnected silently on the next visit, if
// it still allows this site.
import { startTransition, useCallback, useEffect, useMemo, useState } from "react";
import type { WalletAccount } from "@wallet-standard/base";
import {
  connectSolanaWallet,
  disconnectSolanaWallet,
  onSolanaAccountsChanged,
  onSolanaWalletsChanged,
  signSolanaTransaction,
  solanaSignInOf,
  solanaWallets,
  type SolanaWallet,
} from "@/lib/client/solana-wallet";
import type { SandboxSolanaWalletOptions } from "./sandbox-solana-wallet";

// Outside the hook: the React Compiler does not compile a function with an import() in it.
const loadSandboxWallet = () => import("./sandbox-solana-wallet");
const loadSignIn = () => import("@/lib/client/sign-in");

const LAST_WALLET_KEY = "x402.solana-wallet";

export type SolanaWalletChoice = { name: string; icon: string };

export type SolanaWalletState = {
  /** The Solana wallets this browser offers. */
  available: SolanaWalletChoice[];
  /** The connected account's address, if one is connected. */
  address: string | undefined;
  walletName: string | undefined;
  connect: (name: string) => Promise<void>;
  disconnect: () => Promise<void>;
  /** Signs a quoted transaction (base64) for a network; absent when no wallet is connected. */
  sign: ((transaction: string, networkId: string) => Promise<string>) | undefined;
  /** Signs this browser in with the wallet (to see its own history); absent when none is connected or it cannot sign in. */
  signIn: (() => Promise<void>) | undefined;
};

export function useSolanaWallet({ enabled, sandbox }: { enabled: boolean; sandbox?: SandboxSolanaWalletOptions | undefined }): SolanaWalletState {
  const [wallets, setWallets] = useState<SolanaWallet[]>([]);
  const [connected, setConnected] = useState<{ wallet: SolanaWallet; account: WalletAccount } | undefined>(undefined);

  useEffect(() => {
    if (!enabled) return;
    // A transition, and none when nothing changed: on a page's load the list is read before any
    // wallet has registered, and the whole chat need not render again for the same empty list.
    const refresh = () => {
      const next = solanaWallets();
      startTransition(() => setWallets((current) => (current.length === next.length && current.every((wallet, index) => wallet === next[index]) ? current : next)));
    };
    const off = onSolanaWalletsChanged(refresh);
    refresh();
    // Loaded only on the sandbox: no other page carries the demo wallet.
    if (sandbox) void loadSandboxWallet().then(({ registerSandboxSolanaWallet }) => registerSandboxSolanaWallet(sandbox));
    return off;
  }, [enabled, sandbox]);

  // The wallet used last time, reconnected without a prompt once it has registered.
  useEffect(() => {
    if (connected) return;
    const last = typeof localStorage === "undefined" ? null : localStorage.getItem(LAST_WALLET_KEY);
    const wallet = last ? wallets.find((candidate) => candidate.name === last) : undefined;
    if (!wallet) return;
    let live = true;
    connectSolanaWallet(wallet, { silent: true }).then(
      (account) => live && account && setConnected({ wallet, account }),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [connected, wallets]);

  // The person switched or removed the account in the wallet.
  useEffect(() => {
    if (!connected) return;
    return onSolanaAccountsChanged(connected.wallet, () => {
      const account = connected.wallet.accounts[0];
      setConnected(account ? { wallet: connected.wallet, account } : undefined);
    });
  }, [connected]);

  const connect = useCallback(
    async (name: string) => {
      const wallet = wallets.find((candidate) => candidate.name === name);
      if (!wallet) throw new Error(`${name} is not available in this browser.`);
      const account = await connectSolanaWallet(wallet);
      if (!account) throw new Error(`${name} shared no account.`);
      localStorage.setItem(LAST_WALLET_KEY, name);
      setConnected({ wallet, account });
    },
    [wallets],
  );

  const disconnect = useCallback(async () => {
    localStorage.removeItem(LAST_WALLET_KEY);
    const current = connected;
    setConnected(undefined);
    if (current) await disconnectSolanaWallet(current.wallet).catch(() => undefined);
  }, [connected]);

  const sign = useMemo(
    () => (connected ? (transaction: string, networkId: string) => signSolanaTransaction(connected.wallet, connected.account, transaction, networkId) : undefined),
    [connected],
  );

  const signIn = useMemo(() => {
    const wallet = connected ? solanaSignInOf(connected.wallet, connected.account) : undefined;
    if (!wallet) return undefined;
    return async () => {
      // Loaded when first used: most visits never sign in.
      const { signInWithSolana } = await loadSignIn();
      await signInWithSolana(wallet);
    };
  }, [connected]);

  return {
    available: useMemo(() => wallets.map(({ name, icon }) => ({ name, icon })), [wallets]),
    address: connected?.account.address,
    walletName: connected?.wallet.name,
    connect,
    disconnect,
    sign,
    signIn,
  };
}
