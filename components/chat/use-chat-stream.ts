"use client";
// Sends the conversation to `POST /api/chat` and turns the streamed answer into entries as it
// arrives. The whole message array goes with every request (the server keeps no conversation);
// the stream is decoded by the shared codec in lib/protocol, never by a second parser here.
import { useCallback, useRef, useState } from "react";
import { readChatError, type ChatRequestError } from "@/lib/client/chat-error";
import { isFinishLine, readLines, StreamLineError } from "@/lib/protocol/lines";
import {
  applyStreamLine,
  toRequestMessages,
  type AssistantEntry,
  type ChatEntry,
  type ChatRequestBody,
} from "./chat-entries";

export type ChatRequestExtras = Pick<ChatRequestBody, "spendingLimits" | "preferences">;

/** How a send ended, for the caller's cooldown bookkeeping. */
export type SendOutcome =
  | { kind: "answered" }
  | { kind: "refused"; error: ChatRequestError }
  | { kind: "unreachable" }
  | { kind: "busy" };

export type UseChatStreamOptions = {
  endpoint?: string;
  /** Read at send time: limits and preferences live in the browser and travel with each request. */
  extras?: () => ChatRequestExtras;
};

export type UseChatStreamResult = {
  entries: ChatEntry[];
  streaming: boolean;
  send: (text: string) => Promise<SendOutcome>;
  stop: () => void;
};

export function useChatStream({ endpoint = "/api/chat", extras }: UseChatStreamOptions = {}): UseChatStreamResult {
  const [entries, setEntries] = useState<ChatEntry[]>([]);
  const [streaming, setStreaming] = useState(false);
  // Refs mirror what an in-flight send needs, so a send never works from a stale render.
  const entriesRef = useRef<ChatEntry[]>([]);
  const controllerRef = useRef<AbortController | null>(null);
  const nextId = useRef(0);

  const update = useCallback((change: (current: ChatEntry[]) => ChatEntry[]) => {
    entriesRef.current = change(entriesRef.current);
    setEntries(entriesRef.current);
  }, []);

  const send = useCallback(
    async (text: string): Promise<SendOutcome> => {
      if (controllerRef.current) return { kind: "busy" };
      const controller = new AbortController();
      controllerRef.current = controller;
      setStreaming(true);

      const id = () => `entry-${(nextId.current += 1)}`;
      const userId = id();
      const replyId = id();
      const history = entriesRef.current;
      const body: ChatRequestBody = {
        messages: toRequestMessages([...history, { id: userId, role: "user", content: text }]),
        ...extras?.(),
      };
      update((current) => [
        ...current,
        { id: userId, role: "user", content: text },
        { id: replyId, role: "assistant", content: "", payments: [], errors: [], state: "waiting" },
      ]);
      const updateReply = (change: (reply: AssistantEntry) => AssistantEntry) =>
        update((current) => current.map((entry) => (entry.id === replyId && entry.role === "assistant" ? change(entry) : entry)));
      // A request that never reached the model is not part of the conversation: the message
      // leaves the history (so it is not resent) and the refusal takes its place.
      const withdraw = (error: ChatRequestError) =>
        update((current) => [
          ...current.filter((entry) => entry.id !== userId && entry.id !== replyId),
          { id: id(), role: "refusal", error },
        ]);

      try {
        let response: Response;
        try {
          response = await fetch(endpoint, {
            method: "POST",
            headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
            body: JSON.stringify(body),
            signal: controller.signal,
          });
        } catch (error) {
          if (controller.signal.aborted) {
            updateReply((reply) => ({ ...reply, state: "stopped" }));
            return { kind: "answered" };
          }
          withdraw({ status: 0, code: "network-error", message: describeNetworkFailure(error) });
          return { kind: "unreachable" };
        }

        if (!response.ok || !response.body) {
          const error = await readChatError(response);
          withdraw(error);
          return { kind: "refused", error };
        }

        let finished = false;
        for await (const line of readLines(response.body)) {
          if (isFinishLine(line)) finished = true;
          updateReply((reply) => applyStreamLine(reply, line));
        }
        if (!finished) {
          // The server always ends with a final `d:`; without it the connection was cut.
          updateReply((reply) => ({
            ...reply,
            state: "failed",
            errors: [...reply.errors, { code: "incomplete", message: "The connection closed before the reply was finished." }],
          }));
        }
        return { kind: "answered" };
      } catch (error) {
        if (controller.signal.aborted) {
          updateReply((reply) => ({ ...reply, state: "stopped" }));
        } else {
          const message =
            error instanceof StreamLineError
              ? "The reply could not be read: the server sent something unexpected."
              : "The connection was lost while the reply was arriving.";
          updateReply((reply) => ({ ...reply, state: "failed", errors: [...reply.errors, { code: "stream-broken", message }] }));
        }
        return { kind: "answered" };
      } finally {
        controllerRef.current = null;
        setStreaming(false);
      }
    },
    [endpoint, extras, update],
  );

  const stop = useCallback(() => {
    // Aborting the fetch closes the connection; the server sees it and ends its work.
    controllerRef.current?.abort();
  }, []);

  return { entries, streaming, send, stop };
}

function describeNetworkFailure(error: unknown): string {
  const offline = typeof navigator !== "undefined" && navigator.onLine === false;
  if (offline) return "You appear to be offline. Check your connection and try again.";
  return error instanceof Error && error.name === "TimeoutError"
    ? "The server took too long to answer. Please try again."
    : "The server could not be reached. Please try again.";
}
