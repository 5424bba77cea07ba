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
  // A cut can split a character in two: keep only whole characters.
  const kept = cut ? joined.subarray(0, wholeUtf8Length(joined)) : joined;
  return { text: new TextDecoder().decode(kept), bytes: kept.byteLength, cut };
}

/** The length of `bytes` without a UTF-8 sequence left incomplete at its end. */
function wholeUtf8Length(bytes: Uint8Array): number {
  // Look back past at most three continuation bytes (10xxxxxx) for the sequence's first byte.
  for (let back = 1; back <= Math.min(4, bytes.byteLength); back += 1) {
    const byte = bytes[bytes.byteLength - back] ?? 0;
    if ((byte & 0xc0) === 0x80) continue;
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? bytes.byteLength - back : bytes.byteLength;
  }
  return bytes.byteLength;
}
