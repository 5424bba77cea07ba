// What the app's own transaction page shows for chains without a public explorer (the
// sandbox's): whether it succeeded, where and when it landed, who sent it, and the USDC it moved,
// read from the chain's RPC (an EVM receipt's Transfer events; a Solana transaction's token
// balances before and after). What the
// chain said is kept (a mined transaction never changes; one not found yet is asked again after
// a short while), so a page loaded in a loop does not spend the RPC's quota.
import { decodeEventLog, erc20Abi, type Hex } from "viem";
import { publicClientFor } from "./clients";
import { findNetwork, type NetworkConfig, type NetworkEnv } from "./networks";
import { findSolanaNetwork, getSolanaTransaction, type SolanaNetworkConfig } from "./solana";

export type TransactionSummary = {
  hash: string;
  status: "success" | "reverted";
  /** Where it landed: an EVM block, or a Solana slot. */
  landed: { unit: "Block" | "Slot"; number: bigint };
  /** Who sent it and paid its fee (for an x402 payment, the facilitator). */
  from: string;
  timestamp: Date | undefined;
  usdcTransfers: Array<{ from: string; to: string; value: bigint }>;
};

/** A transaction id as its chain writes it: `0x` + 64 hex digits (EVM), or a base58 signature (Solana). */
/** The network of a CAIP-2 id whatever its chain family, as a transaction is looked up on it; undefined when none known here. */
export function findChainNetwork(id: string, env: NetworkEnv & Parameters<typeof findSolanaNetwork>[1]): NetworkConfig | SolanaNetworkConfig | undefined {
  return findNetwork(id, env) ?? findSolanaNetwork(id, env);
}

export function isTransactionId(network: NetworkConfig | SolanaNetworkConfig, hash: string): boolean {
  return "chainId" in network ? /^0x[0-9a-fA-F]{64}$/.test(hash) : /^[1-9A-HJ-NP-Za-km-z]{64,90}$/.test(hash);
}

/** How long "not found" is kept; a found transaction is kept until the cache is full. */
const NOT_FOUND_TTL_MS = 15_000;
const MAX_CACHED = 1_000;
const cache = new Map<string, { summary: TransactionSummary | undefined; at: number }>();

export async function getTransactionSummary({ network, hash }: { network: NetworkConfig | SolanaNetworkConfig; hash: string }): Promise<TransactionSummary | undefined> {
  const key = `${network.id}:${"chainId" in network ? hash.toLowerCase() : hash}`;
  const now = Date.now();
  const hit = cache.get(key);
  if (hit && (hit.summary || now - hit.at < NOT_FOUND_TTL_MS)) return hit.summary;
  const summary = "chainId" in network ? await readTransactionSummary(network, hash as Hex) : await readSolanaSummary(network, hash);
  cache.delete(key);
  if (cache.size >= MAX_CACHED) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  cache.set(key, { summary, at: now });
  return summary;
}

async function readTransactionSummary(network: NetworkConfig, hash: Hex): Promise<TransactionSummary | undefined> {
  const client = publicClientFor(network);
  const receipt = await client.getTransactionReceipt({ hash }).catch(() => undefined);
  if (!receipt) return undefined;
  const block = await client.getBlock({ blockNumber: receipt.blockNumber });
  const usdcTransfers = receipt.logs.flatMap((log) => {
    if (log.address.toLowerCase() !== network.usdc.address.toLowerCase()) return [];
    try {
      const event = decodeEventLog({ abi: erc20Abi, data: log.data, topics: log.topics });
      return event.eventName === "Transfer" ? [{ from: event.args.from, to: event.args.to, value: event.args.value }] : [];
    } catch {
      return [];
    }
  });
  return {
    hash,
    status: receipt.status,
    landed: { unit: "Block", number: receipt.blockNumber },
    from: receipt.from,
    timestamp: new Date(Number(block.timestamp) * 1000),
    usdcTransfers,
  };
}

async function readSolanaSummary(network: SolanaNetworkConfig, signature: string): Promise<TransactionSummary | undefined> {
  const found = await getSolanaTransaction({ network, signature });
  if (!found) return undefined;
  // What each owner lost went to those who gained, in order: one payment is one of each.
  const losers = found.usdcChanges.filter((entry) => entry.change < 0n).map((entry) => ({ owner: entry.owner, left: -entry.change }));
  const usdcTransfers: TransactionSummary["usdcTransfers"] = [];
  for (const gainer of found.usdcChanges.filter((entry) => entry.change > 0n)) {
    let wanted = gainer.change;
    for (const loser of losers) {
      if (wanted === 0n || loser.left === 0n) continue;
      const value = loser.left < wanted ? loser.left : wanted;
      usdcTransfers.push({ from: loser.owner, to: gainer.owner, value });
      loser.left -= value;
      wanted -= value;
    }
  }
  return {
    hash: signature,
    status: found.succeeded ? "success" : "reverted",
    landed: { unit: "Slot", number: found.slot },
    from: found.feePayer,
    timestamp: found.blockTime,
    usdcTransfers,
  };
}
