// The conversation as the page holds it: user messages, assistant replies built up from stream
// lines, and refusals of requests. Pure functions only, so the hook stays about fetching and the
// rules about what is resent to the server live in one place.
import type { z } from "zod";
import type { ChatRequestError } from "@/lib/client/chat-error";
import type { chatRequestSchema } from "@/lib/chat/request";
import type { FinishMetadata, PaymentStatus, StreamError, StreamLine } from "@/lib/protocol/lines";
import { readFinish, readPaymentStatus } from "@/lib/protocol/stream-payloads";

/** What the client may send: the schema's input side (limits as numbers or decimal strings). */
export type ChatRequestBody = z.input<typeof chatRequestSchema>;
export type RequestMessage = ChatRequestBody["messages"][number];

export type UserEntry = { id: string; role: "user"; content: string };

export type AssistantState = "waiting" | "streaming" | "done" | "stopped" | "failed";

export type AssistantEntry = {
  id: string;
  role: "assistant";
  content: string;
  /** One per paymentId, in the order each first appeared, holding its latest status. */
  payments: PaymentStatus[];
  errors: StreamError[];
  finish?: FinishMetadata;
  state: AssistantState;
  /** The messages of the request this reply answers: an approval resends exactly these. */
  request?: RequestMessage[];
  /** The conversation's settings in that request (its model): a quote is bound to them too, so an approval resends them. */
  requestSettings?: Pick<ChatRequestBody, "model" | "temperature" | "maxTokens">;
};

/** A request the server refused before streaming (a JSON error), shown in the conversation. */
export type RefusalEntry = { id: string; role: "refusal"; error: ChatRequestError };

export type ChatEntry = UserEntry | AssistantEntry | RefusalEntry;

/** A reply waiting for its first line, holding the request it answers: an approval of a quote in it resends that request. */
export function waitingReply(id: string, body: ChatRequestBody): AssistantEntry {
  return {
    id,
    role: "assistant",
    content: "",
    payments: [],
    errors: [],
    state: "waiting",
    request: body.messages,
    requestSettings: {
      ...(body.model !== undefined ? { model: body.model } : {}),
      ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
      ...(body.maxTokens !== undefined ? { maxTokens: body.maxTokens } : {}),
    },
  };
}

/** Folds one stream line into the reply it belongs to. */
export function applyStreamLine(entry: AssistantEntry, line: StreamLine): AssistantEntry {
  switch (line.type) {
    case "text":
      return { ...entry, state: "streaming", content: entry.content + line.text };
    case "payment": {
      const update = readPaymentStatus(line.payment);
      if (!update) return { ...entry, errors: [...entry.errors, unreadable("A payment update")] };
      const index = entry.payments.findIndex((payment) => payment.paymentId === update.paymentId);
      const payments = index === -1 ? [...entry.payments, update] : entry.payments.map((payment, at) => (at === index ? update : payment));
      return { ...entry, state: "streaming", payments };
    }
    case "error":
      return { ...entry, errors: [...entry.errors, line.error] };
    case "data": {
      // Only the final `d:` carries a finish reason. Earlier ones propose settings: the chat
      // hands them to the settings (use-chat-stream's onProposal), not to the reply.
      if (line.data.finishReason === undefined) return entry;
      const finish = readFinish(line.data);
      return finish ? { ...entry, state: "done", finish } : { ...entry, state: "done", errors: [...entry.errors, unreadable("The end of this reply")] };
    }
  }
}

const unreadable = (what: string): StreamError => ({ code: "unreadable", message: `${what} could not be shown: the server sent something unexpected.` });

/**
 * Each payment's latest status across the whole conversation, and the reply whose card shows it:
 * an approval's stream (a later reply) moves the card of the reply that asked for the approval.
 */
export function paymentsByReply(entries: readonly ChatEntry[]): Map<string, PaymentStatus[]> {
  const owner = new Map<string, string>();
  for (const entry of entries) {
    if (entry.role !== "assistant") continue;
    for (const payment of entry.payments) if (!owner.has(payment.paymentId)) owner.set(payment.paymentId, entry.id);
  }
  const latest = latestPayments(entries);
  const byReply = new Map<string, PaymentStatus[]>();
  for (const [paymentId, payment] of latest) {
    const replyId = owner.get(paymentId);
    if (!replyId) continue;
    byReply.set(replyId, [...(byReply.get(replyId) ?? []), payment]);
  }
  return byReply;
}

/** Each payment's latest status across the conversation, by paymentId, in order of first appearance. */
export function latestPayments(entries: readonly ChatEntry[]): Map<string, PaymentStatus> {
  const latest = new Map<string, PaymentStatus>();
  for (const entry of entries) {
    if (entry.role !== "assistant") continue;
    for (const payment of entry.payments) latest.set(payment.paymentId, payment);
  }
  return latest;
}

/** The person turned a quote down: it fails locally with reason `rejected`; nothing is sent. */
export function rejectPayment(entries: readonly ChatEntry[], paymentId: string): ChatEntry[] {
  return entries.map((entry) => {
    if (entry.role !== "assistant" || !entry.payments.some((payment) => payment.paymentId === paymentId)) return entry;
    return {
      ...entry,
      payments: entry.payments.map((payment) =>
        payment.paymentId === paymentId && payment.status === "awaiting-signature"
          ? {
              ...payment,
              status: "failed" as const,
              approval: undefined,
              reason: { code: "rejected" as const, message: "You declined this payment." },
            }
          : payment,
      ),
    };
  });
}

// The server's limits (docs/contract.md, section 2): 1..100 messages, 16,000 characters each, 256 KiB a body.
const MAX_MESSAGES = 100;
const MAX_CONTENT = 16_000;
const MAX_MESSAGES_BYTES = 240 * 1024; // leaves room for the rest of the body

/**
 * The conversation to resend: user messages and the text of replies, newest kept when it grows
 * past the server's limits, so a long chat drops its oldest context instead of failing forever.
 * Refusals and empty replies are not part of what the model saw, so they are left out.
 */
export function toRequestMessages(entries: readonly ChatEntry[]): RequestMessage[] {
  const messages: RequestMessage[] = [];
  const encoder = new TextEncoder();
  let bytes = 0;
  for (let index = entries.length - 1; index >= 0 && messages.length < MAX_MESSAGES; index -= 1) {
    const entry = entries[index];
    if (!entry || entry.role === "refusal") continue;
    const content = entry.content.slice(0, MAX_CONTENT);
    if (content.trim().length === 0) continue;
    const message: RequestMessage = { role: entry.role, content };
    bytes += encoder.encode(JSON.stringify(message)).byteLength + 1;
    if (bytes > MAX_MESSAGES_BYTES && messages.length > 0) break;
    messages.unshift(message);
  }
  return messages;
}
