"use client";
// RainbowKit: its provider, and its connect button rendered through a portal into the slot the top
// bar keeps for it. The largest part of the wallet libraries, so it is loaded apart from the
// wallet stack (providers.tsx), when a person reaches for the wallet button, not to reconnect a
// remembered wallet, which wagmi does alone. RainbowKit's theme follows the system's light or dark mode.
// Under its wallet list, a note says what a person without a wallet does (wallet-list-note.tsx).
import "@rainbow-me/rainbowkit/styles.css";
import { ConnectButton, darkTheme, lightTheme, RainbowKitProvider } from "@rainbow-me/rainbowkit";
import { useMemo } from "react";
import { createPortal } from "react-dom";
import { Identicon } from "./identicon";
import type { WalletSetup } from "./wagmi-config";
import { walletListNote } from "./wallet-list-note";

export type WalletButtonProps = {
  /** Where the connect button goes; null while the page shows none. */
  connectTarget: HTMLElement | null;
  /** What the wallet list offers, for the note under it. */
  setup: WalletSetup;
};

// The page's own font, not RainbowKit's stack of rounded faces: each of those a system lacks is a
// font lookup before the button's text can be laid out.
const fonts = { body: "var(--font-sans)" };
const theme = {
  lightMode: { ...lightTheme({ accentColor: "#1f6feb" }), fonts },
  darkMode: { ...darkTheme({ accentColor: "#58a6ff", accentColorForeground: "#0d1117" }), fonts },
};
const appName = "x402 payment agent";

export function WalletButton({ connectTarget, setup }: WalletButtonProps) {
  // Under the wallet list: what a person without a wallet does.
  const appInfo = useMemo(() => ({ appName, disclaimer: walletListNote(setup) }), [setup]);
  return (
    <RainbowKitProvider theme={theme} appInfo={appInfo} modalSize="compact" avatar={Identicon}>
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
  );
}
