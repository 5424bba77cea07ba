// The wagmi connectors for a RainbowKit wallet list, made as RainbowKit's `connectorsForWallets`
// makes them: each wallet's own connector, carrying the `rkDetails` RainbowKit's modal lists it by
// (WalletConnect twice: once for its QR code, once for its own modal). That function lives in
// RainbowKit's main module, whose evaluation (its components, styles and translations) is the
// largest part of the wallet stack; wagmi needs the connectors at once, to reconnect a remembered
// wallet, and RainbowKit only when a person opens its button (wallet-button.tsx). The unit test
// holds this to RainbowKit's own function.
import type { Wallet, WalletDetailsParams, WalletList } from "@rainbow-me/rainbowkit";
import type { CreateConnectorFn } from "wagmi";

type RainbowKitDetails = WalletDetailsParams["rkDetails"];

export function walletConnectors(walletList: WalletList, { appName, projectId }: { appName: string; projectId: string }): CreateConnectorFn[] {
  const metadata = { name: appName, description: appName, url: typeof window === "undefined" ? "" : window.location.origin, icons: [] };
  // Each wallet once (by id), those that may hide themselves after the rest, each keeping its place number.
  const listed: { wallet: Wallet; groupIndex: number; groupName: string; index: number }[] = [];
  let index = -1;
  walletList.forEach(({ groupName, wallets }, group) => {
    for (const createWallet of wallets) {
      index++;
      listed.push({ wallet: createWallet({ projectId, appName, options: { metadata }, walletConnectParameters: { metadata } }), groupIndex: group + 1, groupName, index });
    }
  });
  const ordered = [...listed.filter(({ wallet }) => !wallet.hidden), ...listed.filter(({ wallet }) => wallet.hidden)];
  const unique = ordered.filter((item, at) => ordered.findIndex((other) => other.wallet.id === item.wallet.id) === at);

  return unique.flatMap(({ wallet: { createConnector, hidden, ...wallet }, groupIndex, groupName, index }) => {
    if (hidden?.()) return [];
    const details = (extra: Partial<RainbowKitDetails> = {}): WalletDetailsParams => ({
      rkDetails: withoutUndefined({ ...wallet, index, groupIndex, groupName, isRainbowKitConnector: true, ...extra }),
    });
    // WalletConnect's own modal first, then its QR code in RainbowKit's, as RainbowKit makes them.
    const modal = wallet.id === "walletConnect" ? [createConnector(details({ isWalletConnectModalConnector: true, showQrModal: true }))] : [];
    return [...modal, createConnector(details())];
  });
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}
