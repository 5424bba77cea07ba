// What the page's wallet needs to know about the enabled networks: ids, names, the USDC contract
// to read a balance from, and an RPC URL only where it is safe to show (the local sandbox chain).
// Configured RPC URLs of public networks can carry an API key, so they never reach the browser:
// the page reads those chains through the wallet or the chain's public endpoint.
import type { Chain } from "viem";
import { arbitrum, avalanche, base, baseSepolia, mainnet, polygon } from "viem/chains";
import type { ChainEnv } from "./configuration";
import { enabledNetworks, type NetworkId } from "./networks";

export type WalletNetwork = {
  id: NetworkId;
  chainId: number;
  name: string;
  testnet: boolean;
  /** The token and its EIP-712 domain (an agent budget's withdrawal is an EIP-3009 authorization). */
  usdc: { address: `0x${string}`; decimals: number; name: string; version: string };
  explorer?: string;
  /** Only for the sandbox chain, whose RPC is a local development node. */
  rpcUrl?: string;
};

export const SANDBOX_CHAIN_ID = 31337;

export function walletNetworks(env: ChainEnv): WalletNetwork[] {
  return enabledNetworks(env).map((network) => ({
    id: network.id,
    chainId: network.chainId,
    name: network.name,
    testnet: network.testnet,
    usdc: { address: network.usdc.address, decimals: network.usdc.decimals, name: network.usdc.name, version: network.usdc.version },
    ...(network.explorer ? { explorer: network.explorer } : {}),
    ...(network.chainId === SANDBOX_CHAIN_ID && network.rpcUrl ? { rpcUrl: network.rpcUrl } : {}),
  }));
}

/**
 * Chains Coinbase's own wallets (Base Account, Coinbase Wallet) are offered on: they connect
 * through Coinbase's service, which serves these chains and cannot reach a local one (the sandbox).
 */
export const COINBASE_WALLET_CHAIN_IDS: readonly number[] = [base.id, baseSepolia.id];

export function servesCoinbaseWallets(networks: readonly Pick<WalletNetwork, "chainId">[]): boolean {
  return networks.some((network) => COINBASE_WALLET_CHAIN_IDS.includes(network.chainId));
}

/** Chains the page's wallet stack knows by id; it reads them through their public RPC endpoint. */
export const publicWalletChains: Readonly<Record<number, Chain>> = Object.fromEntries(
  [base, baseSepolia, mainnet, arbitrum, polygon, avalanche].map((chain) => [chain.id, chain]),
);

/** Where the page's own chain reads go: the sandbox RPC, or a known chain's public endpoint. */
/**
 * Every RPC endpoint the page reads from: the wallets' networks' browser RPCs, and the sandbox's
 * own RPCs (EVM and Solana) when a demo wallet is there.
 */
export function pageRpcUrls(env: ChainEnv, demoWallet: { rpcUrl: string; solana?: { rpcUrl: string } | undefined } | undefined): string[] {
  return [...browserRpcUrls(walletNetworks(env)), ...(demoWallet ? [demoWallet.rpcUrl] : []), ...(demoWallet?.solana ? [demoWallet.solana.rpcUrl] : [])];
}

export function browserRpcUrls(networks: readonly WalletNetwork[]): string[] {
  return networks.flatMap((network) => {
    const url = network.rpcUrl ?? publicWalletChains[network.chainId]?.rpcUrls.default.http[0];
    return url ? [url] : [];
  });
}
