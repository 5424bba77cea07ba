import { describe, expect, test } from "vitest";
import { samplePaymentStatus } from "@/tests/fixtures/payment-status";
import { createLineDecoder, decodeLine, encodeLine, readLines, type StreamLine } from "@/lib/protocol/lines";

const samples: StreamLine[] = [
  { type: "text", text: "Hello" },
  { type: "text", text: 'line one\nline two\r\n"quoted" and \\backslash\\' },
  { type: "text", text: "weather 🌦️ in Zürich, 東京 too 👍🏽" },
  { type: "text", text: "0:not a prefix\nd:{\"finishReason\":\"stop\"}" },
  {
    type: "payment",
    payment: samplePaymentStatus(),
  },
  { type: "data", data: { preferences: { priority: "cost" } } },
  { type: "error", error: { code: "model-error", message: "The model could not answer." } },
  { type: "data", data: { finishReason: "stop", model: "offline" } },
];

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function decodeAll(chunks: Uint8Array[]): Promise<StreamLine[]> {
  const out: StreamLine[] = [];
  for await (const line of readLines(streamOf(chunks))) out.push(line);
  return out;
}

describe("stream line codec", () => {
  test("every kind of line survives a round trip, one line per newline", () => {
    for (const line of samples) {
      const encoded = encodeLine(line);
      expect(encoded.endsWith("\n")).toBe(true);
      expect(encoded.slice(0, -1)).not.toContain("\n");
      expect(decodeLine(encoded.slice(0, -1))).toEqual(line);
    }
  });

  test("a pending payment's collectableUntil and a not-delivered payment's txHash survive a round trip", () => {
    const pending = samplePaymentStatus({ status: "failed" });
    const lines: StreamLine[] = [
      { type: "payment", payment: { ...pending, reason: { code: "payment-pending", message: "Not collected yet." }, collectableUntil: "2030-01-01T14:05:00.000Z" } },
      { type: "payment", payment: { ...pending, reason: { code: "not-delivered", message: "Paid, no data." }, txHash: `0x${"ab".repeat(32)}` } },
    ];
    for (const line of lines) expect(decodeLine(encodeLine(line).slice(0, -1))).toEqual(line);
  });

  test("uses the prefixes of the contract", () => {
    expect(samples.map((line) => encodeLine(line).split(":")[0])).toEqual(["0", "0", "0", "0", "p", "d", "e", "d"]);
    expect(encodeLine({ type: "text", text: "hi" })).toBe('0:"hi"\n');
  });

  test("decodes a byte stream cut at every possible place, multi-byte characters included", async () => {
    const bytes = new TextEncoder().encode(samples.map(encodeLine).join(""));
    for (let cut = 1; cut < bytes.length; cut += 7) {
      const decoded = await decodeAll([bytes.slice(0, cut), bytes.slice(cut)]);
      expect(decoded).toEqual(samples);
    }
    const oneByteAtATime = await decodeAll(Array.from(bytes, (byte) => new Uint8Array([byte])));
    expect(oneByteAtATime).toEqual(samples);
  });

  test("refuses malformed lines with a clear error", () => {
    expect(() => decodeLine("x:1")).toThrow(/unknown prefix x/);
    expect(() => decodeLine('0:{"a":1}')).toThrow(/JSON string/);
    expect(() => decodeLine("d:not json")).toThrow(/does not hold JSON/);
    expect(() => decodeLine('e:{"code":1}')).toThrow(/code, message/);
    expect(() => decodeLine("no prefix")).toThrow(/not a stream line/);
  });

  test("a decoder yields nothing for a line whose newline has not arrived yet", async () => {
    const decoder = createLineDecoder();
    const writer = decoder.writable.getWriter();
    const reader = decoder.readable.getReader();
    void writer.write(new TextEncoder().encode('0:"complete"\n0:"incompl'));
    expect(await reader.read()).toEqual({ done: false, value: { type: "text", text: "complete" } });
    void writer.write(new TextEncoder().encode('ete"\n'));
    expect(await reader.read()).toEqual({ done: false, value: { type: "text", text: "incomplete" } });
  });
});
