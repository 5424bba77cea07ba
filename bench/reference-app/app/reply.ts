// The reply both reference routes stream: the product's own answer to "hello", handed over by
// the bench in BENCH_REPLY_PIECES (a JSON array of strings) so that all contenders send the same
// text in the same pieces. Read once, when the route module loads.
const fallback = Array.from({ length: 40 }, (_, index) => `word${index} `);

function readPieces(raw: string | undefined): string[] {
  if (!raw) return fallback;
  const parsed: unknown = JSON.parse(raw);
  if (!Array.isArray(parsed) || !parsed.every((piece) => typeof piece === "string") || parsed.length === 0) {
    throw new Error("BENCH_REPLY_PIECES must be a JSON array of strings");
  }
  return parsed;
}

export const replyPieces: readonly string[] = readPieces(process.env.BENCH_REPLY_PIECES);
