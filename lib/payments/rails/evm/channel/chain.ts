// What the chain says about a pay-as-you-go channel (x402 `batch-settlement`): the channel
// contract's own reads of it (its balance, what was claimed, a withdrawal under way), and how it
// ended: the transaction that refunded or withdrew what the payer got back. The ledger counts a
// channel's deposit until this says it is over; no service's word closes it. The contract's ABI
// is the product's own (the calls and events below): @x402/evm does not export it. Its events are
// searched in windows of blocks, since hosted RPC providers refuse a wide `eth_getLogs` range.
import { BATCH_SETTLEMENT_ADDRESS } from "@x402/evm";
import { parseAbi, type Hex, type PublicClient } from "viem";
import type { ChannelConfig } from "../../rail";

export { channelWithdrawAbi } from "@/lib/chain/channel-address";

const channelAbi = parseAbi([
  "function channels(bytes32 channelId) view returns (uint128 balance, uint128 totalClaimed)",
  "function pendingWithdrawals(bytes32 channelId) view returns (uint128 amount, uint40 initiatedAt)",
  "event Deposited(bytes32 indexed channelId, address indexed sender, uint128 amount, uint128 newBalance)",
  "event Refunded(bytes32 indexed channelId, address indexed sender, uint128 amount)",
  "event WithdrawFinalized(bytes32 indexed channelId, address indexed sender, uint128 amount)",
]);

/**
 * Blocks per `eth_getLogs` call of a channel's history, unless the configuration says otherwise
 * (CHAIN_LOG_RANGE_BLOCKS): within what common hosted RPC providers accept for one request.
 */
export const DEFAULT_LOG_RANGE_BLOCKS = 2_000n;

/** A channel as the contract holds it: its deposit left (`balance`, claimed included), what the service claimed, and a withdrawal asked for. */
export type ChannelOnChain = {
  balance: bigint;
  totalClaimed: bigint;
  /** The payer's withdrawal under way: its amount and when it was asked for (Unix seconds); undefined when none. */
  withdrawal: { amount: bigint; initiatedAt: number } | undefined;
  /** What is left for the payer: the balance less what was claimed. */
  left: bigint;
};

export async function readChannel(client: Pick<PublicClient, "readContract">, channelId: Hex, { blockNumber }: { blockNumber?: bigint } = {}): Promise<ChannelOnChain> {
  const at = blockNumber === undefined ? {} : { blockNumber };
  const [[balance, totalClaimed], [pendingAmount, initiatedAt]] = await Promise.all([
    client.readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: channelAbi, functionName: "channels", args: [channelId], ...at }),
    client.readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: channelAbi, functionName: "pendingWithdrawals", args: [channelId], ...at }),
  ]);
  return {
    balance,
    totalClaimed,
    withdrawal: pendingAmount > 0n ? { amount: pendingAmount, initiatedAt: Number(initiatedAt) } : undefined,
    left: balance > totalClaimed ? balance - totalClaimed : 0n,
  };
}

/**
 * How a channel's deposit went, from its events since `fromBlock`: the deposits (each with its
 * transaction), and the refunds and withdrawals that returned money to the payer. A channel is
 * over for the ledger when the chain shows nothing left in it for the payer after money came back.
 * The latest block is read once, and the blocks from `fromBlock` to it are asked for in
 * consecutive windows of at most `rangeBlocks` blocks, oldest first: events come in chain order,
 * and no request spans more than a hosted provider accepts.
 */
export async function channelHistory(
  client: Pick<PublicClient, "getBlockNumber" | "getContractEvents">,
  channelId: Hex,
  { fromBlock, rangeBlocks = DEFAULT_LOG_RANGE_BLOCKS }: { fromBlock: bigint; rangeBlocks?: bigint },
): Promise<{ deposits: { amount: bigint; txHash: Hex }[]; returned: { amount: bigint; txHash: Hex; kind: "refund" | "withdrawal" }[] }> {
  if (rangeBlocks < 1n) throw new Error(`a log range of ${rangeBlocks} blocks: at least one is needed`);
  const latest = await client.getBlockNumber({ cacheTime: 0 });
  const deposits: { amount: bigint; txHash: Hex }[] = [];
  const returned: { amount: bigint; txHash: Hex; kind: "refund" | "withdrawal" }[] = [];
  for (let from = fromBlock; from <= latest; from += rangeBlocks) {
    const to = from + rangeBlocks - 1n < latest ? from + rangeBlocks - 1n : latest;
    const events = await client.getContractEvents({ address: BATCH_SETTLEMENT_ADDRESS, abi: channelAbi, args: { channelId }, fromBlock: from, toBlock: to, strict: true });
    for (const event of events) {
      if (event.transactionHash === null) continue;
      if (event.eventName === "Deposited") deposits.push({ amount: event.args.amount, txHash: event.transactionHash });
      else if (event.eventName === "Refunded") returned.push({ amount: event.args.amount, txHash: event.transactionHash, kind: "refund" });
      else if (event.eventName === "WithdrawFinalized") returned.push({ amount: event.args.amount, txHash: event.transactionHash, kind: "withdrawal" });
    }
  }
  return { deposits, returned };
}

/** The two calls of a withdrawal of `amount` from the channel `config` names. */
export function withdrawalCalls(config: ChannelConfig, amount: bigint): { initiate: { functionName: "initiateWithdraw"; args: [ChannelConfig, string] }; finalize: { functionName: "finalizeWithdraw"; args: [ChannelConfig] } } {
  return { initiate: { functionName: "initiateWithdraw", args: [config, amount.toString()] }, finalize: { functionName: "finalizeWithdraw", args: [config] } };
}
