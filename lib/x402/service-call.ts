// The x402 side of a paid call: the retry with the signed payload in the x402 header of its
// version (`PAYMENT-SIGNATURE`, or `X-PAYMENT` in v1), and the settlement its answer claims
// (`PAYMENT-RESPONSE`). The call itself is any paid service's (lib/net/service-call.ts).
import { x402Client, x402HTTPClient } from "@x402/core/client";
import type { PaymentPayload, SettleResponse } from "@x402/core/types";
import { z } from "zod";
import { callService, PAID_CALL_TIMEOUT_MS, type ServiceCall } from "@/lib/net/service-call";
import { cleanText } from "@/lib/text";

const http = new x402HTTPClient(new x402Client());

/**
 * The paid retry: the same request with the signed payload in the x402 header of its version,
 * under its own timeout (PAID_CALL_TIMEOUT_MS unless given), never the person's connection.
 */
export function callServiceWithPayment(
  call: ServiceCall,
  payload: PaymentPayload,
  { timeoutMs = PAID_CALL_TIMEOUT_MS, allowPrivate }: { timeoutMs?: number; allowPrivate?: readonly string[] } = {},
): Promise<Response> {
  return callService(call, {
    headers: http.encodePaymentSignatureHeader(payload),
    timeoutMs,
    ...(allowPrivate ? { allowPrivate } : {}),
  });
}

// What a service says about its settlement is a stranger's data: each field is checked before
// anything reads it, and text is bounded. It stays a claim until the chain backs it.
const settlementSchema = z.object({
  success: z.boolean(),
  // A transaction id, in its chain's own form (hex, base58); empty when nothing settled.
  transaction: z.string().max(128).regex(/^[0-9A-Za-z]*$/),
  network: z.string().max(100).optional(),
  payer: z.string().max(128).optional(),
  amount: z.string().regex(/^\d{1,78}$/).optional(),
  errorReason: z
    .string()
    .optional()
    .transform((reason) => (reason === undefined ? undefined : cleanText(reason, 120))),
});

/** A settlement as a service claims it. */
/** `amount`: what a usage-priced (`upto`) settlement says it settled, atomic units; a claim the chain must back. */
export type Settlement = Pick<SettleResponse, "success" | "transaction" | "errorReason"> & { amount?: string };

/** The settlement a paid response claims (PAYMENT-RESPONSE, or X-PAYMENT-RESPONSE in v1), if it is well formed. */
export function readSettlement(response: Response): Settlement | undefined {
  let claimed: unknown;
  try {
    claimed = http.getPaymentSettleResponse((name) => response.headers.get(name));
  } catch {
    return undefined;
  }
  const parsed = settlementSchema.safeParse(claimed);
  if (!parsed.success) return undefined;
  const { success, transaction, errorReason, amount } = parsed.data;
  return { success, transaction, ...(errorReason ? { errorReason } : {}), ...(amount === undefined ? {} : { amount }) };
}
