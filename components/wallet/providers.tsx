"use client";
// The one client component that holds the wallet stack: react-query, wagmi and RainbowKit, with
// the wagmi config built once from what the server enables. RainbowKit's theme follows the
// system's light or dark mode.
import "@rainbow-me/rainbowkit/styles.css";
import "@/lib/client/zod-config";
import { darkTheme, lightTheme, RainbowKitProvider } from "@rainbow-me/rainbowkit";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { WagmiProvider } from "wagmi";
import { createWagmiConfig, type WalletSetup } from "./wagmi-config";

export function WalletProviders({ setup, children }: { setup: WalletSetup; children: ReactNode }) {
  const [config] = useState(() => createWagmiConfig(setup));
  const [queryClient] = useState(() => new QueryClient({ defaultOptions: { queries: { retry: 1, staleTime: 10_000 } } }));
  return (
    <WagmiProvider config={config}>
      <QueryClientProvider client={queryClient}>
        <RainbowKitProvider
          theme={{ lightMode: lightTheme({ accentColor: "#1f6feb" }), darkMode: darkTheme({ accentColor: "#58a6ff", accentColorForeground: "#0d1117" }) }}
          appInfo={{ appName: "x402 payment agent" }}
          modalSize="compact"
        >
          {children}
        </RainbowKitProvider>
      </QueryClientProvider>
    </WagmiProvider>
  );
}
