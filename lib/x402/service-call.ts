// Calling an x402 service: the first, unpaid request (which answers 402 with what it costs),
// and the paid retry with the x402 payment header, whose answer carries the settlement.
import { x402Client, x402HTTPClient } from "@x402/core/client";
import type { PaymentPayload, SettleResponse } from "@x402/core/types";

const CALL_TIMEOUT_MS = 15_000;
const MAX_BODY_CHARS = 64 * 1024;

export type ServiceCall = {
  url: string;
  method: "GET" | "POST";
  query?: Record<string, string> | undefined;
  body?: unknown;
};

export class ServiceUnreachableError extends Error {
  override readonly name = "ServiceUnreachableError";
}

export function serviceUrl(call: Pick<ServiceCall, "url" | "query">): string {
  const url = new URL(call.url);
  for (const [key, value] of Object.entries(call.query ?? {})) url.searchParams.set(key, value);
  return url.toString();
}

/** Sends the request; a connection failure or timeout is a ServiceUnreachableError. */
export async function callService(
  call: ServiceCall,
  { headers = {}, signal }: { headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Response> {
  const timeout = AbortSignal.timeout(CALL_TIMEOUT_MS);
  try {
    return await fetch(serviceUrl(call), {
      method: call.method,
      headers: {
        accept: "application/json, text/plain;q=0.9, */*;q=0.5",
        ...(call.method === "POST" ? { "content-type": "application/json" } : {}),
        ...headers,
      },
      ...(call.method === "POST" ? { body: JSON.stringify(call.body ?? {}) } : {}),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      redirect: "manual",
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ServiceUnreachableError(`The service at ${new URL(call.url).host} did not answer.`, { cause: error });
  }
}

/** Reads a body as JSON when it is JSON, else as text, within a size bound. */
export async function readServiceBody(response: Response): Promise<unknown> {
  const text = await response.text();
  const bounded = text.length > MAX_BODY_CHARS ? `${text.slice(0, MAX_BODY_CHARS)}…` : text;
  if ((response.headers.get("content-type") ?? "").includes("json")) {
    try {
      return JSON.parse(bounded) as unknown;
    } catch {
      return bounded;
    }
  }
  return bounded;
}

const http = new x402HTTPClient(new x402Client());

/** The paid retry: the same request with the signed payload in the x402 header of its version. */
export function callServiceWithPayment(call: ServiceCall, payload: PaymentPayload, signal?: AbortSignal): Promise<Response> {
  return callService(call, { headers: http.encodePaymentSignatureHeader(payload), ...(signal ? { signal } : {}) });
}

/** The settlement a paid response reports (PAYMENT-RESPONSE, or X-PAYMENT-RESPONSE in v1). */
export function readSettlement(response: Response): SettleResponse | undefined {
  try {
    return http.getPaymentSettleResponse((name) => response.headers.get(name));
  } catch {
    return undefined;
  }
}
