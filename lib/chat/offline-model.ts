// The offline model: a deterministic LanguageModelV4 used when no Gemini key is set. It goes
// through the same AI SDK loop and the same tools as Gemini, so the whole product, payments
// included, can be walked without a key. Its decisions live in offline-turns.ts.
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import { decideOfflineTurn, type OfflineToolResult } from "./offline-turns";

export const OFFLINE_MODEL_ID = "offline";

export function createOfflineModel(): LanguageModelV4 {
  return {
    specificationVersion: "v4",
    provider: "offline",
    modelId: OFFLINE_MODEL_ID,
    supportedUrls: {},
    async doGenerate() {
      throw new Error("The offline model only streams.");
    },
    async doStream(options: LanguageModelV4CallOptions) {
      const turn = decideOfflineTurn(readPrompt(options));
      const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
      if (turn.kind === "tool") {
        const toolCallId = `offline-call-${countToolCalls(options.prompt) + 1}`;
        parts.push({ type: "tool-call", toolCallId, toolName: turn.toolName, input: JSON.stringify(turn.input) });
      } else {
        parts.push({ type: "text-start", id: "t0" });
        for (const piece of splitForStreaming(turn.text)) parts.push({ type: "text-delta", id: "t0", delta: piece });
        parts.push({ type: "text-end", id: "t0" });
      }
      parts.push({
        type: "finish",
        finishReason: { unified: turn.kind === "tool" ? "tool-calls" : "stop", raw: undefined },
        usage: usage(options.prompt, turn.kind === "text" ? turn.text : JSON.stringify(turn.input)),
      });
      return { stream: streamOf(parts) };
    },
  };
}

function readPrompt(options: LanguageModelV4CallOptions) {
  const availableTools = new Set(
    (options.tools ?? []).flatMap((tool) => (tool.type === "function" ? [tool.name] : [])),
  );
  const userTexts: string[] = [];
  for (const message of options.prompt) {
    if (message.role !== "user") continue;
    userTexts.push(message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n"));
  }
  // The tool results since the latest user message: what this turn has learned so far.
  const toolResults: OfflineToolResult[] = [];
  const callInputs = new Map<string, unknown>();
  let lastUserIndex = -1;
  options.prompt.forEach((message, index) => {
    if (message.role === "user") lastUserIndex = index;
  });
  for (const message of options.prompt.slice(lastUserIndex + 1)) {
    if (message.role === "assistant") {
      for (const part of message.content) {
        if (part.type === "tool-call") callInputs.set(part.toolCallId, part.input);
      }
    }
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type !== "tool-result") continue;
      const output = part.output;
      const isError = output.type === "error-text" || output.type === "error-json" || output.type === "execution-denied";
      const value =
        output.type === "json" || output.type === "error-json"
          ? output.value
          : output.type === "text" || output.type === "error-text"
            ? output.value
            : output.type === "execution-denied"
              ? (output.reason ?? "denied")
              : null;
      toolResults.push({ toolName: part.toolName, input: callInputs.get(part.toolCallId), output: value, isError });
    }
  }
  return { userText: userTexts.at(-1) ?? "", earlierUserTexts: userTexts.slice(0, -1), toolResults, availableTools };
}

function countToolCalls(prompt: LanguageModelV4Prompt): number {
  let count = 0;
  for (const message of prompt) {
    if (message.role !== "assistant") continue;
    for (const part of message.content) if (part.type === "tool-call") count += 1;
  }
  return count;
}

/** Word-sized pieces, so the page shows the reply growing as a hosted model's would. */
function splitForStreaming(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [text];
}

function usage(prompt: LanguageModelV4Prompt, output: string): LanguageModelV4Usage {
  // Rough token counts (4 characters a token): the offline model has no tokenizer.
  const inputChars = JSON.stringify(prompt).length;
  const input = Math.ceil(inputChars / 4);
  const outputTokens = Math.ceil(output.length / 4);
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: outputTokens, text: outputTokens, reasoning: undefined },
  };
}

function streamOf<T>(parts: T[]): ReadableStream<T> {
  return new ReadableStream<T>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}
