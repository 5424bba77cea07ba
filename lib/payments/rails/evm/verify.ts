// Whether what came back from the wallet is its approval, checked as the USDC contract will
// check it (lib/chain/signature.ts): a key wallet by recovery, a deployed smart account by
// ERC-1271, one not deployed yet by ERC-6492 with a factory the network allows. The same check
// holds the wallet's signed grant to an agent budget. A chain that does not answer is told apart
// from a signature the account refuses (ChainUnavailableError).
import type { PaymentPayload } from "@x402/core/types";
import type { Hex } from "viem";
import { isEvmAddress } from "@/lib/address";
import { delegationTypedData } from "@/lib/chain/delegation";
import type { NetworkConfig } from "@/lib/chain/networks";
import { SignatureCheckUnavailableError, verifyPaymentSignature, type SignedTypedData } from "@/lib/chain/signature";
import { typedDataMessage, type TypedDataForWallet } from "@/lib/chain/typed-data";
import { ChainUnavailableError, type ApprovalVerdict, type BudgetGrant } from "../rail";
import { authorizationOf } from "./prepare";

const HEX_SIGNATURE = /^0x[0-9a-fA-F]{130,}$/;

export type VerifyEvmApprovalParameters = {
  network: NetworkConfig;
  payer: string;
  amount: bigint;
  nonce: string;
  typedData: TypedDataForWallet;
  unsignedPayload: PaymentPayload;
  signature: string;
};

export async function verifyEvmApproval(parameters: VerifyEvmApprovalParameters): Promise<ApprovalVerdict> {
  const { network, payer, typedData, signature } = parameters;
  if (!isEvmAddress(payer) || !HEX_SIGNATURE.test(signature)) return { valid: false };
  // The typed data must be the payload's own authorization, of the quoted amount and nonce.
  const authorization = authorizationOf(parameters.unsignedPayload);
  if (authorization.nonce.toLowerCase() !== parameters.nonce.toLowerCase() || authorization.value !== parameters.amount.toString()) {
    return { valid: false };
  }
  const verdict = await checked({
    network,
    address: payer,
    typedData: { ...typedData, message: typedDataMessage(typedData) },
    signature: signature as Hex,
  });
  if (verdict.valid) return { valid: true };
  if (verdict.reason === "factory-not-allowed") {
    return {
      valid: false,
      why: {
        message: `The account ${payer} is not deployed yet, and payments on ${network.name} may not deploy it with its factory ${verdict.factory} (ERC-6492). Deploy the account first, then approve again.`,
        field: "its ERC-6492 factory is not allowed on this network",
      },
    };
  }
  if (verdict.signer === "contract") {
    return {
      valid: false,
      why: {
        message: `The smart account ${payer} does not accept this signature of the payment (checked by ERC-1271): it must be signed by the account's owner.`,
        field: "the smart account refuses it (ERC-1271)",
      },
    };
  }
  if (verdict.signer === "counterfactual") {
    return {
      valid: false,
      why: {
        message: `The smart account ${payer}, not deployed yet, would not accept this signature of the payment (checked by ERC-6492): it must be signed by the account's owner.`,
        field: "the counterfactual account refuses it (ERC-6492)",
      },
    };
  }
  return { valid: false };
}

/** Whether the wallet signed this delegation to its agent budget's session key. */
export async function verifyEvmGrant(grant: BudgetGrant, network: NetworkConfig): Promise<boolean> {
  const { wallet, session, maxAmount, validUntil, networks, signature } = grant;
  if (!isEvmAddress(wallet) || !isEvmAddress(session) || !HEX_SIGNATURE.test(signature)) return false;
  const verdict = await checked({
    network,
    address: wallet,
    typedData: delegationTypedData({ wallet, session, maxAmount, validUntil, networks }),
    signature: signature as Hex,
  });
  return verdict.valid;
}

async function checked(parameters: { network: NetworkConfig; address: Hex; typedData: SignedTypedData; signature: Hex }): ReturnType<typeof verifyPaymentSignature> {
  try {
    return await verifyPaymentSignature(parameters);
  } catch (error) {
    if (error instanceof SignatureCheckUnavailableError) throw new ChainUnavailableError(error.message, { cause: error });
    throw error;
  }
}
