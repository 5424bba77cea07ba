// The one place chain ids live: the networks this product can pay on, each with its USDC
// contract and EIP-712 domain, its RPC URL from configuration, and its explorer.
import type { ChainEnv } from "./configuration";

export type NetworkId = `eip155:${number}`;

export type UsdcToken = {
  address: `0x${string}`;
  /** EIP-712 domain name and version: a wrong one gives a signature that fails on chain. */
  name: string;
  version: string;
  decimals: 6;
};

export type NetworkConfig = {
  id: NetworkId;
  chainId: number;
  name: string;
  testnet: boolean;
  usdc: UsdcToken;
  rpcUrl: string | undefined;
  /** Block explorer base URL; the sandbox chain has none, the app's own transaction page serves it. */
  explorer: string | undefined;
};

type KnownNetwork = Omit<NetworkConfig, "rpcUrl" | "usdc"> & { usdc: UsdcToken | undefined };

const usdc = (address: `0x${string}`, name = "USD Coin"): UsdcToken => ({ address, name, version: "2", decimals: 6 });

const knownNetworks: Record<number, KnownNetwork> = {
  8453: { id: "eip155:8453", chainId: 8453, name: "Base", testnet: false, usdc: usdc("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"), explorer: "https://basescan.org" },
  84532: { id: "eip155:84532", chainId: 84532, name: "Base Sepolia", testnet: true, usdc: usdc("0x036CbD53842c5426634e7929541eC2318f3dCF7e", "USDC"), explorer: "https://sepolia.basescan.org" },
  1: { id: "eip155:1", chainId: 1, name: "Ethereum", testnet: false, usdc: usdc("0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"), explorer: "https://etherscan.io" },
  42161: { id: "eip155:42161", chainId: 42161, name: "Arbitrum One", testnet: false, usdc: usdc("0xaf88d065e77c8cC2239327C5EDb3A432268e5831"), explorer: "https://arbiscan.io" },
  137: { id: "eip155:137", chainId: 137, name: "Polygon", testnet: false, usdc: usdc("0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359"), explorer: "https://polygonscan.com" },
  43114: { id: "eip155:43114", chainId: 43114, name: "Avalanche", testnet: false, usdc: usdc("0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E"), explorer: "https://snowtrace.io" },
  // The local sandbox chain (anvil): its USDC is deployed at start, so its address comes from USDC_ADDRESS_31337.
  31337: { id: "eip155:31337", chainId: 31337, name: "Sandbox", testnet: true, usdc: undefined, explorer: undefined },
};

/**
 * Coinbase Smart Wallet's factories, at the same address on every chain Coinbase deploys them to:
 * v1, which Coinbase Wallet's SDK makes accounts with (`factoryAddress` in @coinbase/wallet-sdk),
 * and v1.1, which Base Account's does (`factoryAddress` in @base-org/account); viem's
 * `toCoinbaseSmartAccount` names the same two.
 */
const COINBASE_SMART_WALLET_FACTORIES = [
  "0x0ba5ed0c6aa8c49038f819e587e2633c4a9f428a",
  "0xba5ed110efdba3d005bfc882d75358acbbb85842",
] as const satisfies readonly `0x${string}`[];

/**
 * Factories whose counterfactual (ERC-6492) accounts may pay, by chain: the facilitator deploys
 * such an account with its first payment, at its own expense, so the list is closed by default,
 * as in the x402 packages. Base and Base Sepolia allow Coinbase Smart Wallet's, so that a Base
 * Account made a minute ago with a passkey pays before it is deployed. The sandbox allows anvil's
 * deterministic CREATE2 deployer, which deploys its smart accounts (sandbox/smart-account.ts).
 */
const eip6492Factories: Record<number, readonly `0x${string}`[]> = {
  8453: COINBASE_SMART_WALLET_FACTORIES,
  84532: COINBASE_SMART_WALLET_FACTORIES,
  31337: ["0x4e59b44847b379578588920ca78fbf26c0b4956c"],
};

/** The factories allowed to deploy a paying account that is not deployed yet (ERC-6492). */
export function eip6492FactoriesOf(network: Pick<NetworkConfig, "chainId">): readonly `0x${string}`[] {
  return eip6492Factories[network.chainId] ?? [];
}

export type NetworkEnv = ChainEnv;

/** The networks enabled by X402_NETWORKS that have a known USDC contract, in configured order. */
export function enabledNetworks(env: NetworkEnv): NetworkConfig[] {
  return env.X402_NETWORKS.flatMap((id) => {
    const network = findNetwork(id, env);
    return network ? [network] : [];
  });
}

/** A network by CAIP-2 id, if this product knows its USDC; enabled or not. */
export function findNetwork(id: string, env: NetworkEnv): NetworkConfig | undefined {
  const chainId = chainIdOf(id);
  if (chainId === undefined) return undefined;
  const known = knownNetworks[chainId];
  const configuredUsdc = env.usdcAddresses[chainId];
  const token = configuredUsdc ? usdc(configuredUsdc) : known?.usdc;
  if (!token) return undefined;
  return {
    id: `eip155:${chainId}`,
    chainId,
    name: known?.name ?? `Chain ${chainId}`,
    testnet: known?.testnet ?? true,
    usdc: token,
    rpcUrl: env.rpcUrls[chainId],
    explorer: known?.explorer,
  };
}

/** The network of an EVM chain id (what an EIP-712 domain names), if this product knows its USDC; enabled or not. */
export function findNetworkByChainId(chainId: number, env: NetworkEnv): NetworkConfig | undefined {
  return findNetwork(`eip155:${chainId}`, env);
}

export function isEnabled(id: string, env: NetworkEnv): boolean {
  return env.X402_NETWORKS.includes(id) && findNetwork(id, env) !== undefined;
}

/** The CAIP-2 id of an EVM chain. */
export function evmNetworkId(chainId: number): `eip155:${number}` {
  return `eip155:${chainId}`;
}

export function chainIdOf(id: string): number | undefined {
  const match = /^eip155:(\d{1,12})$/.exec(id);
  return match ? Number(match[1]) : undefined;
}

/** A link to a transaction: the network's block explorer, or the app's own page for the sandbox. */
export function explorerTxUrl(network: Pick<NetworkConfig, "explorer" | "id">, txHash: string, appOrigin?: string): string {
  if (network.explorer) return `${network.explorer}/tx/${txHash}`;
  return `${appOrigin ?? ""}/tx/${network.id}/${txHash}`;
}
