// What a chat template ships: UI messages in, `streamText`, the UI message stream out. The
// model is a zero-latency mock that streams the same pieces the product's offline model does.
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { convertToModelMessages, streamText, type UIMessage } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { replyPieces } from "../reply";

const parts: LanguageModelV4StreamPart[] = [
  { type: "stream-start", warnings: [] },
  { type: "text-start", id: "t0" },
  ...replyPieces.map((delta): LanguageModelV4StreamPart => ({ type: "text-delta", id: "t0", delta })),
  { type: "text-end", id: "t0" },
  {
    type: "finish",
    finishReason: { unified: "stop", raw: undefined },
    usage: {
      inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: replyPieces.length, text: replyPieces.length, reasoning: undefined },
    },
  },
];

export async function POST(request: Request): Promise<Response> {
  const { messages }: { messages: UIMessage[] } = await request.json();
  // A fresh mock per request: the mock records every call it gets.
  const model = new MockLanguageModelV4({ doStream: async () => ({ stream: convertArrayToReadableStream(parts) }) });
  const result = streamText({
    model,
    instructions: "You are a helpful assistant.",
    messages: await convertToModelMessages(messages),
  });
  return result.toUIMessageStreamResponse();
}
