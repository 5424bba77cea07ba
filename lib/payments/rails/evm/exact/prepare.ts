// What the payer's wallet signs for an x402 `exact` payment on EVM. The real x402 client
// (@x402/core + @x402/evm, v2 and v1) builds the payment payload; its signer here only
// captures the EIP-712 typed data instead of signing, because the signature must come from
// the person's own wallet in the browser. The captured payload, with the wallet's signature
// put in later, is exactly what the x402 client would have sent.
import { x402Client } from "@x402/core/client";
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SchemeNetworkClient } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { EVM_NETWORK_CHAIN_ID_MAP, ExactEvmSchemeV1 } from "@x402/evm/v1";
import { getAddress, type Hex } from "viem";
import type { TypedDataForWallet } from "@/lib/chain/typed-data";
import { MAX_AUTHORIZATION_SECONDS, type PreparedPayment, type WalletRequest } from "../../rail";

/** Stands in for the signature until the wallet's arrives: 65 zero bytes. */
export const UNSIGNED = `0x${"00".repeat(65)}` as Hex;

/** A payment prepared on EVM for `exact`: the wallet signs one EIP-712 authorization. */
export type EvmPreparedPayment = PreparedPayment & { toSign: [WalletRequest & { kind: "typed-data"; typedData: TypedDataForWallet }] };

/** The one thing the wallet signs for an EIP-3009 payment: the authorization itself. */
export function authorizationRequest(typedData: TypedDataForWallet): WalletRequest & { kind: "typed-data"; typedData: TypedDataForWallet } {
  return { kind: "typed-data", typedData, purpose: "the payment", answeredAs: "signature" };
}

/** The authorization an EIP-3009 payment asks the wallet to sign, as its prepared payment holds it. */
export function authorizationTypedData(prepared: PreparedPayment): TypedDataForWallet {
  const [request] = prepared.toSign;
  if (request?.kind !== "typed-data") throw new Error("an EIP-3009 payment without its typed data");
  return request.typedData as TypedDataForWallet;
}

/** The wallet's one signature of an EIP-3009 payment. */
export function authorizationSignature(signed: readonly (string | undefined)[]): Hex {
  const [signature] = signed;
  if (signature === undefined) throw new Error("an EIP-3009 payment without its signature");
  return signature as Hex;
}

export type PrepareEvmPaymentParameters = {
  paymentRequired: PaymentRequired;
  /** The requirement chosen among those the service accepts. */
  requirements: PaymentRequirements;
  /** The address whose signature authorizes the transfer (its `from`). */
  payer: `0x${string}`;
};

export async function prepareEvmPayment({ paymentRequired, requirements, payer }: PrepareEvmPaymentParameters): Promise<EvmPreparedPayment> {
  let captured: TypedDataForWallet | undefined;
  const signer = {
    address: getAddress(payer),
    async signTypedData(data: { domain: Record<string, unknown>; types: Record<string, unknown>; primaryType: string; message: Record<string, unknown> }) {
      captured = toWalletTypedData(data);
      return UNSIGNED;
    },
  };
  const quotedAt = Math.floor(Date.now() / 1000);
  const client = x402Client.fromConfig({
    schemes: [
      { network: "eip155:*", client: shortLived(new ExactEvmScheme(signer)) },
      ...Object.keys(EVM_NETWORK_CHAIN_ID_MAP).map((name) => ({
        network: name as `${string}:${string}`,
        client: shortLived(new ExactEvmSchemeV1(signer)),
        x402Version: 1,
      })),
    ],
    // The payment core's own checks (limits, pre-flight) replace the client's default caps.
    spendControls: false,
    paymentRequirementsSelector: () => requirements,
  });
  const unsignedPayload = await client.createPaymentPayload(paymentRequired);
  if (!captured) throw new Error("the x402 client built a payload without typed data");
  const authorization = authorizationOf(unsignedPayload);
  const validBefore = Number(authorization.validBefore);
  // The cap is the scheme wrapper's job; this only makes sure no other path slipped past it.
  if (!Number.isSafeInteger(validBefore) || validBefore > Math.floor(Date.now() / 1000) + MAX_AUTHORIZATION_SECONDS || validBefore < quotedAt) {
    throw new Error("the x402 client built an authorization outside the allowed window");
  }
  // EIP-3009: the authorization's value can move, once, until validBefore (exclusive).
  const exposure = { amount: BigInt(authorization.value), instrument: authorization.nonce, until: validBefore };
  return { exposure, toSign: [authorizationRequest(captured)], unsignedPayload };
}

/**
 * The scheme client with the signing window capped: the payload's own requirements (echoed as
 * `accepted` in v2, which the service compares with its own) stay as the service sent them;
 * only the authorization's validBefore is built from the capped timeout.
 */
export function shortLived(client: SchemeNetworkClient): SchemeNetworkClient {
  return {
    scheme: client.scheme,
    ...(client.schemeHooks ? { schemeHooks: client.schemeHooks } : {}),
    ...(client.findDefaultAsset ? { findDefaultAsset: client.findDefaultAsset.bind(client) } : {}),
    createPaymentPayload: (x402Version, requirements, context) => {
      const asked = Number(requirements.maxTimeoutSeconds);
      const seconds = Number.isFinite(asked) && asked > 0 ? Math.min(Math.floor(asked), MAX_AUTHORIZATION_SECONDS) : MAX_AUTHORIZATION_SECONDS;
      return client.createPaymentPayload(x402Version, { ...requirements, maxTimeoutSeconds: seconds }, context);
    },
  };
}

/** The EIP-3009 authorization inside a payload (v2 and v1 alike). */
export function authorizationOf(payload: PaymentPayload): { from: string; to: string; value: string; validBefore: string; nonce: Hex } {
  const inner = payload.payload as { authorization?: Record<string, unknown> };
  const auth = inner.authorization;
  if (!auth || typeof auth.nonce !== "string" || typeof auth.validBefore !== "string") {
    throw new Error("payload without an EIP-3009 authorization");
  }
  return {
    from: String(auth.from),
    to: String(auth.to),
    value: String(auth.value),
    validBefore: auth.validBefore,
    nonce: auth.nonce as Hex,
  };
}

/** The payload with the wallet's signature in place of the stand-in. */
export function withSignature(payload: PaymentPayload, signature: Hex): PaymentPayload {
  return { ...payload, payload: { ...payload.payload, signature } };
}

function toWalletTypedData(data: {
  domain: Record<string, unknown>;
  types: Record<string, unknown>;
  primaryType: string;
  message: Record<string, unknown>;
}): TypedDataForWallet {
  const message = Object.fromEntries(
    Object.entries(data.message).map(([key, value]) => [key, typeof value === "bigint" ? value.toString() : String(value)]),
  );
  return {
    domain: data.domain as TypedDataForWallet["domain"],
    types: data.types as TypedDataForWallet["types"],
    primaryType: data.primaryType,
    message,
  };
}
