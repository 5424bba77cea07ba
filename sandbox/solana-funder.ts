/**
 * Funds an address on the local Solana from outside the sandbox's process (the end-to-end tests
 * run beside it), with real transactions through its RPC: the funder (the USDC mint's authority,
 * whose key `sandbox.json` holds) creates the owner's USDC account if it has none and mints to it.
 */
import {
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createTransactionMessage,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstructionAsync, getMintToCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";

export type SolanaFundParameters = {
  rpcUrl: string;
  /** The mint authority's 64-byte key, base58 (`sandbox.json`'s `solana.funder.secretKey`). */
  funderSecretKey: string;
  mint: string;
  decimals: number;
  to: string;
  usdc: bigint;
};

/** Mints `usdc` (atomic units) to `to`'s USDC account, creating it first; returns the transaction's signature. */
export async function fundOnSolana({ rpcUrl, funderSecretKey, mint, decimals, to, usdc }: SolanaFundParameters): Promise<string> {
  const rpc = createSolanaRpc(rpcUrl);
  const funder = await createKeyPairSignerFromBytes(new Uint8Array(getBase58Encoder().encode(funderSecretKey)));
  const [account] = await findAssociatedTokenPda({ mint: address(mint), owner: address(to), tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const create = await getCreateAssociatedTokenIdempotentInstructionAsync({ payer: funder, owner: address(to), mint: address(mint) });
  const mintTo = getMintToCheckedInstruction({ mint: address(mint), token: account, mintAuthority: funder, amount: usdc, decimals });
  const { value: blockhash } = await rpc.getLatestBlockhash().send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (draft) => setTransactionMessageFeePayerSigner(funder, draft),
    (draft) => setTransactionMessageLifetimeUsingBlockhash(blockhash, draft),
    (draft) => appendTransactionMessageInstructions([create, mintTo], draft),
  );
  const signed = await signTransactionMessageWithSigners(message);
  return rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: "base64" }).send();
}
