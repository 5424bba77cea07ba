// The Machine Payments Protocol's `evm` charge as this product pays it (docs/contract.md,
// section 12): a 402's `WWW-Authenticate: Payment` challenges read and checked with mppx's own
// code (the challenge's form, its expiry, the body digest, and the `evm` method's request: chain,
// currency, amount, recipient, splits), and each turned into the payment option the payment core
// quotes, in the form x402 options have: scheme MPP_EVM_CHARGE on the challenge's chain, the
// challenge carried along (`extra.challenge`) so that the approval can answer it. Which options
// can be paid is the EVM rail's rule (lib/payments/rails/evm/mpp-charge); what a challenge says is
// a stranger's data until then.
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { BodyDigest, Challenge, Expires } from "mppx";
import { ChargeRequestSchema } from "mppx/evm";
import { evmNetworkId } from "@/lib/chain/networks";
import { MPP_EVM_CHARGE } from "./scheme";

export { MPP_EVM_CHARGE } from "./scheme";

/** What an MPP `evm` charge option carries besides the fields x402 options have. */
export type MppChargeExtra = {
  /** The challenge as the service sent it (one `Payment` challenge, serialized): what the credential answers. */
  challenge?: string;
  /** Payments to others out of the amount, as the challenge asks (an EIP-3009 authorization cannot make them). */
  splits?: { amount: string; recipient: string }[];
  /** Unix seconds: when the challenge expires. */
  expires?: number;
};

/** A 402's Payment challenges, read: the options they come to, and why others were left out. */
export type MppPaymentRequired = {
  paymentRequired: PaymentRequired;
  /** The challenges that are no `evm` charge or were refused, in the person's words (a Tempo or Stripe charge, an expired one). */
  refused: string[];
};

/** Whether a response carries a `WWW-Authenticate: Payment` challenge. */
export function hasPaymentChallenge(response: Response): boolean {
  return /(^|,\s*)Payment\s/i.test(response.headers.get("www-authenticate") ?? "");
}

const METHOD_NAMES: Record<string, string> = { tempo: "Tempo", stripe: "Stripe" };

/**
 * The Payment challenges of a 402 as payment options, read with mppx's parser; undefined when the
 * header holds none that parse. `body`: the request's body as sent (a POST's JSON text), which a
 * challenge's `digest` must match. An option whose challenge expired, whose digest does not match,
 * or whose method is not `evm` is not offered; why is said in `refused`.
 */
export function readMppChallenges(response: Response, { url, body, now = Date.now() }: { url: string; body: string | undefined; now?: number }): MppPaymentRequired | undefined {
  let challenges: Challenge.Challenge[];
  try {
    challenges = Challenge.fromResponseList(response);
  } catch {
    return undefined;
  }
  const accepts: PaymentRequirements[] = [];
  const refused: string[] = [];
  let realm: string | undefined;
  let description: string | undefined;
  for (const challenge of challenges) {
    realm ??= challenge.realm;
    description ??= challenge.description;
    const refusal = refusalOf(challenge, body, now);
    if (refusal) {
      refused.push(refusal);
      continue;
    }
    const option = optionOf(challenge, now);
    if (typeof option === "string") refused.push(option);
    else accepts.push(option);
  }
  if (accepts.length === 0 && refused.length === 0) return undefined;
  return {
    paymentRequired: {
      x402Version: 2,
      resource: { url, ...(realm ? { serviceName: realm } : {}), ...(description ? { description } : {}) },
      accepts,
    },
    refused,
  };
}

/** Why a challenge cannot be answered whatever its method says, if it cannot. */
function refusalOf(challenge: Challenge.Challenge, body: string | undefined, now: number): string | undefined {
  if (challenge.intent !== "charge" || challenge.method !== "evm") {
    const method = METHOD_NAMES[challenge.method] ?? `"${challenge.method.slice(0, 40)}"`;
    return `the MPP ${method} ${challenge.intent.slice(0, 40)} method is not one this agent pays (it pays MPP charges in USDC on EVM chains, the "evm" method)`;
  }
  try {
    // mppx's own rule: a challenge without an expiry, or past it, is refused.
    Expires.assert(challenge.expires, challenge.id);
  } catch {
    return "the MPP challenge has expired or names no expiry";
  }
  if (Date.parse(challenge.expires ?? "") <= now) return "the MPP challenge has expired";
  if (challenge.digest !== undefined) {
    let matches = false;
    try {
      matches = BodyDigest.verify(challenge.digest as BodyDigest.BodyDigest, body ?? "");
    } catch {
      matches = false;
    }
    if (!matches) return "the MPP challenge is for another request body than this one";
  }
  return undefined;
}

/** The payment option an `evm` charge challenge asks for, or why its request does not read. */
function optionOf(challenge: Challenge.Challenge, now: number): PaymentRequirements | string {
  const parsed = ChargeRequestSchema.safeParse(challenge.request);
  if (!parsed.success) return "the MPP evm charge's request does not read as one";
  const request = parsed.data;
  const { chainId, splits, credentialTypes } = request.methodDetails;
  if (credentialTypes && !credentialTypes.includes("authorization")) {
    return "the MPP evm charge does not take an EIP-3009 authorization, the only credential this agent signs";
  }
  const expires = Math.floor(Date.parse(challenge.expires ?? "") / 1000);
  const extra: MppChargeExtra = { challenge: Challenge.serialize(challenge), expires, ...(splits ? { splits } : {}) };
  return {
    scheme: MPP_EVM_CHARGE,
    network: evmNetworkId(chainId),
    amount: request.amount,
    asset: request.currency,
    payTo: request.recipient,
    maxTimeoutSeconds: Math.max(0, expires - Math.floor(now / 1000)),
    extra: extra as Record<string, unknown>,
  };
}

/** The challenge an MPP option carries, parsed again with mppx (it travelled inside the approval token). */
export function challengeOf(requirements: PaymentRequirements): Challenge.Challenge | undefined {
  const serialized = (requirements.extra as MppChargeExtra | undefined)?.challenge;
  if (typeof serialized !== "string") return undefined;
  try {
    return Challenge.deserialize(serialized);
  } catch {
    return undefined;
  }
}
