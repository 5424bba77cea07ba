// Whether what came back from the wallet is its approval of an `upto` payment on EVM: its
// signature of the Permit2 witness transfer the payload carries, checked as Permit2 will check
// it (../verify.ts), and that transfer the one quoted: this payer's, of the quoted maximum of the
// network's USDC, to the upto proxy as spender, with the quoted nonce, and a witness naming the
// quote's payee and the facilitator the service's option named. The typed data the wallet saw
// must be that transfer, field for field. When the quote also asked for USDC's EIP-2612 permit for
// Permit2 (the `eip2612GasSponsoring` extension), the wallet's signature of it is checked the same
// way: the typed data it saw is exactly the permit the payload carries (this payer's, to Permit2,
// for at least the maximum, with the quoted nonce and deadline, in USDC's own domain), and the
// signature is the payer's.
import type { PaymentPayload } from "@x402/core/types";
import { getAddress, type Hex } from "viem";
import { isEvmAddress } from "@/lib/chain/addresses";
import type { NetworkConfig } from "@/lib/chain/networks";
import { PERMIT2_ADDRESS, UPTO_PROXY_ADDRESS } from "@/lib/chain/permit2";
import { nestedTypedDataMessage, typedDataMessage, type NestedTypedDataForWallet, type TypedDataForWallet } from "@/lib/chain/typed-data";
import type { ApprovalVerdict } from "../../rail";
import { HEX_SIGNATURE, verifyEvmSignature } from "../verify";
import { PERMIT_REQUEST, permitInfoOf, uptoAuthorizationOf } from "./prepare";

export type VerifyUptoApprovalParameters = {
  network: NetworkConfig;
  payer: string;
  /** The maximum quoted. */
  amount: bigint;
  nonce: string;
  typedData: NestedTypedDataForWallet;
  unsignedPayload: PaymentPayload;
  signature: string;
  /** The EIP-2612 permit the quote asked for, and the wallet's signature of it. */
  permit?: { typedData: TypedDataForWallet; signature: string };
};

export async function verifyUptoApproval(parameters: VerifyUptoApprovalParameters): Promise<ApprovalVerdict> {
  const { network, payer, typedData, signature } = parameters;
  if (!isEvmAddress(payer) || !HEX_SIGNATURE.test(signature)) return { valid: false };
  if (!isQuotedTransfer(parameters)) return { valid: false };
  const { permit } = parameters;
  if (permit && (!HEX_SIGNATURE.test(permit.signature) || !isQuotedPermit(parameters, permit.typedData))) return permitRefused;
  // The facilitator hands the permit to USDC as (v, r, s): a longer signature (a smart account's
  // wrapped one) cannot be submitted, and such a wallet approves Permit2 itself.
  if (permit && !PERMIT_SIGNATURE.test(permit.signature)) return permitTooLong;
  const verdict = await verifyEvmSignature({
    network,
    address: payer,
    typedData: { ...typedData, message: nestedTypedDataMessage(typedData) },
    signature: signature as Hex,
  });
  if (!verdict.valid) return { valid: false };
  if (!permit) return { valid: true };
  const permitVerdict = await verifyEvmSignature({
    network,
    address: payer,
    typedData: { ...permit.typedData, message: typedDataMessage(permit.typedData) },
    signature: permit.signature as Hex,
  });
  return permitVerdict.valid ? { valid: true } : permitRefused;
}

const PERMIT_SIGNATURE = /^0x[0-9a-fA-F]{130}$/;

const permitTooLong = {
  valid: false,
  why: {
    message: "This wallet's permit signature is not the 65-byte kind USDC's permit takes, so it cannot be submitted for you: approve Permit2 once (one transaction, with its own gas), then approve the payment without the permit.",
    field: "is not a 65-byte signature",
    request: PERMIT_REQUEST,
  },
} as const;

const permitRefused = {
  valid: false,
  why: {
    message: "The permit signature is not the connected wallet's signature of the USDC permit for Permit2 this payment asked for.",
    field: "does not match the wallet and the quoted permit",
    request: PERMIT_REQUEST,
  },
} as const;

/** The typed data the wallet signed is the permit the payload carries, and that permit is the one the extension takes: this payer's, for Permit2, of at least the maximum. */
function isQuotedPermit({ network, payer, amount, unsignedPayload }: VerifyUptoApprovalParameters, typedData: TypedDataForWallet): boolean {
  const info = permitInfoOf(unsignedPayload);
  if (!info) return false;
  const same = (a: unknown, b: unknown) => typeof a === "string" && typeof b === "string" && isEvmAddress(a) && isEvmAddress(b) && getAddress(a) === getAddress(b);
  if (
    !same(info.from, payer) ||
    !same(info.asset, network.usdc.address) ||
    !same(info.spender, PERMIT2_ADDRESS) ||
    !/^[0-9]+$/.test(info.amount) ||
    BigInt(info.amount) < amount ||
    !/^[0-9]+$/.test(info.nonce) ||
    info.deadline !== uptoAuthorizationOf(unsignedPayload).deadline
  ) {
    return false;
  }
  const { domain, message, primaryType } = typedData;
  return (
    primaryType === "Permit" &&
    domain.name === network.usdc.name &&
    domain.version === network.usdc.version &&
    domain.chainId === network.chainId &&
    same(domain.verifyingContract, network.usdc.address) &&
    JSON.stringify(typedData.types.Permit) ===
      JSON.stringify([
        { name: "owner", type: "address" },
        { name: "spender", type: "address" },
        { name: "value", type: "uint256" },
        { name: "nonce", type: "uint256" },
        { name: "deadline", type: "uint256" },
      ]) &&
    JSON.stringify(message) === JSON.stringify({ owner: getAddress(info.from), spender: getAddress(info.spender), value: info.amount, nonce: info.nonce, deadline: info.deadline })
  );
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
