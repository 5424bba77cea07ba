// The wagmi configuration, built from the networks the server enables (lib/chain): injected
// wallets through EIP-6963 always, WalletConnect only when a project id is configured (it calls
// out to WalletConnect's relay), Base Account and Coinbase Wallet on the networks Coinbase's
// service serves (coinbase-wallets.ts), and the sandbox's demo wallet and smart account when the
// app runs on the sandbox.
import type { WalletList } from "@rainbow-me/rainbowkit";
import { injectedWallet, walletConnectWallet } from "@rainbow-me/rainbowkit/wallets";
import { defineChain, type Chain } from "viem";
import { base } from "viem/chains";
import { createConfig, http, type Config, type Transport } from "wagmi";
import { publicWalletChains, servesCoinbaseWallets, type WalletNetwork } from "@/lib/chain/wallet-networks";
import { coinbaseWalletGroup } from "./coinbase-wallets";
import { SANDBOX_SMART_ACCOUNT, sandboxWallet, type SandboxWalletOptions } from "./sandbox-wallet";
import { walletConnectors } from "./wallet-connectors";

export type WalletSetup = {
  networks: WalletNetwork[];
  /** The sandbox's demo wallet, when the app runs on the sandbox. */
  sandbox?: SandboxWalletOptions;
  /** The sandbox's smart account, signed for by its owner, when the app runs on the sandbox. */
  sandboxSmartAccount?: SandboxWalletOptions;
  walletConnectProjectId?: string;
};

function toChain(network: WalletNetwork): Chain {
  const known = publicWalletChains[network.chainId];
  if (known) return known;
  const rpc = network.rpcUrl ? [network.rpcUrl] : [];
  return defineChain({
    id: network.chainId,
    name: network.name,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: rpc } },
    testnet: network.testnet,
  });
}

type CreateWallet = WalletList[number]["wallets"][number];

/** RainbowKit's "Browser Wallet" (window.ethereum) only where a browser has one: without an
 * extension it can only fail, on a phone's browser too. Wallets that announce themselves
 * (EIP-6963) are listed under their own names either way. */
const browserWallet: CreateWallet = () => ({ ...injectedWallet(), hidden: () => typeof window !== "undefined" && !("ethereum" in window) });

/** The wallets offered, in RainbowKit's groups: the sandbox's, those installed in the browser,
 * then, where they serve, those that need no extension. */
export function walletList({ networks, sandbox, sandboxSmartAccount, walletConnectProjectId }: WalletSetup): WalletList {
  const wallets: WalletList = [];
  if (sandbox) {
    wallets.push({
      groupName: "Sandbox",
      wallets: [sandboxWallet(sandbox), ...(sandboxSmartAccount ? [sandboxWallet(sandboxSmartAccount, SANDBOX_SMART_ACCOUNT)] : [])],
    });
  }
  wallets.push({
    groupName: "Installed",
    wallets: walletConnectProjectId ? [browserWallet, walletConnectWallet] : [browserWallet],
  });
  if (servesCoinbaseWallets(networks)) wallets.push(coinbaseWalletGroup);
  return wallets;
}

export function createWagmiConfig(setup: WalletSetup): Config {
  const { networks, walletConnectProjectId } = setup;
  const chainList = networks.map(toChain);
  // wagmi needs at least one chain; a server with none enabled still renders a usable chat.
  const chains = (chainList.length > 0 ? chainList : [base]) as [Chain, ...Chain[]];
  const transports: Record<number, Transport> = Object.fromEntries(
    networks.map((network) => [network.chainId, network.rpcUrl ? http(network.rpcUrl) : http()]),
  );
  for (const chain of chains) transports[chain.id] ??= http();

  const connectors = walletConnectors(walletList(setup), {
    appName: "x402 payment agent",
    // Only WalletConnect uses the project id; injected wallets never send it anywhere.
    projectId: walletConnectProjectId ?? "unused",
  });

  return createConfig({
    chains,
    connectors,
    transports,
    // The page reads one balance at a time: nothing to batch, and wagmi's default (multicall)
    // builds and throws viem's "chain does not support multicall3" error on every read of a
    // chain without it, such as the sandbox's, before falling back to a plain call.
    batch: { multicall: false },
    // EIP-6963: every wallet extension that announces itself is listed.
    multiInjectedProviderDiscovery: true,
    // The stack renders only in the browser, but with `ssr` wagmi restores and reconnects once,
    // from its provider's mount effect (wallet-stack.tsx counts on that), not on every render.
    ssr: true,
  });
}
