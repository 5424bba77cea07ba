// Turns a JSON error response of `POST /api/chat` (`{ error: { code, message, details? } }`,
// docs/contract.md, section 2) into something the page can show, whatever the body actually holds: a proxy
// or a crash can answer with HTML or nothing at all.

export type ChatRequestError = {
  status: number;
  code: string;
  message: string;
  /** Set for 429 `rate-limited`: seconds until the next message is accepted. */
  retryAfterSeconds?: number;
};

const fallbackMessages: Record<number, string> = {
  400: "The message could not be sent: the request was not valid.",
  413: "The conversation is too long to send. Start a new one.",
  415: "The request was sent in a format the server does not accept.",
  429: "Please wait a moment before sending another message.",
  500: "Something went wrong on the server. Please try again.",
  502: "The server could not be reached. Please try again.",
  503: "A service needed for this is unavailable right now. Please try again later.",
  504: "The server took too long to answer. Please try again.",
};

export async function readChatError(response: Response): Promise<ChatRequestError> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  const error = isRecord(body) && isRecord(body.error) ? body.error : {};
  const details = isRecord(error.details) ? error.details : {};
  const code = typeof error.code === "string" ? error.code : `http-${response.status}`;
  const message =
    typeof error.message === "string" && error.message.length > 0
      ? error.message
      : (fallbackMessages[response.status] ?? `The server answered with HTTP ${response.status}.`);
  const retryAfterSeconds =
    response.status === 429
      ? (positiveSeconds(details.retryAfterSeconds) ?? positiveSeconds(response.headers.get("retry-after")))
      : undefined;
  return { status: response.status, code, message, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) };
}

function positiveSeconds(value: unknown): number | undefined {
  const seconds = typeof value === "number" ? value : typeof value === "string" ? Number(value) : Number.NaN;
  return Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
