// Reading a request's body within a size bound: a declared length past it is refused before
// reading, and reading stops the moment the body passes it (a 413 either way), so a huge body
// costs at most the bound in memory.
import { AppError } from "@/lib/errors";

/** The body as UTF-8 text; past `limit` bytes, a `payload-too-large` AppError. */
export async function readRequestText(request: Request, limit: number): Promise<string> {
  const tooLarge = () =>
    new AppError("payload-too-large", `The request body is larger than ${limit / 1024} KiB.`, {
      details: { limitBytes: limit },
    });
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return new TextDecoder("utf-8", { fatal: false }).decode(concat(chunks, size));
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/**
 * Refuses a body that is not declared `application/json` with a 415. The media type is compared
 * whole (parameters aside): a type that merely contains the words, such as
 * `text/plain; charset=application/json`, is one a form on another site may send without a CORS
 * preflight, and is refused.
 */
export function requireJsonMediaType(request: Request, message = "Send it as application/json."): void {
  const mediaType = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (mediaType !== "application/json") throw new AppError("unsupported-media-type", message);
}

/**
 * A small JSON body, as the page's own requests send them: `application/json` (else a 415, so
 * no form on another site can post one), at most `limit` bytes (else a 413), parsed (else a 400
 * that says what to send).
 */
export async function readJsonBody(request: Request, { limit = 32 * 1024, expected }: { limit?: number; expected: string }): Promise<unknown> {
  requireJsonMediaType(request);
  const text = await readRequestText(request, limit);
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("bad-request", `The body is not valid JSON: send ${expected}.`);
  }
}
