// Where each enabled network's chain is now, read from its configured RPC: an EVM chain's latest
// block, a Solana network's slot. For the health check (lib/health.ts), which names an RPC by its
// host only and reads every family alike.
import type { ChainEnv } from "./configuration";
import { publicClientFor } from "./clients";
import { findNetwork } from "./networks";
import { findSolanaNetwork, getSolanaSlot } from "./solana";

export type ChainHead = {
  /** The configured RPC, if any. */
  rpcUrl: string | undefined;
  /** The variable that configures it. */
  variable: string;
  /** The latest block (a Solana network's slot), asked afresh. */
  read(): Promise<bigint>;
};

/** An enabled network's RPC and how to read its head; undefined for a network this product does not know. */
export function chainHeadOf(id: string, env: ChainEnv): ChainHead | undefined {
  if (!env.X402_NETWORKS.includes(id)) return undefined;
  const evm = findNetwork(id, env);
  if (evm) return { rpcUrl: evm.rpcUrl, variable: `RPC_URL_${evm.chainId}`, read: () => publicClientFor(evm).getBlockNumber({ cacheTime: 0 }) };
  const solana = findSolanaNetwork(id, env);
  if (solana) return { rpcUrl: solana.rpcUrl, variable: `RPC_URL_${solana.reference}`, read: () => getSolanaSlot({ network: solana }) };
  return undefined;
}
