// Solana, as the product reads it (docs/contract.md, section 10): the networks it pays on, with Circle's USDC
// mint each, their RPC from `RPC_URL_<genesis hash prefix>`, and the reads a payment needs: a
// USDC balance (its associated token account's), where the chain is, whether a transaction
// landed and what it moved, an account's history page by page, and whether a blockhash still
// lives. Through @solana/kit's RPC client, every read bounded in time.
import {
  address as toAddress,
  createSolanaRpc,
  getBase58Encoder,
  getBase64Encoder,
  getTransactionDecoder,
  type Address,
  type Rpc,
  type Signature,
  type SolanaRpcApi,
} from "@solana/kit";
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import type { ChainEnv } from "./configuration";

export type SolanaNetworkId = `solana:${string}`;

export type SolanaNetworkConfig = {
  id: SolanaNetworkId;
  /** The genesis hash prefix that names it in CAIP-2 and in `RPC_URL_<prefix>`. */
  reference: string;
  name: string;
  testnet: boolean;
  usdc: { mint: Address; decimals: 6 };
  rpcUrl: string | undefined;
  /** Where a transaction is shown, `{txHash}` standing for its signature. */
  transactionUrl: string;
};

const known: Record<string, Omit<SolanaNetworkConfig, "rpcUrl" | "transactionUrl"> & { cluster: string | undefined }> = {
  "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp": {
    id: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
    reference: "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
    name: "Solana",
    testnet: false,
    usdc: { mint: toAddress("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"), decimals: 6 },
    cluster: undefined,
  },
  EtWTRABZaYq6iMfeYKouRu166VU2xqa1: {
    id: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
    reference: "EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
    name: "Solana Devnet",
    testnet: true,
    usdc: { mint: toAddress("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"), decimals: 6 },
    cluster: "devnet",
  },
};

type SolanaEnv = Pick<ChainEnv, "rpcUrls">;

/** A Solana network by CAIP-2 id, if this product knows its USDC; enabled or not. */
export function findSolanaNetwork(id: string, env: SolanaEnv): SolanaNetworkConfig | undefined {
  const reference = /^solana:([1-9A-HJ-NP-Za-km-z]{32})$/.exec(id)?.[1];
  const network = reference ? known[reference] : undefined;
  if (!network || !reference) return undefined;
  const rpcUrl = env.rpcUrls[reference];
  const { cluster, ...rest } = network;
  // A chain only this machine reaches (the sandbox's) has no public explorer: the app's own page shows it.
  const local = rpcUrl !== undefined && isLoopback(rpcUrl);
  const transactionUrl = local
    ? `/tx/${network.id}/{txHash}`
    : `https://explorer.solana.com/tx/{txHash}${cluster ? `?cluster=${cluster}` : ""}`;
  return { ...rest, ...(local ? { name: `${rest.name} (this machine)` } : {}), rpcUrl, transactionUrl };
}

function isLoopback(url: string): boolean {
  const host = new URL(url).hostname;
  return host === "localhost" || host === "[::1]" || /^127\./.test(host);
}

/** A Solana address: base58 of 32 bytes (an ed25519 public key or a program-derived address). */
export { isSolanaAddress } from "./addresses";

const clients = new Map<string, Rpc<SolanaRpcApi>>();

/** Per attempt: a slow or silent RPC fails within this. */
export const SOLANA_RPC_TIMEOUT_MS = 5_000;

export function solanaRpcFor(network: Pick<SolanaNetworkConfig, "rpcUrl" | "reference">): Rpc<SolanaRpcApi> {
  if (!network.rpcUrl) throw new Error(`No RPC_URL_${network.reference} is configured.`);
  let client = clients.get(network.rpcUrl);
  if (!client) {
    client = createSolanaRpc(network.rpcUrl);
    clients.set(network.rpcUrl, client);
  }
  return client;
}

/** Bounds one RPC call in time. */
export function bounded<T>(call: { send(options?: { abortSignal?: AbortSignal }): Promise<T> }): Promise<T> {
  return call.send({ abortSignal: AbortSignal.timeout(SOLANA_RPC_TIMEOUT_MS) });
}

/** The owner's USDC account: its associated token account for the network's mint. */
export async function usdcAccountOf(network: Pick<SolanaNetworkConfig, "usdc">, owner: string): Promise<Address> {
  const [account] = await findAssociatedTokenPda({ mint: network.usdc.mint, owner: toAddress(owner), tokenProgram: TOKEN_PROGRAM_ADDRESS });
  return account;
}

/** The owner's USDC, atomic units; `undefined` when it has no USDC account at all. */
export async function getSolanaUsdcBalance({ network, owner }: { network: SolanaNetworkConfig; owner: string }): Promise<bigint | undefined> {
  const rpc = solanaRpcFor(network);
  const account = await usdcAccountOf(network, owner);
  const info = await bounded(rpc.getAccountInfo(account, { encoding: "base64", commitment: "confirmed" }));
  if (!info.value) return undefined;
  const { value } = await bounded(rpc.getTokenAccountBalance(account, { commitment: "confirmed" }));
  return BigInt(value.amount);
}

/** Where the chain is now: its slot, from where a payment is looked for later. */
export async function getSolanaSlot({ network }: { network: SolanaNetworkConfig }): Promise<bigint> {
  return bounded(solanaRpcFor(network).getSlot({ commitment: "confirmed" }));
}

/** A landed transaction: its message bytes, whether it succeeded, and what it did to USDC balances. */
export type LandedTransaction = {
  signature: string;
  messageBytes: Uint8Array;
  succeeded: boolean;
  slot: bigint;
  blockTime: Date | undefined;
  /** Who signed first and paid the fee (for an x402 payment, the facilitator). */
  feePayer: string;
  /** USDC (the network's mint) gained (+) or lost (-) per owner, atomic units. */
  usdcChanges: Array<{ owner: string; change: bigint }>;
};

export async function getSolanaTransaction({ network, signature }: { network: SolanaNetworkConfig; signature: string }): Promise<LandedTransaction | undefined> {
  if (!/^[1-9A-HJ-NP-Za-km-z]{64,90}$/.test(signature)) return undefined;
  const found = await bounded(
    solanaRpcFor(network).getTransaction(signature as Signature, { encoding: "base64", maxSupportedTransactionVersion: 0, commitment: "confirmed" }),
  );
  if (!found) return undefined;
  const [wire] = found.transaction;
  const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(wire));
  const balances = new Map<string, bigint>();
  const add = (entries: readonly { mint: string; owner?: string | undefined; uiTokenAmount: { amount: string } }[] | null | undefined, sign: bigint) => {
    for (const entry of entries ?? []) {
      if (entry.mint !== network.usdc.mint || !entry.owner) continue;
      balances.set(entry.owner, (balances.get(entry.owner) ?? 0n) + sign * BigInt(entry.uiTokenAmount.amount));
    }
  };
  add(found.meta?.preTokenBalances, -1n);
  add(found.meta?.postTokenBalances, 1n);
  return {
    signature,
    messageBytes: Uint8Array.from(transaction.messageBytes),
    succeeded: found.meta?.err === null || found.meta?.err === undefined,
    slot: BigInt(found.slot),
    blockTime: found.blockTime === null ? undefined : new Date(Number(found.blockTime) * 1000),
    feePayer: Object.keys(transaction.signatures)[0] ?? "",
    usdcChanges: [...balances].filter(([, change]) => change !== 0n).map(([owner, change]) => ({ owner, change })),
  };
}

/** A validator answers at most this many signatures per `getSignaturesForAddress` call. */
export const SIGNATURES_PAGE_MAX = 1_000;

/** One transaction in an account's history, as `getSignaturesForAddress` lists it. */
export type SignatureEntry = { signature: string; slot: bigint; failed: boolean };

/**
 * One page of the transactions touching an account, newest first: at most `limit` (up to
 * SIGNATURES_PAGE_MAX), and only those older than `before` when it is given, so that the next
 * page starts where this one ended.
 */
export async function getSolanaSignaturesFor({
  network,
  account,
  limit,
  before,
  minContextSlot,
}: {
  network: SolanaNetworkConfig;
  account: Address;
  limit: number;
  before?: string | undefined;
  /** A slot the answer must have seen (the one a payment was quoted at): a node lagging behind it refuses rather than answers from before it. */
  minContextSlot?: bigint | undefined;
}): Promise<SignatureEntry[]> {
  const found = await bounded(
    solanaRpcFor(network).getSignaturesForAddress(account, {
      limit,
      commitment: "confirmed",
      ...(before ? { before: before as Signature } : {}),
      ...(minContextSlot !== undefined ? { minContextSlot } : {}),
    }),
  );
  return found.map((entry) => ({ signature: String(entry.signature), slot: BigInt(entry.slot), failed: entry.err !== null }));
}

/** The oldest slot whose transactions the RPC still answers for (older history it has purged, or never had). */
export async function getSolanaFirstAvailableSlot({ network }: { network: SolanaNetworkConfig }): Promise<bigint> {
  return BigInt(await bounded(solanaRpcFor(network).getFirstAvailableBlock()));
}

/**
 * Whether a blockhash can still land a transaction. `minContextSlot`: a slot the answer must have
 * seen (the one the payment was quoted at): a node lagging behind it, which may not know the
 * blockhash yet and would call it invalid, refuses instead, so nothing is released on its word.
 */
export async function isSolanaBlockhashValid({ network, blockhash, minContextSlot }: { network: SolanaNetworkConfig; blockhash: string; minContextSlot?: bigint | undefined }): Promise<boolean> {
  if (getBase58Encoder().encode(blockhash).length !== 32) return false;
  const { value } = await bounded(
    solanaRpcFor(network).isBlockhashValid(blockhash as never, { commitment: "confirmed", ...(minContextSlot !== undefined ? { minContextSlot } : {}) }),
  );
  return value;
}
