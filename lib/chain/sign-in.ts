// A sign-in message as each chain family writes it (docs/contract.md, section 9), read and ready
// for the session (lib/session.ts) to check: an EVM wallet's EIP-4361 message ("Sign-In with
// Ethereum"), its signature checked as a payment's is (recovery, ERC-1271, ERC-6492); a Solana
// wallet's same text for its Solana account (the Wallet Standard's `solana:signIn` text),
// checked as an ed25519 signature. The chains' code is loaded by the first sign-in, not with every
// route that reads a session.
import type { SignatureBytes } from "@solana/kit";
import { getAddress, type Hex } from "viem";
import type { ChainEnv } from "./configuration";
import { AppError } from "@/lib/errors";
import { isSolanaAddress } from "./addresses";

/** What either kind of sign-in message says, read and ready to check. */
export type SignInClaim = {
  address: string;
  domain: string | undefined;
  uri: string | undefined;
  nonce: string | undefined;
  expirationTime: Date | undefined;
  notBefore: Date | undefined;
  /** Whether the wallet the message names signed it. */
  signedBy: (message: string, signature: string) => Promise<boolean>;
};

/** The Solana sign-in's first line ends so (the Wallet Standard's `solana:signIn` text). */
const SOLANA_HEADER = " wants you to sign in with your Solana account:";

export const refuseSignIn = (why: string) => new AppError("unauthorized", `Sign-in refused: ${why}`);

/** Reads a sign-in message of any family paid here; a message that is not one, or for a chain not paid on, is refused. */
export function readSignIn(message: string, env: ChainEnv): Promise<SignInClaim> {
  const solana = message.split("\n", 1)[0]?.endsWith(SOLANA_HEADER) ?? false;
  return solana ? readSolanaSignIn(message, env) : readEvmSignIn(message, env);
}

async function readEvmSignIn(message: string, env: ChainEnv): Promise<SignInClaim> {
  const [{ parseSiweMessage }, { findNetworkByChainId }] = await Promise.all([import("viem/siwe"), import("./networks")]);
  const fields = parseSiweMessage(message);
  if (!fields.address || !fields.chainId || fields.version !== "1") throw refuseSignIn("the message is not an EIP-4361 sign-in (address, chain, version 1).");
  const network = findNetworkByChainId(fields.chainId, env);
  if (!network || !env.X402_NETWORKS.includes(network.id)) throw refuseSignIn(`chain ${fields.chainId} is not one this agent pays on.`);
  const address = getAddress(fields.address);
  return {
    address,
    domain: fields.domain,
    uri: fields.uri,
    nonce: fields.nonce,
    expirationTime: fields.expirationTime,
    notBefore: fields.notBefore,
    // Checked as a payment's signature is: a key by recovery, a contract account by ERC-1271 or ERC-6492.
    async signedBy(signed, signature) {
      if (!signature.startsWith("0x")) return false;
      const { SignatureCheckUnavailableError, verifyPaymentSignature } = await import("./signature");
      try {
        return (await verifyPaymentSignature({ network, address, message: signed, signature: signature as Hex })).valid;
      } catch (error) {
        if (!(error instanceof SignatureCheckUnavailableError)) throw error;
        throw new AppError("blockchain-error", `Could not check the sign-in's signature on ${network.name}: its RPC did not answer. Please try again.`, { cause: error });
      }
    },
  };
}

async function readSolanaSignIn(message: string, env: ChainEnv): Promise<SignInClaim> {
  if (!env.X402_NETWORKS.some((id) => id.startsWith("solana:"))) throw refuseSignIn("this agent pays on no Solana network.");
  const { parseSignInMessageText } = await import("@solana/wallet-standard-util");
  const fields = parseSignInMessageText(message);
  if (!fields || !isSolanaAddress(fields.address) || (fields.version !== undefined && fields.version !== "1")) {
    throw refuseSignIn("the message is not a Solana sign-in (its address, or version 1).");
  }
  const time = (value: string | undefined) => {
    if (value === undefined) return undefined;
    const date = new Date(value);
    if (Number.isNaN(date.getTime())) throw refuseSignIn("the message's times are not ISO 8601.");
    return date;
  };
  return {
    address: fields.address,
    domain: fields.domain,
    uri: fields.uri,
    nonce: fields.nonce,
    expirationTime: time(fields.expirationTime),
    notBefore: time(fields.notBefore),
    // An ed25519 signature of the message's bytes by the address's key: the same on every cluster.
    async signedBy(signed, signature) {
      if (signature.startsWith("0x")) return false;
      const { address, getBase58Encoder, getPublicKeyFromAddress, verifySignature } = await import("@solana/kit");
      const bytes = getBase58Encoder().encode(signature);
      if (bytes.length !== 64) return false;
      const key = await getPublicKeyFromAddress(address(fields.address));
      return verifySignature(key, bytes as SignatureBytes, new TextEncoder().encode(signed));
    },
  };
}
