// Whether what came back from the wallet is its approval of an `upto` payment on EVM: its
// signature of the Permit2 witness transfer the payload carries, checked as Permit2 will check
// it (../verify.ts), and that transfer the one quoted: this payer's, of the quoted maximum of the
// network's USDC, to the upto proxy as spender, with the quoted nonce, and a witness naming the
// quote's payee and the facilitator the service's option named. The typed data the wallet saw
// must be that transfer, field for field.
import type { PaymentPayload } from "@x402/core/types";
import { getAddress, type Hex } from "viem";
import { isEvmAddress } from "@/lib/chain/addresses";
import type { NetworkConfig } from "@/lib/chain/networks";
import { PERMIT2_ADDRESS, UPTO_PROXY_ADDRESS } from "@/lib/chain/permit2";
import { nestedTypedDataMessage, type NestedTypedDataForWallet } from "@/lib/chain/typed-data";
import type { ApprovalVerdict } from "../../rail";
import { HEX_SIGNATURE, verifyEvmSignature } from "../verify";
import { uptoAuthorizationOf } from "./prepare";

export type VerifyUptoApprovalParameters = {
  network: NetworkConfig;
  payer: string;
  /** The maximum quoted. */
  amount: bigint;
  nonce: string;
  typedData: NestedTypedDataForWallet;
  unsignedPayload: PaymentPayload;
  signature: string;
};

export async function verifyUptoApproval(parameters: VerifyUptoApprovalParameters): Promise<ApprovalVerdict> {
  const { network, payer, typedData, signature } = parameters;
  if (!isEvmAddress(payer) || !HEX_SIGNATURE.test(signature)) return { valid: false };
  if (!isQuotedTransfer(parameters)) return { valid: false };
  const verdict = await verifyEvmSignature({
    network,
    address: payer,
    typedData: { ...typedData, message: nestedTypedDataMessage(typedData) },
    signature: signature as Hex,
  });
  return verdict.valid ? { valid: true } : { valid: false };
}

/** The payload's permit is the quoted one, and the typed data the wallet signed is that permit. */
function isQuotedTransfer({ network, payer, amount, nonce, typedData, unsignedPayload }: VerifyUptoApprovalParameters): boolean {
  let auth: ReturnType<typeof uptoAuthorizationOf>;
  try {
    auth = uptoAuthorizationOf(unsignedPayload);
  } catch {
    return false;
  }
  const accepted = unsignedPayload.accepted as { payTo?: unknown; extra?: { facilitatorAddress?: unknown } } | undefined;
  const same = (a: unknown, b: unknown) => typeof a === "string" && typeof b === "string" && isEvmAddress(a) && isEvmAddress(b) && getAddress(a) === getAddress(b);
  if (
    !same(auth.from, payer) ||
    auth.nonce !== nonce ||
    auth.permitted.amount !== amount.toString() ||
    !same(auth.permitted.token, network.usdc.address) ||
    !same(auth.spender, UPTO_PROXY_ADDRESS) ||
    !same(auth.witness.to, accepted?.payTo) ||
    !same(auth.witness.facilitator, accepted?.extra?.facilitatorAddress) ||
    auth.witness.validAfter !== "0"
  ) {
    return false;
  }
  const { domain, message, primaryType } = typedData;
  return (
    primaryType === "PermitWitnessTransferFrom" &&
    domain.name === "Permit2" &&
    domain.chainId === network.chainId &&
    same(domain.verifyingContract, PERMIT2_ADDRESS) &&
    JSON.stringify(message) ===
      JSON.stringify({
        permitted: { token: getAddress(auth.permitted.token), amount: auth.permitted.amount },
        spender: getAddress(auth.spender),
        nonce: auth.nonce,
        deadline: auth.deadline,
        witness: { to: getAddress(auth.witness.to), facilitator: getAddress(auth.witness.facilitator), validAfter: auth.witness.validAfter },
      })
  );
}
