// From the model's chunk to the person's screen: a fake Gemini sends its text pieces at fixed
// intervals to a product server (the real @ai-sdk/google provider, through the
// GOOGLE_GENERATIVE_AI_BASE_URL seam), and each piece's send time is compared with the arrival
// of its `0:` line at the client, on this process's one clock. A piece that arrives together
// with another, or merged into another's line, was batched.
import { performance } from "node:perf_hooks";
import { startFakeGemini } from "@/tests/fixtures/fake-gemini";
import { post } from "./http-client";
import { startApp, type Teardown } from "./servers";
import { spread, type Spread } from "./stats";
import { timedLines } from "./timed-lines";

export type FirstTextLineResult = {
  pieces: number;
  intervalMs: number;
  requests: number;
  /** The model's first piece sent → its `0:` line received. */
  firstLineDelayMs: Spread;
  /** Every piece: sent → its line received. */
  everyLineDelayMs: Spread;
  batched: boolean;
  /** What batching was seen, if any. */
  batchingSeen: string[];
};

export async function measureFirstTextLine({
  teardown,
  root,
  env,
  pieces,
  intervalMs,
  requests,
}: {
  teardown: Teardown;
  root: string;
  env: Record<string, string | undefined>;
  pieces: number;
  intervalMs: number;
  requests: number;
}): Promise<FirstTextLineResult> {
  const texts = Array.from({ length: pieces }, (_, index) => `piece-${index} `);
  let sentAt: number[] = [];
  const fake = await startFakeGemini({
    chunkDelayMs: intervalMs,
    onTextSent: ({ index }) => {
      sentAt[index] = performance.now();
    },
  });
  fake.script([{ text: texts }]);
  const body = JSON.stringify({ messages: [{ role: "user", content: "hello" }] });
  const app = await startApp({
    teardown,
    name: "product (fake Gemini)",
    root,
    env: {
      ...env,
      MODEL_PROVIDER: "google",
      GOOGLE_GENERATIVE_AI_API_KEY: "bench-key",
      GOOGLE_GENERATIVE_AI_BASE_URL: fake.baseUrl,
    },
    probe: { path: "/api/chat", body },
  });
  const firstDelays: number[] = [];
  const allDelays: number[] = [];
  const batchingSeen: string[] = [];
  try {
    // One unmeasured request after the probe, then the measured ones.
    for (let index = -1; index < requests; index++) {
      sentAt = [];
      const exchange = await post(new URL("/api/chat", app.origin), body, { recordReads: true });
      if (exchange.status !== 200) throw new Error(`chat answered ${exchange.status}: ${exchange.body.slice(0, 200)}`);
      if (index < 0) continue;
      const textLines = timedLines(exchange).filter((timed) => timed.line.type === "text");
      const received = textLines.map((timed) => (timed.line.type === "text" ? timed.line.text : ""));
      if (received.join("") !== texts.join("")) throw new Error(`the answer's text differs from the model's: ${received.join("")}`);
      if (textLines.length !== texts.length) batchingSeen.push(`request ${index + 1}: ${texts.length} pieces came as ${textLines.length} lines`);
      const reads = new Set(textLines.map((timed) => timed.read));
      if (reads.size !== textLines.length) batchingSeen.push(`request ${index + 1}: ${textLines.length} lines came in ${reads.size} reads`);
      textLines.forEach((timed, piece) => {
        const sent = sentAt[piece];
        if (sent === undefined) return;
        const delay = timed.at - sent;
        allDelays.push(delay);
        if (piece === 0) firstDelays.push(delay);
      });
    }
  } finally {
    await app.stop();
    await fake.close();
  }
  return {
    pieces,
    intervalMs,
    requests,
    firstLineDelayMs: spread(firstDelays),
    everyLineDelayMs: spread(allDelays),
    batched: batchingSeen.length > 0,
    batchingSeen,
  };
}
