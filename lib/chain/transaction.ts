// What the app's own transaction page shows for chains without a public explorer (the
// sandbox): the receipt, and the USDC transfers it made, read from the chain's RPC.
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

export async function getTransactionSummary({ network, hash }: { network: NetworkConfig; hash: Hex }): Promise<TransactionSummary | undefined> {
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
