// The approval token: what request A quoted, signed by the server so request B can trust it.
// It binds the payment id, the wallet, the service request, the exact accepted requirements
// (inside the unsigned x402 payload), the amount and the expiry; any change breaks its MAC.
// Opaque to the client: base64url(JSON) "." base64url(HMAC-SHA256).
//
// The service request travels inside the token, body included, rather than as a digest with
// the body kept here: the server stores no conversation (docs/contract.md, section 5), and request B then
// needs nothing but the token to send exactly what was quoted. That bounds what a token can
// carry, so the service request is bounded too: a POST body of at most 64 KiB and a URL of at
// most 8 KiB, which keeps the largest token (128 KiB) well inside the 256 KiB request limit
// of request B beside the conversation it resends.
import { randomBytes } from "node:crypto";
import type { PaymentPayload } from "@x402/core/types";
import type { ServerEnv } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { mac, macMatches, signingKey, verifyingKeys, type SigningKeyEnv } from "@/lib/signing-keys";
import type { ServiceCall } from "@/lib/net/service-call";
import type { PaymentFacts } from "./payment";
import type { BudgetGrant, WalletRequest } from "./rails/rail";
import type { CheckedOffer } from "./receipt";

export type ApprovalClaims = {
  v: 1;
  paymentId: string;
  /** The wallet whose limits and ledger the payment counts against. */
  wallet: string;
  service: ServiceCall & { name: string };
  /** CAIP-2. */
  network: string;
  /** The x402 scheme its rail pays it in; absent in tokens issued before schemes were named: `exact`. */
  scheme?: string;
  asset: string;
  payTo: string;
  /** Atomic units of the asset, as a decimal string. */
  amount: string;
  /** The exposure's instrument: the one-time id the chain marks spent (PreparedPayment's `exposure.instrument`). */
  nonce: string;
  /** Unix seconds: the exposure's window end (PreparedPayment's `exposure.until`). */
  expiresAt: number;
  /** What the wallet signs, in order (PreparedPayment's `toSign`). */
  toSign: WalletRequest[];
  payload: PaymentPayload;
  /** The person's other wallets (an EVM and a Solana one), whose payments count against the same limits. */
  countedWith?: string[];
  /**
   * What the door bound the quote to (the chat: a digest of the conversation it was quoted
   * for); an approval must bring the same.
   */
  binding?: string;
  /**
   * Paid from the wallet's agent budget: the grant (checked again at approval), whose session
   * key signs the transfer as its `from`. Absent: the wallet itself signs.
   */
  agentBudget?: BudgetGrant;
  /**
   * The service's signed offer for these terms (x402 `offer-receipt`), as checked at quote
   * time, when its 402 declared the extension: the receipt after payment is held to it.
   */
  offer?: CheckedOffer;
  /**
   * Paid through a pay-as-you-go channel (x402 `batch-settlement`): `opening`, the amount is its
   * deposit, paid like any payment, and the channel is recorded with it; else one call on it, from
   * the cumulative base `expected` the ledger held when quoted. Amounts in atomic units.
   */
  channel?: { id: string; opening: boolean; price: string; deposit: string; expected: string; withdrawDelaySeconds: number; confirm?: true };
};

/** The address that signs a quote's transfer: the wallet, or its agent budget's session key. */
export function payerOf(claims: Pick<ApprovalClaims, "wallet" | "agentBudget">): string {
  return claims.agentBudget?.session ?? claims.wallet;
}

/**
 * The longest approval token: the largest body and URL a service call may carry
 * (lib/net/service-call.ts), base64url-encoded (4/3), with room for the rest of the claims
 * (typed data, the x402 payload, names). A service whose 402 would make a token longer than
 * this is refused at quote time rather than given a token that request B could not carry.
 */
export const MAX_APPROVAL_TOKEN_CHARS = 128 * 1024;

export function newPaymentId(): string {
  return `pay_${randomBytes(12).toString("hex")}`;
}

export function signApproval(claims: ApprovalClaims, env: SigningKeyEnv): string {
  const body = Buffer.from(JSON.stringify(claims), "utf8").toString("base64url");
  return `${body}.${mac(signingKey(env), body)}`;
}

/**
 * The token for these claims, or undefined when it would be longer than request B may carry
 * (a service whose own 402 is bloated): better no quote than one that cannot be approved.
 */
export function issueApproval(claims: ApprovalClaims, env: Pick<ServerEnv, "PAYMENT_TOKEN_SECRET">): string | undefined {
  const token = signApproval(claims, env);
  return token.length <= MAX_APPROVAL_TOKEN_CHARS ? token : undefined;
}

/** The claims of an untampered token for this payment id; anything else is a 400. */
export function verifyApproval(
  token: string,
  paymentId: string,
  env: SigningKeyEnv,
): ApprovalClaims {
  const invalid = () =>
    new AppError("bad-request", "The payment approval is not valid. Ask for the payment again to get a new quote.", {
      details: { fields: [{ path: "payment.token", message: "invalid or changed approval token" }] },
    });
  const [body, given, extra] = token.split(".");
  if (!body || !given || extra !== undefined) throw invalid();
  if (!macMatches(verifyingKeys(env), body, given)) throw invalid();
  let claims: ApprovalClaims;
  try {
    claims = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as ApprovalClaims;
  } catch {
    throw invalid();
  }
  // A token from before the wallet's answer was a list (quoted minutes before an upgrade) is asked again.
  if (claims.v !== 1 || claims.paymentId !== paymentId || !Array.isArray(claims.toSign)) throw invalid();
  return claims;
}

/** What a person is told of a channel payment, from what its token carries. */
export function channelFactsOf(channel: NonNullable<ApprovalClaims["channel"]>): NonNullable<PaymentFacts["channel"]> {
  const price = BigInt(channel.price);
  const deposit = BigInt(channel.deposit);
  return {
    opening: channel.opening,
    price,
    deposit,
    left: deposit - BigInt(channel.expected) - price,
    withdrawDelaySeconds: channel.withdrawDelaySeconds,
    ...(channel.confirm ? { confirm: true as const } : {}),
  };
}

/** Whether an approval is one call on an open channel (paid by ./channels.ts, not ./delivery.ts). */
export function isChannelCall(claims: ApprovalClaims): boolean {
  return claims.channel !== undefined && !claims.channel.opening;
}
