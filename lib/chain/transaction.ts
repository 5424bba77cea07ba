// What the app's own transaction page shows for chains without a public explorer (the
// sandbox): the receipt, and the USDC transfers it made, read from the chain's RPC. What the
// chain said is kept (a mined transaction never changes; one not found yet is asked again after
// a short while), so a page loaded in a loop does not spend the RPC's quota.
import { decodeEventLog, erc20Abi, type Hex } from "viem";
import { publicClientFor } from "./clients";
import type { NetworkConfig } from "./networks";

export type TransactionSummary = {
  hash: Hex;
  status: "success" | "reverted";
  blockNumber: bigint;
  from: `0x${string}`;
  submittedTo: `0x${string}` | null;
  timestamp: Date;
  usdcTransfers: Array<{ from: `0x${string}`; to: `0x${string}`; value: bigint }>;
};

/** How long "not found" is kept; a found transaction is kept until the cache is full. */
const NOT_FOUND_TTL_MS = 15_000;
const MAX_CACHED = 1_000;
const cache = new Map<string, { summary: TransactionSummary | undefined; at: number }>();

export async function getTransactionSummary({ network, hash }: { network: NetworkConfig; hash: Hex }): Promise<TransactionSummary | undefined> {
  const key = `${network.id}:${hash.toLowerCase()}`;
  const now = Date.now();
  const hit = cache.get(key);
  if (hit && (hit.summary || now - hit.at < NOT_FOUND_TTL_MS)) return hit.summary;
  const summary = await readTransactionSummary(network, hash);
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
    blockNumber: receipt.blockNumber,
    from: receipt.from,
    submittedTo: receipt.to,
    timestamp: new Date(Number(block.timestamp) * 1000),
    usdcTransfers,
  };
}
