// Whether what came back from the wallet is its approval of an `exact` payment on EVM: its
// signature of the EIP-3009 authorization the payload carries, of the quoted amount and nonce,
// checked as the USDC contract will check it (../verify.ts).
import type { PaymentPayload } from "@x402/core/types";
import type { Hex } from "viem";
import { isEvmAddress } from "@/lib/chain/addresses";
import type { NetworkConfig } from "@/lib/chain/networks";
import { typedDataMessage, type TypedDataForWallet } from "@/lib/chain/typed-data";
import type { ApprovalVerdict } from "../../rail";
import { HEX_SIGNATURE, verifyEvmSignature } from "../verify";
import { authorizationOf } from "./prepare";

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
  const verdict = await verifyEvmSignature({
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
