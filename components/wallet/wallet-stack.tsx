"use client";
// The wallet stack, loaded after the page (providers.tsx imports it once the page has hydrated):
// react-query, wagmi and RainbowKit, with the wagmi config built once from what the server
// enables. RainbowKit's theme follows the system's light or dark mode. Everything that calls
// wagmi's hooks lives under these providers: the reporter that hands the wallet to the page, and
// the connect button, rendered through a portal into the slot the top bar keeps for it.
import "@rainbow-me/rainbowkit/styles.css";
import { ConnectButton, darkTheme, lightTheme, RainbowKitProvider } from "@rainbow-me/rainbowkit";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { createPortal } from "react-dom";
import { useAccount, useConfig, WagmiProvider } from "wagmi";
import { Identicon } from "./identicon";
import { usePaymentWallet, useUsdcBalance } from "./use-payment-wallet";
import { createWagmiConfig, type WalletSetup } from "./wagmi-config";
import type { BalanceQuery, WalletReport } from "./wallet-context";

export type WalletStackProps = {
  setup: WalletSetup;
  balanceQuery: BalanceQuery;
  /** Where the connect button goes; null while the page shows none. */
  connectTarget: HTMLElement | null;
  onReport: (report: WalletReport) => void;
};

const theme = {
  lightMode: lightTheme({ accentColor: "#1f6feb" }),
  darkMode: darkTheme({ accentColor: "#58a6ff", accentColorForeground: "#0d1117" }),
};
const appInfo = { appName: "x402 payment agent" };

export function WalletStack({ setup, balanceQuery, connectTarget, onReport }: WalletStackProps) {
  const [config] = useState(() => createWagmiConfig(setup));
  const [queryClient] = useState(() => new QueryClient({ defaultOptions: { queries: { retry: 1, staleTime: 10_000 } } }));
  return (
    <WagmiProvider config={config}>
      <QueryClientProvider client={queryClient}>
        <RainbowKitProvider theme={theme} appInfo={appInfo} modalSize="compact" avatar={Identicon}>
          <WalletReporter query={balanceQuery} onReport={onReport} />
          {connectTarget
            ? createPortal(
                // RainbowKit's styles apply under a [data-rk] element, as inside its provider.
                <div data-rk="">
                  <ConnectButton chainStatus="icon" showBalance={false} accountStatus={{ smallScreen: "avatar", largeScreen: "full" }} />
                </div>,
                connectTarget,
              )
            : null}
        </RainbowKitProvider>
      </QueryClientProvider>
    </WagmiProvider>
  );
}

/** The part of wagmi's persisted store that says whether its stored state has been restored. */
type RestoredStore = { hasHydrated: () => boolean; onFinishHydration: (listener: () => void) => () => void };

function WalletReporter({ query, onReport }: { query: BalanceQuery; onReport: (report: WalletReport) => void }) {
  const { address, chainId, connectorName, sign, actions } = usePaymentWallet();
  const { status } = useAccount();
  const value = useUsdcBalance(address, query.network, query.refreshKey);
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
    const { persist } = config._internal.store as unknown as { persist: RestoredStore };
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
