"use client";
// The wallet stack, loaded after the page (providers.tsx imports it when a wallet is wanted):
// react-query and wagmi, with the wagmi config built once from what the server enables. Everything
// that calls wagmi's hooks lives under these providers: the reporter that hands the wallet to the
// page, and RainbowKit's button (wallet-button.tsx), once it has been loaded apart.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useEffect, useState, type ComponentType } from "react";
import { useAccount, useConfig, WagmiProvider } from "wagmi";
import { usePaymentWallet, useUsdcBalance } from "./use-payment-wallet";
import { createWagmiConfig, type WalletSetup } from "./wagmi-config";
import type { WalletButtonProps } from "./wallet-button";
import type { BalanceQuery, WalletReport } from "./wallet-context";

/** Step three, the channel key's code and, after it, RainbowKit's: imported from here, so that its
 * chunks leave out what the stack brought (wallet-code.ts). */
export const loadWalletKeysModule = () => import("./wallet-keys");

export type WalletStackProps = {
  setup: WalletSetup;
  balanceQuery: BalanceQuery;
  /** RainbowKit's button, once it has been loaded. */
  Button: ComponentType<WalletButtonProps> | undefined;
  /** Where the connect button goes; null while the page shows none. */
  connectTarget: HTMLElement | null;
  onReport: (report: WalletReport) => void;
};

export function WalletStack({ setup, balanceQuery, Button, connectTarget, onReport }: WalletStackProps) {
  const [config] = useState(() => createWagmiConfig(setup));
  const [queryClient] = useState(() => new QueryClient({ defaultOptions: { queries: { retry: 1, staleTime: 10_000 } } }));
  return (
    <WagmiProvider config={config}>
      <QueryClientProvider client={queryClient}>
        <WalletReporter query={balanceQuery} networks={setup.networks} onReport={onReport} />
        {Button ? <Button connectTarget={connectTarget} setup={setup} /> : null}
      </QueryClientProvider>
    </WagmiProvider>
  );
}

/** The part of wagmi's persisted store that says whether its stored state has been restored. */
type RestoredStore = { hasHydrated: () => boolean; onFinishHydration: (listener: () => void) => () => void };

function WalletReporter({ query, networks, onReport }: { query: BalanceQuery; networks: WalletSetup["networks"]; onReport: (report: WalletReport) => void }) {
  const { address, chainId, connectorName, sign, actions } = usePaymentWallet(networks);
  const { status } = useAccount();
  // The balance is read from a task of its own once an account is there, not within the render
  // that connects it: on a phone, wagmi's reconnect and the query's first read are each a long
  // stretch of the main thread.
  const [readFor, setReadFor] = useState<`0x${string}` | undefined>(undefined);
  useEffect(() => {
    const timer = setTimeout(() => setReadFor(address), 0);
    return () => clearTimeout(timer);
  }, [address]);
  const value = useUsdcBalance(readFor === address ? address : undefined, query.network, query.refreshKey);
  // wagmi reconnects a wallet used before from its own mount effect, which runs after this
  // component's: it first restores its stored state (asynchronously), then starts reconnecting,
  // which marks the status "reconnecting" (or "connecting") at once. So the wallet is settled
  // once that restore has finished and the status is no longer (re)connecting; before the
  // restore, "disconnected" only means "not known yet". Settled stays settled: a person
  // connecting later is not "loading".
  const config = useConfig();
  const [restored, setRestored] = useState(false);
  const [settled, setSettled] = useState(false);
  useEffect(() => {
    // zustand's persist API on wagmi's store (its declared type does not resolve here).
    const persist: RestoredStore = Reflect.get(config._internal.store, "persist");
    if (persist.hasHydrated()) setRestored(true);
    return persist.onFinishHydration(() => setRestored(true));
  }, [config]);
  useEffect(() => {
    if (restored && status !== "connecting" && status !== "reconnecting") setSettled(true);
  }, [restored, status]);

  useEffect(() => {
    onReport({
      address,
      chainId,
      connectorName,
      sign,
      actions,
      settled,
      balance: { address, networkId: query.network?.id, refreshKey: query.refreshKey, value },
    });
  }, [address, chainId, connectorName, sign, actions, settled, query, value, onReport]);
  return null;
}
