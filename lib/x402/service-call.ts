// Calling an x402 service: the first, unpaid request (which answers 402 with what it costs),
// and the paid retry with the x402 payment header, whose answer carries the settlement.
import { x402Client, x402HTTPClient } from "@x402/core/client";
import type { PaymentPayload, SettleResponse } from "@x402/core/types";

const CALL_TIMEOUT_MS = 15_000;
/**
 * The paid call's own bound, headers and body together. It does not follow the person's
 * connection: once the signed payment is on its way, its outcome is seen through and recorded
 * even if the browser went away.
 */
export const PAID_CALL_TIMEOUT_MS = 30_000;
const MAX_BODY_CHARS = 64 * 1024;

export type ServiceCall = {
  url: string;
  method: "GET" | "POST";
  query?: Record<string, string> | undefined;
  body?: unknown;
};

export class ServiceUnreachableError extends Error {
  override readonly name = "ServiceUnreachableError";
  /**
   * True when no connection to the service was ever made (refused, unknown host, connect
   * timeout): the request, and any payment in it, never left this server.
   */
  readonly neverConnected: boolean;

  constructor(message: string, options: { cause?: unknown; neverConnected?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.neverConnected = options.neverConnected ?? false;
  }
}

// Failures that happen before a connection exists, so before a byte of the request was sent.
const connectFailureCodes = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"]);

function neverConnected(error: unknown): boolean {
  const cause = error instanceof Error ? error.cause : undefined;
  if (!(cause instanceof Error)) return false;
  if (cause instanceof AggregateError && cause.errors.length > 0) {
    return cause.errors.every((inner: unknown) => connectFailureCodes.has(String((inner as { code?: unknown }).code)));
  }
  return connectFailureCodes.has(String((cause as Error & { code?: unknown }).code));
}

export function serviceUrl(call: Pick<ServiceCall, "url" | "query">): string {
  const url = new URL(call.url);
  for (const [key, value] of Object.entries(call.query ?? {})) url.searchParams.set(key, value);
  return url.toString();
}

/**
 * Sends the request; a connection failure or timeout is a ServiceUnreachableError. The timeout
 * also bounds reading the answer's body.
 */
export async function callService(
  call: ServiceCall,
  {
    headers = {},
    signal,
    timeoutMs = CALL_TIMEOUT_MS,
  }: { headers?: Record<string, string>; signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<Response> {
  const timeout = AbortSignal.timeout(timeoutMs);
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
    throw new ServiceUnreachableError(`The service at ${new URL(call.url).host} did not answer.`, {
      cause: error,
      neverConnected: !timeout.aborted && neverConnected(error),
    });
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

/**
 * The paid retry: the same request with the signed payload in the x402 header of its version,
 * under its own timeout (PAID_CALL_TIMEOUT_MS unless given), never the person's connection.
 */
export function callServiceWithPayment(
  call: ServiceCall,
  payload: PaymentPayload,
  { timeoutMs = PAID_CALL_TIMEOUT_MS }: { timeoutMs?: number } = {},
): Promise<Response> {
  return callService(call, { headers: http.encodePaymentSignatureHeader(payload), timeoutMs });
}

/** The settlement a paid response reports (PAYMENT-RESPONSE, or X-PAYMENT-RESPONSE in v1). */
export function readSettlement(response: Response): SettleResponse | undefined {
  try {
    return http.getPaymentSettleResponse((name) => response.headers.get(name));
  } catch {
    return undefined;
  }
}
