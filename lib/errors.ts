// The one error type of the product: a stable code from docs/contract.md, section 2, its HTTP status, and a
// message that is safe to show. Internal details are logged by the caller, never sent.

export const errorStatus = {
  "bad-request": 400,
  "secret-in-message": 400,
  // Signing in was refused, or a read needs the wallet's own session (docs/contract.md, section 9).
  unauthorized: 401,
  "insufficient-balance": 402,
  "limit-exceeded": 403,
  // A payment an AI app asked for that this server does not hold (docs/contract.md, section 11).
  "not-found": 404,
  "payload-too-large": 413,
  "unsupported-media-type": 415,
  "rate-limited": 429,
  internal: 500,
  "blockchain-error": 500,
  "service-error": 500,
  "service-unavailable": 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export class AppError extends Error {
  override readonly name = "AppError";
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.code = code;
    this.status = errorStatus[code];
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  toJSON(): { error: { code: ErrorCode; message: string; details?: Record<string, unknown> } } {
    return {
      error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) },
    };
  }

  toResponse(): Response {
    return Response.json(this.toJSON(), { status: this.status, headers: this.headers });
  }
}

/** Any thrown value as an AppError; unknown failures become a generic `internal` error. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  return new AppError("internal", "Something went wrong on our side. Please try again.", { cause: error });
}
