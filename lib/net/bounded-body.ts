// Reading an answer from someone else's server within a size bound: the body is read as a
// stream and reading stops at the cap (the rest is cancelled, never buffered), so a huge or
// endless answer costs at most the cap in memory.

export type BoundedBody = {
  /** The body as UTF-8 text, at most `maxBytes` bytes of it. */
  text: string;
  /** Bytes kept. */
  bytes: number;
  /** True when the body was longer than the cap: only its first `maxBytes` bytes were read. */
  cut: boolean;
};

type BodySource = { body: ReadableStream<Uint8Array> | null };

export async function readBoundedBody(response: BodySource, { maxBytes }: { maxBytes: number }): Promise<BoundedBody> {
  if (!response.body) return { text: "", bytes: 0, cut: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let cut = false;
  let ended = false;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      const room = maxBytes - bytes;
      if (value.byteLength > room) {
        if (room > 0) chunks.push(value.subarray(0, room));
        bytes += Math.max(room, 0);
        cut = true;
        break;
      }
      chunks.push(value);
      bytes += value.byteLength;
    }
  } finally {
    // Past the cap, or on an error, the rest is not wanted: stop the transfer.
    if (!ended) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
  const joined = new Uint8Array(bytes);
  let offset = 0;
  for (const chunk of chunks) {
    joined.set(chunk, offset);
    offset += chunk.byteLength;
  }
  let text = new TextDecoder().decode(joined);
  // A cut can split a character in two: drop the half.
  if (cut) text = text.replace(/\uFFFD$/, "");
  return { text, bytes, cut };
}
