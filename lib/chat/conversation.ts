// What a chat quote is bound to (docs/contract.md, section 4, item 4): the conversation it was made for, as a
// digest of its messages, the model and the model's settings. Request B must bring the same, so a
// signed approval pays for one conversation's answer and cannot carry another one's run.
import { createHash } from "node:crypto";
import type { ChatRequest } from "./request";

export function conversationDigest({ messages, model, temperature, maxTokens }: Pick<ChatRequest, "messages" | "model" | "temperature" | "maxTokens">): string {
  const canonical = JSON.stringify([messages.map(({ role, content }) => [role, content]), model, temperature, maxTokens]);
  return createHash("sha256").update(canonical, "utf8").digest("base64url");
}
