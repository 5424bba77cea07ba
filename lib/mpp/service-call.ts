// The paid call to an MPP service and what its answer claims (docs/contract.md, section 12): the
// signed EIP-3009 authorization sent back as the `evm` charge's credential (`Authorization:
// Payment`, or the header the challenge names), built and serialized by mppx; and the
// `Payment-Receipt`, parsed by mppx and checked here, which stays a claim until the chain shows
// the transfer (the payment core asks it, as for x402's PAYMENT-RESPONSE).
import type { PaymentPayload } from "@x402/core/types";
import { Challenge, Credential, Receipt } from "mppx";
import { toSource } from "mppx/evm";
import { getAddress, isAddress } from "viem";
import { callService, PAID_CALL_TIMEOUT_MS, type ServiceCall } from "@/lib/net/service-call";
import { chainIdOf } from "@/lib/chain/networks";
import { challengeOf } from "./charge";

/** The credential header answering the challenge an MPP payload carries: its name and value. */
export function mppCredentialHeader(payload: PaymentPayload): { name: string; value: string } {
  const challenge = challengeOf(payload.accepted);
  if (!challenge) throw new Error("an MPP payment without its challenge");
  const { authorization, signature } = payload.payload as { authorization?: Record<string, unknown>; signature?: unknown };
  const field = (name: string) => {
    const value = authorization?.[name];
    if (typeof value !== "string") throw new Error(`an MPP authorization without its ${name}`);
    return value;
  };
  const from = field("from");
  if (!isAddress(from) || typeof signature !== "string") throw new Error("an MPP authorization without its payer or signature");
  const chainId = chainIdOf(payload.accepted.network);
  if (chainId === undefined) throw new Error("an MPP charge on a network that is no EVM chain");
  const credential = Credential.from({
    challenge,
    payload: {
      from: getAddress(from),
      nonce: field("nonce"),
      signature,
      to: field("to"),
      type: "authorization",
      validAfter: field("validAfter"),
      validBefore: field("validBefore"),
      value: field("value"),
    },
    source: toSource({ address: getAddress(from), chainId }),
  });
  return { name: Challenge.credentialHeader(challenge), value: Credential.serialize(credential) };
}

/** The paid retry: the same request with the credential, under its own timeout, never the person's connection. */
export function callServiceWithCredential(
  call: ServiceCall,
  payload: PaymentPayload,
  { timeoutMs = PAID_CALL_TIMEOUT_MS, allowPrivate }: { timeoutMs?: number; allowPrivate?: readonly string[] } = {},
): Promise<Response> {
  const header = mppCredentialHeader(payload);
  return callService(call, { headers: { [header.name]: header.value }, timeoutMs, ...(allowPrivate ? { allowPrivate } : {}) });
}

/** A transaction id as an EVM chain names one. */
const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

/** The settlement a paid answer's `Payment-Receipt` claims, if it parses and names a transaction. */
export function readMppReceipt(response: Response): { success: true; transaction: string } | undefined {
  let receipt: Receipt.Receipt;
  try {
    receipt = Receipt.fromResponse(response);
  } catch {
    return undefined;
  }
  if (receipt.status !== "success" || receipt.method !== "evm" || !TX_HASH.test(receipt.reference)) return undefined;
  return { success: true, transaction: receipt.reference };
}
