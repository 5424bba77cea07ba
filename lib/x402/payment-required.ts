// A service's HTTP 402, read as the x402 client reads it: the PAYMENT-REQUIRED header (v2) or
// the body (v1). What a service sends is data from a stranger: anything that is not a 402 with
// at least one payment option is no payment request.
import { x402Client, x402HTTPClient } from "@x402/core/client";
import type { PaymentRequired } from "@x402/core/types";

export function readPaymentRequired(response: Response, body: unknown): PaymentRequired | undefined {
  try {
    const http = new x402HTTPClient(new x402Client());
    const required = http.getPaymentRequiredResponse((name) => response.headers.get(name), body);
    return Array.isArray(required.accepts) && required.accepts.length > 0 ? required : undefined;
  } catch {
    return undefined;
  }
}
