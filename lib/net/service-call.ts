// Calling a paid service, whatever protocol it speaks: the request as it is quoted and sent, its
// bounds, the call itself through the guarded fetch (./guarded-fetch.ts: only public addresses,
// or the configured allow-list) and its answer's body, read within a bound. A protocol adds its
// own proof to the paid retry (lib/x402/service-call.ts, lib/mpp/service-call.ts).
import { readBoundedBody } from "./bounded-body";
import { guardedFetch, RefusedDestinationError } from "./guarded-fetch";

const CALL_TIMEOUT_MS = 15_000;
/**
 * The paid call's own bound, headers and body together. It does not follow the person's
 * connection: once the signed payment is on its way, its outcome is seen through and recorded
 * even if the browser went away.
 */
export const PAID_CALL_TIMEOUT_MS = 30_000;
/** The most of a service's answer that is read; the rest is never downloaded. */
export const MAX_ANSWER_BYTES = 64 * 1024;
/**
 * The largest JSON body, in UTF-8 bytes, that a call may send, and the longest URL, query
 * included. A quote carries its call in its approval token (lib/payments/approval-token.ts),
 * so the call is bounded to what that token can hold.
 */
export const MAX_CALL_BODY_BYTES = 64 * 1024;
export const MAX_CALL_URL_CHARS = 8 * 1024;

/** One request to a service, as it is sent, quoted and paid. */
export type ServiceCall = {
  url: string;
  method: "GET" | "POST";
  query?: Record<string, string> | undefined;
  body?: unknown;
};

/** Why a call is too large to send, in the person's words, if it is. */
export function callSizeProblem(call: ServiceCall): string | undefined {
  const host = new URL(call.url).host;
  const urlChars = serviceUrl(call).length;
  if (urlChars > MAX_CALL_URL_CHARS) {
    return `The address for ${host}, query included, is ${urlChars} characters; a service can be called with at most ${MAX_CALL_URL_CHARS}.`;
  }
  if (call.method !== "POST") return undefined;
  // Measured as sent: the JSON in UTF-8.
  const bytes = Buffer.byteLength(JSON.stringify(call.body ?? {}), "utf8");
  if (bytes > MAX_CALL_BODY_BYTES) {
    return `The request body for ${host} is ${bytes} bytes; a service can be sent at most ${MAX_CALL_BODY_BYTES} bytes (64 KB).`;
  }
  return undefined;
}

export class ServiceUnreachableError extends Error {
  override readonly name = "ServiceUnreachableError";
  /**
   * True when no connection to the service was ever made (refused, unknown host, connect
   * timeout, or an address this server does not call): the request, and any payment in it,
   * never left this server.
   */
  readonly neverConnected: boolean;
  /** True when the address policy refused the service's address (private, loopback, port...). */
  readonly refused: boolean;

  constructor(message: string, options: { cause?: unknown; neverConnected?: boolean; refused?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.refused = options.refused ?? false;
    this.neverConnected = this.refused || (options.neverConnected ?? false);
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

export type CallServiceOptions = {
  headers?: Record<string, string>;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** `X402_ALLOW_PRIVATE_ADDRESSES`: without it, only public addresses are called. */
  allowPrivate?: readonly string[];
};

/**
 * Sends the request; a connection failure, a refused address or a timeout is a
 * ServiceUnreachableError. The timeout also bounds reading the answer's body. A redirect is
 * returned as it is, never followed.
 */
export async function callService(
  call: ServiceCall,
  { headers = {}, signal, timeoutMs = CALL_TIMEOUT_MS, allowPrivate = [] }: CallServiceOptions = {},
): Promise<Response> {
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    return await guardedFetch(serviceUrl(call), {
      allowPrivate,
      method: call.method,
      headers: {
        accept: "application/json, text/plain;q=0.9, */*;q=0.5",
        ...(call.method === "POST" ? { "content-type": "application/json" } : {}),
        ...headers,
      },
      ...(call.method === "POST" ? { body: JSON.stringify(call.body ?? {}) } : {}),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (error) {
    if (error instanceof RefusedDestinationError) {
      throw new ServiceUnreachableError(error.message, { cause: error, refused: true });
    }
    if (signal?.aborted) throw error;
    throw new ServiceUnreachableError(`The service at ${new URL(call.url).host} did not answer.`, {
      cause: error,
      neverConnected: !timeout.aborted && neverConnected(error),
    });
  }
}

/**
 * Reads a body as JSON when it is JSON, else as text, and never more than `maxBytes` of it: the
 * rest is not downloaded. A cut answer comes back as `{ cut, partial }`, `cut` saying what was
 * left out (first, so a short preview of it still says so), `partial` the text that was read.
 */
export async function readServiceBody(
  response: Response,
  { maxBytes = MAX_ANSWER_BYTES }: { maxBytes?: number } = {},
): Promise<unknown> {
  const body = await readBoundedBody(response, { maxBytes });
  if (body.cut) {
    return {
      cut: `The service's answer was longer than ${formatBytes(maxBytes)}: only its first ${formatBytes(body.bytes)} were read, the rest was cut off and not downloaded.`,
      partial: body.text,
    };
  }
  if ((response.headers.get("content-type") ?? "").includes("json")) {
    try {
      return JSON.parse(body.text) as unknown;
    } catch {
      return body.text;
    }
  }
  return body.text;
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 && bytes % 1024 === 0 ? `${bytes / 1024} KB` : `${bytes} bytes`;
}
