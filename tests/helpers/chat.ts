// Shared test helpers for the chat endpoint: a handler wired to a test database (./database) and a
// chosen model, and a reader that collects a response's stream lines.
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { handleChatRequest, type ChatDependencies } from "@/lib/chat/handler";
import type { ToolFactory } from "@/lib/chat/agent";
import type { Database } from "@/lib/db";
import { parseServerEnv, type ServerEnv } from "@/lib/env";
import { readLines, type StreamLine } from "@/lib/protocol/lines";
import { openTestDatabase } from "./database";

export type TestChat = {
  post(body: unknown, init?: { headers?: Record<string, string>; signal?: AbortSignal }): Promise<Response>;
  db: Database;
  env: ServerEnv;
  close(): Promise<void>;
};

export async function createTestChat(
  options: {
    model?: LanguageModelV4;
    modelId?: string;
    tools?: ToolFactory;
    env?: Record<string, string>;
    deadlineMs?: number;
    paidCallTimeoutMs?: number;
    log?: ChatDependencies["log"];
    now?: () => Date;
    approvalGate?: ChatDependencies["approvalGate"];
    /** The ledger of an earlier chat: this one is that server started again. */
    database?: Database;
  } = {},
): Promise<TestChat> {
  const env = parseServerEnv({ MODEL_PROVIDER: "offline", CHAT_COOLDOWN_SECONDS: "0", ...options.env });
  const db = options.database ?? (await openTestDatabase());
  const deps: ChatDependencies = {
    env: () => env,
    database: async () => db,
    createTools: options.tools ?? (() => ({})),
    ...(options.model ? { chatModel: () => ({ model: options.model as LanguageModelV4, id: options.modelId ?? "mock-model" }) } : {}),
    ...(options.deadlineMs !== undefined ? { deadlineMs: options.deadlineMs } : {}),
    ...(options.paidCallTimeoutMs !== undefined ? { paidCallTimeoutMs: options.paidCallTimeoutMs } : {}),
    log: options.log ?? (() => undefined),
    ...(options.now ? { now: options.now } : {}),
    ...(options.approvalGate ? { approvalGate: options.approvalGate } : {}),
  };
  return {
    db,
    env,
    post(body, init = {}) {
      const request = new Request("http://localhost/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json", ...init.headers },
        // A stream is a body still arriving, as a slow client sends it.
        ...(body instanceof ReadableStream
          ? { body, duplex: "half" }
          : { body: typeof body === "string" ? body : JSON.stringify(body) }),
        ...(init.signal ? { signal: init.signal } : {}),
      });
      return handleChatRequest(request, deps);
    },
    close: () => db.close(),
  };
}

export async function collectLines(response: Response): Promise<StreamLine[]> {
  if (!response.body) throw new Error("response has no body");
  const lines: StreamLine[] = [];
  for await (const line of readLines(response.body)) lines.push(line);
  return lines;
}

export const textOf = (lines: StreamLine[]): string =>
  lines.flatMap((line) => (line.type === "text" ? [line.text] : [])).join("");

export const userSays = (content: string) => ({ messages: [{ role: "user", content }] });
