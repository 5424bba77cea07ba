// A streamed answer's lines with the time each one arrived: a line counts as arrived with the
// read that brought its newline. Decoded with the product's own decoder.
import { decodeLine, type StreamLine } from "@/lib/protocol/lines";
import type { Exchange } from "./http-client";

export type TimedLine = { at: number; /** Which read of the body brought it. */ read: number; line: StreamLine };

export function timedLines(exchange: Exchange): TimedLine[] {
  const lines: TimedLine[] = [];
  let buffer = "";
  exchange.reads.forEach(({ at, text }, read) => {
    buffer += text;
    let newline = buffer.indexOf("\n");
    while (newline !== -1) {
      const raw = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (raw.length > 0) lines.push({ at, read, line: decodeLine(raw) });
      newline = buffer.indexOf("\n");
    }
  });
  return lines;
}
