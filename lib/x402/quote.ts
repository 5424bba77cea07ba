// Turns a service's HTTP 402 into a quote the person's wallet can sign. The real x402 client
// (@x402/core + @x402/evm, v2 and v1) builds the payment payload; its signer here only
// captures the EIP-712 typed data instead of signing, because the signature must come from
// the person's own wallet in the browser. The captured payload, with the wallet's signature
// put in later, is exactly what the x402 client would have sent.
import { x402Client, x402HTTPClient } from "@x402/core/client";
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SchemeNetworkClient } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { ExactEvmSchemeV1 } from "@x402/evm/v1";
import { EVM_NETWORK_CHAIN_ID_MAP } from "@x402/evm/v1";
import { getAddress, type Hex } from "viem";
import type { NetworkConfig } from "@/lib/chain/networks";
import { checkRequirement, type PayableRequirement, type RequirementsEnv } from "./requirements";
import type { TypedDataForWallet } from "@/lib/chain/typed-data";

export type { TypedDataForWallet } from "@/lib/chain/typed-data";

/** Stands in for the signature until the wallet's arrives: 65 zero bytes. */
export const UNSIGNED = `0x${"00".repeat(65)}` as Hex;

/**
 * How long a signed authorization stays collectable (SPEC section 4, item 5): at most 10
 * minutes after the quote, whatever `maxTimeoutSeconds` the service asks for. A longer window
 * would only let a service collect long after the person was told how the payment ended.
 */
export const MAX_AUTHORIZATION_SECONDS = 600;

export type PaymentQuote = {
  x402Version: number;
  network: NetworkConfig;
  requirements: PaymentRequirements;
  amount: bigint;
  payTo: `0x${string}`;
  asset: `0x${string}`;
  nonce: Hex;
  validBefore: number;
  typedData: TypedDataForWallet;
  /** The x402 payment payload with UNSIGNED in place of the signature. */
  unsignedPayload: PaymentPayload;
};

export type QuoteRefusal = { code: "payment-failed"; message: string };

type QuoteEnv = RequirementsEnv;

/** Reads the 402 of a response as the x402 client does: the PAYMENT-REQUIRED header (v2) or the body (v1). */
export function readPaymentRequired(response: Response, body: unknown): PaymentRequired | undefined {
  try {
    const http = new x402HTTPClient(new x402Client());
    const required = http.getPaymentRequiredResponse((name) => response.headers.get(name), body);
    return Array.isArray(required.accepts) && required.accepts.length > 0 ? required : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Chooses what to pay and builds the payload. Only what lib/x402/requirements.ts finds payable
 * is a candidate; among them, those within the per-payment limit come first, then the default
 * chain, then the cheapest. When every candidate is above the limit the cheapest is still
 * quoted: pre-flight then refuses it as `limit-exceeded`, so the person sees the price and the
 * limit that stopped it on a payment card, like any other limit (SPEC section 3, `checking`).
 */
export async function createQuote(parameters: {
  paymentRequired: PaymentRequired;
  wallet: `0x${string}`;
  perPaymentLimit: bigint;
  defaultChain: string | undefined;
  env: QuoteEnv;
}): Promise<PaymentQuote | QuoteRefusal> {
  const { paymentRequired, env } = parameters;
  const candidates: PayableRequirement[] = [];
  const reasons: string[] = [];
  for (const requirements of paymentRequired.accepts) {
    const check = checkRequirement(requirements, env, { x402Version: paymentRequired.x402Version });
    if (check.payable) candidates.push(check);
    else reasons.push(check.reason);
  }
  if (candidates.length === 0) {
    return { code: "payment-failed", message: `The service asks for a payment this agent cannot make: ${[...new Set(reasons)].join("; ") || "no payment options"}.` };
  }
  const withinLimit = (candidate: PayableRequirement) => candidate.amount <= parameters.perPaymentLimit;
  candidates.sort(
    (a, b) =>
      Number(withinLimit(b)) - Number(withinLimit(a)) ||
      Number(b.network.id === parameters.defaultChain) - Number(a.network.id === parameters.defaultChain) ||
      (a.amount < b.amount ? -1 : a.amount > b.amount ? 1 : 0),
  );
  const first = candidates[0] as PayableRequirement;
  // Above the limit, the card shows the lowest price asked, not the default chain's.
  const chosen = withinLimit(first) ? first : candidates.reduce((cheapest, next) => (next.amount < cheapest.amount ? next : cheapest));

  let captured: TypedDataForWallet | undefined;
  const signer = {
    address: getAddress(parameters.wallet),
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
    // This product's own checks (above and in pre-flight) replace the client's default caps.
    spendControls: false,
    paymentRequirementsSelector: () => chosen.requirements,
  });
  const unsignedPayload = await client.createPaymentPayload(paymentRequired);
  if (!captured) throw new Error("the x402 client built a payload without typed data");
  const authorization = authorizationOf(unsignedPayload);
  const validBefore = Number(authorization.validBefore);
  // The cap is the scheme wrapper's job; this only makes sure no other path slipped past it.
  if (!Number.isSafeInteger(validBefore) || validBefore > Math.floor(Date.now() / 1000) + MAX_AUTHORIZATION_SECONDS || validBefore < quotedAt) {
    throw new Error("the x402 client built an authorization outside the allowed window");
  }
  return {
    x402Version: paymentRequired.x402Version,
    network: chosen.network,
    requirements: chosen.requirements,
    amount: chosen.amount,
    payTo: chosen.payTo,
    asset: chosen.asset,
    nonce: authorization.nonce,
    validBefore,
    typedData: captured,
    unsignedPayload,
  };
}

/**
 * The scheme client with the signing window capped: the payload's own requirements (echoed as
 * `accepted` in v2, which the service compares with its own) stay as the service sent them;
 * only the authorization's validBefore is built from the capped timeout.
 */
function shortLived(client: SchemeNetworkClient): SchemeNetworkClient {
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
