// What the payer's wallet signs for an x402 `upto` payment on EVM: a Permit2 witness transfer of
// at most the maximum, to be collected only by the named facilitator, built by the real x402
// client (@x402/core + @x402/evm's upto client). As for `exact` (../exact/prepare.ts), its signer
// captures the EIP-712 typed data instead of signing, and the signing window is capped. The
// signer reads no chain, so the client adds no EIP-2612 permit (the `eip2612GasSponsoring`
// extension): the page's wallet signs one message per payment, and a wallet without a Permit2
// allowance is told to approve Permit2 once (docs/contract.md, section 13).
import { x402Client } from "@x402/core/client";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { getAddress, type Hex } from "viem";
import type { NestedTypedDataForWallet, TypedDataValue } from "@/lib/chain/typed-data";
import { MAX_AUTHORIZATION_SECONDS, type PreparedPayment } from "../../rail";
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

export type UptoPreparedPayment = PreparedPayment & { toSign: NestedTypedDataForWallet; signs: "typed-data" };

export async function prepareUptoPayment({
  paymentRequired,
  requirements,
  payer,
}: {
  paymentRequired: PaymentRequired;
  requirements: PaymentRequirements;
  payer: `0x${string}`;
}): Promise<UptoPreparedPayment> {
  let captured: NestedTypedDataForWallet | undefined;
  const signer = {
    address: getAddress(payer),
    async signTypedData(data: { domain: Record<string, unknown>; types: Record<string, unknown>; primaryType: string; message: Record<string, unknown> }) {
      captured = {
        domain: data.domain as NestedTypedDataForWallet["domain"],
        types: data.types as NestedTypedDataForWallet["types"],
        primaryType: data.primaryType,
        message: asStrings(data.message),
      };
      return UNSIGNED;
    },
  };
  const quotedAt = Math.floor(Date.now() / 1000);
  const client = x402Client.fromConfig({
    schemes: [{ network: "eip155:*", client: shortLived(new UptoEvmScheme(signer)) }],
    spendControls: false,
    paymentRequirementsSelector: () => requirements,
  });
  const unsignedPayload = await client.createPaymentPayload(paymentRequired);
  if (!captured) throw new Error("the x402 client built an upto payload without typed data");
  const authorization = uptoAuthorizationOf(unsignedPayload);
  const deadline = Number(authorization.deadline);
  if (!Number.isSafeInteger(deadline) || deadline > Math.floor(Date.now() / 1000) + MAX_AUTHORIZATION_SECONDS || deadline < quotedAt) {
    throw new Error("the x402 client built a permit outside the allowed window");
  }
  return { nonce: authorization.nonce, validBefore: deadline, toSign: captured, signs: "typed-data", unsignedPayload };
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
