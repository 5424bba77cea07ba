// JSON-RPC clients per network, made on first use and kept (one per RPC URL), and the one
// on-chain read the payment flow needs before asking for a signature: a USDC balance.
// Every read is bounded: a slow or silent RPC fails within RPC_TIMEOUT_MS per attempt.
import { createPublicClient, erc20Abi, http, type PublicClient } from "viem";
import type { NetworkConfig } from "./networks";

const clients = new Map<string, PublicClient>();

/** Per attempt; with one retry a read gives up after about twice this. */
export const RPC_TIMEOUT_MS = 5_000;

export class MissingRpcError extends Error {
  override readonly name = "MissingRpcError";
}

export function publicClientFor(network: Pick<NetworkConfig, "rpcUrl" | "chainId">): PublicClient {
  if (!network.rpcUrl) throw new MissingRpcError(`No RPC_URL_${network.chainId} is configured.`);
  let client = clients.get(network.rpcUrl);
  if (!client) {
    client = createPublicClient({ transport: http(network.rpcUrl, { timeout: RPC_TIMEOUT_MS, retryCount: 1 }) });
    clients.set(network.rpcUrl, client);
  }
  return client;
}

export type GetUsdcBalanceParameters = { network: NetworkConfig; owner: `0x${string}` };

export async function getUsdcBalance({ network, owner }: GetUsdcBalanceParameters): Promise<bigint> {
  return publicClientFor(network).readContract({
    address: network.usdc.address,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [owner],
  });
}
