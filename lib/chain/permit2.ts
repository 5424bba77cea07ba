// Permit2 on chain, for x402 `upto`: whether a signed Permit2 witness transfer was used, in which
// transaction, and how much it moved. A Permit2 signature's nonce is one bit of the owner's nonce
// bitmap (word nonce >> 8, bit nonce & 255), set by the transfer that uses it; Permit2 itself
// emits no event for it, so the transaction is the upto proxy's `settle` (or `settleWithPermit`)
// call naming this owner and nonce, and what it moved is the token's own Transfer event in it:
// the amount the service settled, at most the maximum signed (docs/contract.md, section 13).
import { PERMIT2_ADDRESS, x402UptoPermit2ProxyABI, x402UptoPermit2ProxyAddress } from "@x402/evm";
import { decodeEventLog, decodeFunctionData, erc20Abi, getAddress, isHash, parseAbi, TransactionReceiptNotFoundError, type Hex } from "viem";
import { publicClientFor } from "./clients";
import type { NetworkConfig } from "./networks";

export { PERMIT2_ADDRESS, x402UptoPermit2ProxyAddress as UPTO_PROXY_ADDRESS };

export const permit2NonceAbi = parseAbi(["function nonceBitmap(address owner, uint256 wordPosition) view returns (uint256)"]);
const transferAbi = parseAbi(["event Transfer(address indexed from, address indexed to, uint256 value)"]);

const LOG_CHUNK_BLOCKS = 2_000n;
/** An upto permit lives at most 10 minutes: a few thousand blocks even on the fastest chains here. */
const MAX_LOG_BLOCKS = 20_000n;
const RECEIPT_WAIT_MS = 3_000;
const RECEIPT_POLL_MS = 500;

type Network = Pick<NetworkConfig, "rpcUrl" | "chainId" | "usdc">;

export type UptoSettlement = { txHash: Hex; amount: bigint };

export type GetUptoPaymentStateParameters = {
  network: Network;
  owner: Hex;
  /** The Permit2 nonce, a uint256 as a decimal string. */
  nonce: string;
  payTo: Hex;
  /** Unix seconds: the permit's deadline. */
  deadline: number | undefined;
  fromBlock: bigint | undefined;
};

export type GetUptoPaymentStateReturnType =
  /** Used: this transaction moved `amount`. Both are missing only if the transaction could not be found in range. */
  | { state: "used"; settlement: UptoSettlement | undefined }
  /**
   * Not used at the chain's latest block; `expired` when that block is past the deadline. Permit2
   * takes a permit while `block.timestamp <= deadline`, and blocks may share a timestamp: at the
   * deadline itself the next block can still collect it.
   */
  | { state: "unused"; expired: boolean };

/** Whether Permit2 shows the owner's nonce used, at the latest block, and that block's time. */
export async function getPermit2NonceState({ network, owner, nonce }: { network: Network; owner: Hex; nonce: string }): Promise<{ used: boolean; chainTime: number }> {
  const client = publicClientFor(network);
  const latest = await client.getBlock({ blockTag: "latest" });
  const value = BigInt(nonce);
  const word = await client.readContract({
    address: PERMIT2_ADDRESS,
    abi: permit2NonceAbi,
    functionName: "nonceBitmap",
    args: [owner, value >> 8n],
    blockNumber: latest.number,
  });
  return { used: ((word >> (value & 255n)) & 1n) === 1n, chainTime: Number(latest.timestamp) };
}

export async function getUptoPaymentState(parameters: GetUptoPaymentStateParameters): Promise<GetUptoPaymentStateReturnType> {
  const { network, owner, nonce, payTo, deadline, fromBlock } = parameters;
  const { used, chainTime } = await getPermit2NonceState({ network, owner, nonce });
  if (!used) return { state: "unused", expired: deadline !== undefined && chainTime > deadline };
  const client = publicClientFor(network);
  const latest = await client.getBlockNumber({ cacheTime: 0 });
  const start = fromBlock ?? (latest > MAX_LOG_BLOCKS ? latest - MAX_LOG_BLOCKS : 0n);
  const end = start + MAX_LOG_BLOCKS < latest ? start + MAX_LOG_BLOCKS : latest;
  const event = transferAbi[0];
  // The settlement moved USDC from the owner to the payee: each such transfer's transaction is a
  // candidate, and the one calling the proxy with this nonce is it.
  for (let from = start; from <= end; from += LOG_CHUNK_BLOCKS) {
    const to = from + LOG_CHUNK_BLOCKS - 1n < end ? from + LOG_CHUNK_BLOCKS - 1n : end;
    const logs = await client.getLogs({ address: network.usdc.address, event, args: { from: owner, to: payTo }, fromBlock: from, toBlock: to });
    const hashes = [...new Set(logs.map((log) => log.transactionHash).filter((hash): hash is Hex => hash !== null))];
    for (const hash of hashes) {
      const settlement = await uptoSettlementIn({ network, owner, nonce, payTo, txHash: hash });
      if (settlement) return { state: "used", settlement };
    }
  }
  return { state: "used", settlement: undefined };
}

/**
 * What this transaction settled of this permit: it succeeded, it is the upto proxy's settle of
 * this owner's nonce to this payee, and the token's Transfer events from the owner to the payee
 * in it add up to the amount. Undefined when it is none of that (a hash that is not one, or a
 * transaction the node does not know within a few seconds); an RPC that does not answer throws.
 */
export async function uptoSettlementIn({ network, owner, nonce, payTo, txHash }: { network: Network; owner: Hex; nonce: string; payTo: Hex; txHash: string }): Promise<UptoSettlement | undefined> {
  if (!isHash(txHash)) return undefined;
  const client = publicClientFor(network);
  const deadline = Date.now() + RECEIPT_WAIT_MS;
  for (;;) {
    try {
      const receipt = await client.getTransactionReceipt({ hash: txHash });
      if (receipt.status !== "success" || !receipt.to || getAddress(receipt.to) !== getAddress(x402UptoPermit2ProxyAddress)) return undefined;
      const transaction = await client.getTransaction({ hash: txHash });
      if (!settlesPermit(transaction.input, owner, nonce, payTo)) return undefined;
      let amount = 0n;
      for (const log of receipt.logs) {
        if (getAddress(log.address) !== getAddress(network.usdc.address)) continue;
        try {
          const decoded = decodeEventLog({ abi: transferAbi, data: log.data, topics: log.topics });
          if (getAddress(decoded.args.from) === getAddress(owner) && getAddress(decoded.args.to) === getAddress(payTo)) amount += decoded.args.value;
        } catch {
          // Another event of the token (an EIP-2612 Approval): not a transfer.
        }
      }
      return { txHash, amount };
    } catch (error) {
      if (!(error instanceof TransactionReceiptNotFoundError)) throw error;
      if (Date.now() + RECEIPT_POLL_MS > deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, RECEIPT_POLL_MS));
    }
  }
}

/** Whether the calldata is the proxy's settle of this owner's permit with this nonce, to this payee. */
function settlesPermit(input: Hex, owner: Hex, nonce: string, payTo: Hex): boolean {
  try {
    const call = decodeFunctionData({ abi: x402UptoPermit2ProxyABI, data: input });
    if (call.functionName !== "settle" && call.functionName !== "settleWithPermit") return false;
    // settleWithPermit takes the EIP-2612 permit first, then settle's own arguments.
    const [permit, , signer, witness] = call.functionName === "settle" ? call.args : [call.args[1], call.args[2], call.args[3], call.args[4]];
    return permit.nonce === BigInt(nonce) && getAddress(signer) === getAddress(owner) && getAddress(witness.to) === getAddress(payTo);
  } catch {
    return false;
  }
}

/** The owner's USDC allowance to Permit2, which every Permit2 transfer needs. */
export async function getPermit2Allowance({ network, owner }: { network: Network; owner: Hex }): Promise<bigint> {
  return publicClientFor(network).readContract({ address: network.usdc.address, abi: erc20Abi, functionName: "allowance", args: [owner, PERMIT2_ADDRESS] });
}
