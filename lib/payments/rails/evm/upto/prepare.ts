// What the payer's wallet signs for an x402 `upto` payment on EVM: a Permit2 witness transfer of
// at most the maximum, to be collected only by the named facilitator, built by the real x402
// client (@x402/core + @x402/evm's upto client). As for `exact` (../exact/prepare.ts), its signer
// captures the EIP-712 typed data instead of signing, and the signing window is capped. The
// signer reads the chain as the client asks it (the payer's USDC allowance to Permit2, and its
// EIP-2612 nonce): when the allowance is below the maximum and the service declares the
// `eip2612GasSponsoring` extension, the client also builds a USDC EIP-2612 permit for Permit2,
// which the wallet signs first and the facilitator submits with the settlement, so the person
// pays no gas (docs/contract.md, section 13).
import { x402Client } from "@x402/core/client";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { EIP2612_GAS_SPONSORING, type Eip2612GasSponsoringInfo, extractEip2612GasSponsoringInfo } from "@x402/extensions";
import { getAddress, type Hex } from "viem";
import { publicClientFor } from "@/lib/chain/clients";
import type { NetworkConfig } from "@/lib/chain/networks";
import type { NestedTypedDataForWallet, TypedDataForWallet, TypedDataValue } from "@/lib/chain/typed-data";
import { PERMIT2_ADDRESS } from "@/lib/chain/permit2-address";
import { MAX_AUTHORIZATION_SECONDS, type PreparedPayment, type WalletFallback, type WalletRequest } from "../../rail";
import { shortLived, UNSIGNED } from "../exact/prepare";

/** The Permit2 authorization an upto payload carries, as the x402 client writes it. */
export type UptoAuthorization = {
  from: string;
  permitted: { token: string; amount: string };
  spender: string;
  nonce: string;
  deadline: string;
  witness: { to: string; facilitator: string; validAfter: string };
};

/** What the wallet signs for `upto`: USDC's permit for Permit2 first, when asked, then the Permit2 transfer. */
export type UptoPreparedPayment = PreparedPayment & { toSign: WalletRequest[] };

/** Where the permit's answer went in the fields clients sent before the answer was a list. */
const PERMIT_ANSWER_FIELD = "permitSignature";

/** The parts of an upto payment the wallet signs, as its prepared payment holds them. */
export function uptoRequests(prepared: PreparedPayment): { permit?: TypedDataForWallet; transfer: NestedTypedDataForWallet } {
  const transfer = prepared.toSign.at(-1);
  if (transfer?.kind !== "typed-data") throw new Error("an upto payment without its Permit2 transfer");
  const permit = prepared.toSign.length > 1 ? prepared.toSign[0] : undefined;
  return {
    transfer: transfer.typedData as NestedTypedDataForWallet,
    ...(permit?.kind === "typed-data" ? { permit: permit.typedData as TypedDataForWallet } : {}),
  };
}

/** The wallet's answers to an upto payment's requests: its signature of the transfer, and of the permit when it gave one. */
export function uptoAnswers(prepared: PreparedPayment, signed: readonly (string | undefined)[]): { permit?: Hex; transfer: Hex | undefined } {
  const transfer = signed[prepared.toSign.length - 1] as Hex | undefined;
  const permit = prepared.toSign.length > 1 ? (signed[0] as Hex | undefined) : undefined;
  return { transfer, ...(permit !== undefined ? { permit } : {}) };
}

/**
 * The one-time approval that lets Permit2 move the payer's USDC (`token`), with its own gas:
 * what the person may do instead of signing the gasless permit, and what the card offers when a
 * payment is refused for want of it.
 */
export function permit2Approval(token: string): WalletFallback {
  return {
    kind: "token-approval",
    token: getAddress(token),
    spender: getAddress(PERMIT2_ADDRESS),
    label: "approve Permit2",
    note: "Usage-priced payments move USDC through Permit2, which this wallet approves once (one transaction, with its own gas).",
  };
}

/** The index of the permit's request, when the payment asks for one. */
export const PERMIT_REQUEST = 0;

type TypedDataAsked = { domain: Record<string, unknown>; types: Record<string, unknown>; primaryType: string; message: Record<string, unknown> };

export async function prepareUptoPayment({
  paymentRequired,
  requirements,
  payer,
  network,
}: {
  paymentRequired: PaymentRequired;
  requirements: PaymentRequirements;
  payer: `0x${string}`;
  /** The chain the client reads (the allowance to Permit2, the EIP-2612 nonce); without it, no permit is built. */
  network?: NetworkConfig;
}): Promise<UptoPreparedPayment> {
  const quotedAt = Math.floor(Date.now() / 1000);
  let built: { unsignedPayload: PaymentPayload; asked: TypedDataAsked[] };
  try {
    built = await buildPayload(paymentRequired, requirements, payer, network);
  } catch (error) {
    // A chain that does not answer the client's reads: the payment is built without a permit,
    // as before the extension, and the facilitator decides.
    if (!network) throw error;
    built = await buildPayload(paymentRequired, requirements, payer, undefined);
  }
  const { unsignedPayload, asked } = built;
  const transfer = asked.find((data) => data.primaryType === "PermitWitnessTransferFrom");
  if (!transfer) throw new Error("the x402 client built an upto payload without typed data");
  const captured: NestedTypedDataForWallet = {
    domain: transfer.domain as NestedTypedDataForWallet["domain"],
    types: transfer.types as NestedTypedDataForWallet["types"],
    primaryType: transfer.primaryType,
    message: asStrings(transfer.message),
  };
  const permitAsked = asked.find((data) => data.primaryType === "Permit");
  const permitInfo = permitInfoOf(unsignedPayload);
  const permit =
    permitAsked && permitInfo
      ? {
          toSign: {
            domain: permitAsked.domain as TypedDataForWallet["domain"],
            types: permitAsked.types as TypedDataForWallet["types"],
            primaryType: permitAsked.primaryType,
            message: asStrings(permitAsked.message) as Record<string, string>,
          },
        }
      : undefined;
  const authorization = uptoAuthorizationOf(unsignedPayload);
  const deadline = Number(authorization.deadline);
  if (!Number.isSafeInteger(deadline) || deadline > Math.floor(Date.now() / 1000) + MAX_AUTHORIZATION_SECONDS || deadline < quotedAt) {
    throw new Error("the x402 client built a permit outside the allowed window");
  }
  // Permit2: up to the permitted maximum can move, once (the nonce), while the chain's time is at
  // or before the deadline; a settle of less, or of nothing, leaves the rest unspendable only
  // once the nonce is used.
  const exposure = { amount: BigInt(authorization.permitted.amount), instrument: authorization.nonce, until: deadline };
  const transferRequest: WalletRequest = {
    kind: "typed-data",
    typedData: captured,
    purpose: "the payment",
    answeredAs: "signature",
  };
  const permitRequest: WalletRequest | undefined = permit
    ? {
        kind: "typed-data",
        typedData: permit.toSign,
        purpose: "a gasless USDC permit for Permit2",
        instead: permit2Approval(permitAsked?.domain.verifyingContract as string),
        answeredAs: PERMIT_ANSWER_FIELD,
      }
    : undefined;
  return { exposure, toSign: permitRequest ? [permitRequest, transferRequest] : [transferRequest], unsignedPayload };
}

/** The x402 client's payload, and every typed data it asked the signer for, in order. */
async function buildPayload(
  paymentRequired: PaymentRequired,
  requirements: PaymentRequirements,
  payer: `0x${string}`,
  network: NetworkConfig | undefined,
): Promise<{ unsignedPayload: PaymentPayload; asked: TypedDataAsked[] }> {
  const asked: TypedDataAsked[] = [];
  const client = network ? publicClientFor(network) : undefined;
  const signer = {
    address: getAddress(payer),
    async signTypedData(data: TypedDataAsked) {
      asked.push(data);
      return UNSIGNED;
    },
    ...(client ? { readContract: (args: Parameters<typeof client.readContract>[0]) => client.readContract(args) } : {}),
  };
  const x402 = x402Client.fromConfig({
    schemes: [{ network: "eip155:*", client: shortLived(new UptoEvmScheme(signer)) }],
    spendControls: false,
    paymentRequirementsSelector: () => requirements,
  });
  return { unsignedPayload: await x402.createPaymentPayload(paymentRequired), asked };
}

/** The EIP-2612 permit the payload carries for the facilitator to submit (`eip2612GasSponsoring`), when it carries one. */
export function permitInfoOf(payload: PaymentPayload): Eip2612GasSponsoringInfo | undefined {
  return extractEip2612GasSponsoringInfo(payload) ?? undefined;
}

/**
 * The payload completed with the wallet's answers: its signature of the transfer, and, when the
 * payload carries a permit, its signature of the permit; without one, the extension is left out
 * (the wallet has approved Permit2 itself since the quote).
 */
export function withUptoSignatures(payload: PaymentPayload, signature: Hex, permitSignature: Hex | undefined): PaymentPayload {
  const signed = withUptoSignature(payload, signature);
  const info = permitInfoOf(payload);
  if (!info || !signed.extensions) return signed;
  const key = EIP2612_GAS_SPONSORING.key;
  const { [key]: asked, ...others } = signed.extensions;
  if (!permitSignature) return { ...signed, extensions: others };
  return { ...signed, extensions: { ...others, [key]: { ...(asked as object), info: { ...info, signature: permitSignature } } } };
}

/** The Permit2 authorization inside an upto payload. */
export function uptoAuthorizationOf(payload: PaymentPayload): UptoAuthorization {
  const inner = payload.payload as { permit2Authorization?: unknown };
  const auth = inner.permit2Authorization as Partial<UptoAuthorization> | undefined;
  if (!auth || typeof auth.nonce !== "string" || typeof auth.deadline !== "string" || !auth.permitted || !auth.witness) {
    throw new Error("payload without a Permit2 authorization");
  }
  return auth as UptoAuthorization;
}

/** The payload with the wallet's signature in place of the stand-in. */
export function withUptoSignature(payload: PaymentPayload, signature: Hex): PaymentPayload {
  return { ...payload, payload: { ...payload.payload, signature } };
}

function asStrings(message: Record<string, unknown>): Record<string, TypedDataValue> {
  return Object.fromEntries(
    Object.entries(message).map(([key, value]) => [
      key,
      typeof value === "object" && value !== null ? asStrings(value as Record<string, unknown>) : typeof value === "bigint" ? value.toString() : String(value),
    ]),
  );
}
