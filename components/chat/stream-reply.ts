// One request of the conversation and its answer: posts the body to `POST /api/chat` and folds each
// streamed line into the reply as it arrives, decoded by the shared codec in lib/protocol, never by
// a second parser here. A request the server refused, or that never left, is withdrawn from the
// conversation and its refusal shown instead. Every way a request can end is told as a
// SendOutcome; the conversation's state (which reply, what is streaming) is the hook's.
import { readChatError, type ChatRequestError } from "@/lib/client/chat-error";
import { isFinishLine, readLines, StreamLineError, type FinishMetadata, type StreamMetadata } from "@/lib/protocol/lines";
import { applyStreamLine, type AssistantEntry, type ChatRequestBody } from "./chat-entries";

/** How a send ended, for the caller's cooldown bookkeeping. */
export type SendOutcome =
  | { kind: "answered" }
  | { kind: "refused"; error: ChatRequestError }
  | { kind: "unreachable" }
  | { kind: "busy" };

export type StreamReplyParameters = {
  endpoint: string;
  body: ChatRequestBody;
  signal: AbortSignal;
  /** Changes the reply this request streams into. */
  updateReply: (change: (reply: AssistantEntry) => AssistantEntry) => void;
  /** The request never reached the model: it leaves the conversation (so it is not resent) and the refusal takes its place. */
  withdraw: (error: ChatRequestError) => void;
  /** A `d:` line before the final one: settings the model proposes (docs/contract.md, section 5). */
  onProposal?: ((data: StreamMetadata) => void) | undefined;
  /** The reply ended; its finish metadata (a payment's outcome included). */
  onFinish?: ((finish: FinishMetadata) => void) | undefined;
  /**
   * The server took the request (its 200 arrived): it has counted the message against the
   * cooldown by now, so this is the instant the page counts the cooldown from too.
   */
  onAccepted?: (() => void) | undefined;
};

export async function streamReply({ endpoint, body, signal, updateReply, withdraw, onProposal, onFinish, onAccepted }: StreamReplyParameters): Promise<SendOutcome> {
  try {
    let response: Response;
    try {
      response = await fetch(endpoint, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
        body: JSON.stringify(body),
        signal,
      });
    } catch (error) {
      if (signal.aborted) {
        updateReply((current) => ({ ...current, state: "stopped" }));
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
    onAccepted?.();

    let finished = false;
    for await (const line of readLines(response.body)) {
      if (isFinishLine(line)) {
        finished = true;
        onFinish?.(line.data);
      } else if (line.type === "data") {
        onProposal?.(line.data);
      }
      updateReply((current) => applyStreamLine(current, line));
    }
    if (!finished) {
      // The server always ends with a final `d:`; without it the connection was cut.
      updateReply((current) => ({
        ...current,
        state: "failed",
        errors: [...current.errors, { code: "incomplete", message: "The connection closed before the reply was finished." }],
      }));
    }
    return { kind: "answered" };
  } catch (error) {
    if (signal.aborted) {
      updateReply((current) => ({ ...current, state: "stopped" }));
    } else {
      const message =
        error instanceof StreamLineError
          ? "The reply could not be read: the server sent something unexpected."
          : "The connection was lost while the reply was arriving.";
      updateReply((current) => ({ ...current, state: "failed", errors: [...current.errors, { code: "stream-broken", message }] }));
    }
    return { kind: "answered" };
  }
}

function describeNetworkFailure(error: unknown): string {
  const offline = typeof navigator !== "undefined" && navigator.onLine === false;
  if (offline) return "You appear to be offline. Check your connection and try again.";
  return error instanceof Error && error.name === "TimeoutError"
    ? "The server took too long to answer. Please try again."
    : "The server could not be reached. Please try again.";
}
