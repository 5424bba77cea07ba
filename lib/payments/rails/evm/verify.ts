// Whether a wallet signed typed data on EVM, checked as the USDC contract will check it
// (lib/chain/signature.ts): a key wallet by recovery, a deployed smart account by ERC-1271, one
// not deployed yet by ERC-6492 with a factory the network allows. The schemes hold a payment's
// approval to it (./exact/verify.ts), and the rail the wallet's signed grant to an agent budget.
// A chain that does not answer is told apart from a signature the account refuses
// (ChainUnavailableError).
import type { Hex } from "viem";
import { isEvmAddress } from "@/lib/chain/addresses";
import { delegationTypedData } from "@/lib/chain/delegation";
import type { NetworkConfig } from "@/lib/chain/networks";
import { SignatureCheckUnavailableError, verifyPaymentSignature, type SignedTypedData } from "@/lib/chain/signature";
import { ChainUnavailableError, type BudgetGrant } from "../rail";

export const HEX_SIGNATURE = /^0x[0-9a-fA-F]{130,}$/;

/** Whether the wallet signed this delegation to its agent budget's session key. */
export async function verifyEvmGrant(grant: BudgetGrant, network: NetworkConfig): Promise<boolean> {
  const { wallet, session, maxAmount, validUntil, networks, signature } = grant;
  if (!isEvmAddress(wallet) || !isEvmAddress(session) || !HEX_SIGNATURE.test(signature)) return false;
  const verdict = await verifyEvmSignature({
    network,
    address: wallet,
    typedData: delegationTypedData({ wallet, session, maxAmount, validUntil, networks }),
    signature: signature as Hex,
  });
  return verdict.valid;
}

/** The signature check, with a chain that does not answer told apart (ChainUnavailableError). */
export async function verifyEvmSignature(parameters: { network: NetworkConfig; address: Hex; typedData: SignedTypedData; signature: Hex }): ReturnType<typeof verifyPaymentSignature> {
  try {
    return await verifyPaymentSignature(parameters);
  } catch (error) {
    if (error instanceof SignatureCheckUnavailableError) throw new ChainUnavailableError(error.message, { cause: error });
    throw error;
  }
}
