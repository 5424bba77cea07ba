// EIP-3009 on chain: whether a signed transfer authorization was used, in which transaction,
// and whether it still can be. When a paid service answers badly or not at all, the USDC token
// is the one witness that cannot be wrong about the payment (docs/contract.md, section 3, "Paid means paid").
import { decodeEventLog, isHash, parseAbi, TransactionReceiptNotFoundError, type Hex } from "viem";
import { publicClientFor } from "./clients";
import type { NetworkConfig } from "./networks";

/** The EIP-3009 view and events every USDC (FiatTokenV2_2) has. */
export const eip3009Abi = parseAbi([
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
  "event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)",
]);

/** Blocks per eth_getLogs call: within what public RPC providers accept. */
const LOG_CHUNK_BLOCKS = 2_000n;
/**
 * How far past the reservation's block the event is looked for. An authorization lives at most
 * 10 minutes, which is a few thousand blocks even on the fastest chains here.
 */
const MAX_LOG_BLOCKS = 20_000n;

export type GetAuthorizationStateParameters = {
  network: Pick<NetworkConfig, "rpcUrl" | "chainId" | "usdc">;
  authorizer: `0x${string}`;
  nonce: Hex;
  /** Unix seconds; unknown for payments recorded before it was kept. */
  validBefore: number | undefined;
  /** A block at or before the quote; the event is looked for from there. */
  fromBlock: bigint | undefined;
};

export type GetAuthorizationStateReturnType =
  /** Used: the money moved. The hash is missing only if the event could not be found in range. */
  | { state: "used"; txHash: Hex | undefined; blockNumber: bigint | undefined }
  /** Cancelled by the payer before use: nothing moved and nothing can. */
  | { state: "canceled" }
  /** Not used at the chain's latest block; `expired` when that block is at or past validBefore. */
  | { state: "unused"; expired: boolean; chainTime: number };

export type GetAuthorizationStateErrorType = Error;

/**
 * Reads the authorization's state and the latest block together: unused at a block whose
 * timestamp is at or past validBefore means it can never be used (block times only grow), so
 * expiry is judged by the chain's clock, not this server's.
 */
export async function getAuthorizationState({
  network,
  authorizer,
  nonce,
  validBefore,
  fromBlock,
}: GetAuthorizationStateParameters): Promise<GetAuthorizationStateReturnType> {
  const client = publicClientFor(network);
  const latest = await client.getBlock({ blockTag: "latest" });
  const used = await client.readContract({
    address: network.usdc.address,
    abi: eip3009Abi,
    functionName: "authorizationState",
    args: [authorizer, nonce],
    blockNumber: latest.number,
  });
  const chainTime = Number(latest.timestamp);
  if (!used) return { state: "unused", expired: validBefore !== undefined && chainTime >= validBefore, chainTime };

  const start = fromBlock ?? (latest.number > MAX_LOG_BLOCKS ? latest.number - MAX_LOG_BLOCKS : 0n);
  const end = start + MAX_LOG_BLOCKS < latest.number ? start + MAX_LOG_BLOCKS : latest.number;
  const usedLog = await findEvent({ network, authorizer, nonce, start, end, event: "AuthorizationUsed" });
  if (usedLog) return { state: "used", txHash: usedLog.transactionHash, blockNumber: usedLog.blockNumber };
  // The nonce is also marked once the payer cancels the authorization: that moved nothing.
  const canceled = await findEvent({ network, authorizer, nonce, start, end, event: "AuthorizationCanceled" });
  if (canceled) return { state: "canceled" };
  return { state: "used", txHash: undefined, blockNumber: undefined };
}

async function findEvent({
  network,
  authorizer,
  nonce,
  start,
  end,
  event,
}: {
  network: GetAuthorizationStateParameters["network"];
  authorizer: `0x${string}`;
  nonce: Hex;
  start: bigint;
  end: bigint;
  event: "AuthorizationUsed" | "AuthorizationCanceled";
}): Promise<{ transactionHash: Hex; blockNumber: bigint } | undefined> {
  const client = publicClientFor(network);
  const abiEvent = eip3009Abi.find((item) => item.type === "event" && item.name === event);
  if (abiEvent?.type !== "event") throw new Error(`no ${event} in the EIP-3009 ABI`);
  // Oldest first: the event sits within minutes of the quote.
  for (let from = start; from <= end; from += LOG_CHUNK_BLOCKS) {
    const to = from + LOG_CHUNK_BLOCKS - 1n < end ? from + LOG_CHUNK_BLOCKS - 1n : end;
    const logs = await client.getLogs({
      address: network.usdc.address,
      event: abiEvent,
      args: { authorizer, nonce },
      fromBlock: from,
      toBlock: to,
    });
    const log = logs.find((entry) => entry.transactionHash !== null && entry.blockNumber !== null);
    if (log?.transactionHash && log.blockNumber !== null) return { transactionHash: log.transactionHash, blockNumber: log.blockNumber };
  }
  return undefined;
}

/** The latest block number, to remember where to look for a payment's events later. */
export async function getLatestBlockNumber({ network }: { network: Pick<NetworkConfig, "rpcUrl" | "chainId"> }): Promise<bigint> {
  return publicClientFor(network).getBlockNumber({ cacheTime: 0 });
}

/** How long a transaction a service names may take to show up at this server's RPC node (it may lag the facilitator's). */
const RECEIPT_WAIT_MS = 3_000;
const RECEIPT_POLL_MS = 500;

export type UsedInTransactionParameters = {
  network: Pick<NetworkConfig, "rpcUrl" | "chainId" | "usdc">;
  authorizer: `0x${string}`;
  nonce: Hex;
  /** The transaction a service says settled the payment: only a claim until its receipt shows it. */
  txHash: string;
};

/**
 * Whether this transaction succeeded and used exactly this authorization: its receipt holds the
 * token's `AuthorizationUsed(authorizer, nonce)` event. A hash that is not one, or a transaction
 * the node does not know within a few seconds, is not; an RPC that does not answer throws.
 */
export async function usedInTransaction({ network, authorizer, nonce, txHash }: UsedInTransactionParameters): Promise<boolean> {
  if (!isHash(txHash)) return false;
  const client = publicClientFor(network);
  const deadline = Date.now() + RECEIPT_WAIT_MS;
  for (;;) {
    try {
      const receipt = await client.getTransactionReceipt({ hash: txHash });
      return (
        receipt.status === "success" &&
        receipt.logs.some((log) => {
          if (log.address.toLowerCase() !== network.usdc.address.toLowerCase()) return false;
          try {
            const event = decodeEventLog({ abi: eip3009Abi, data: log.data, topics: log.topics });
            return (
              event.eventName === "AuthorizationUsed" &&
              event.args.authorizer.toLowerCase() === authorizer.toLowerCase() &&
              event.args.nonce.toLowerCase() === nonce.toLowerCase()
            );
          } catch {
            return false;
          }
        })
      );
    } catch (error) {
      if (!(error instanceof TransactionReceiptNotFoundError)) throw error;
      if (Date.now() + RECEIPT_POLL_MS > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, RECEIPT_POLL_MS));
    }
  }
}
