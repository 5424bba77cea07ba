"use client";
// The conversation's state and what a person does to it: send a message, retry the last one,
// approve or reject a quote, stop a reply, start anew. The whole message array goes with every
// request (the server keeps no conversation); one request and its streamed answer is
// stream-reply.ts, approving a quote (request B) is use-approval-request.ts, and the entries (with
// the tab's stored copy of the conversation) are use-chat-entries.ts.
import { useCallback, useRef, useState } from "react";
import type { ApproveOptions } from "@/components/payment/payment-card";
import type { ApprovalTypedData } from "@/lib/client/wallet-signer";
import type { FinishMetadata, PaymentStatus, StreamMetadata } from "@/lib/protocol/lines";
import { rejectPayment, toRequestMessages, waitingReply, type ChatEntry, type ChatRequestBody } from "./chat-entries";
import { saveConversation } from "./conversation-store";
import { streamReply, type SendOutcome } from "./stream-reply";
import { useApprovalRequest } from "./use-approval-request";
import { useChatEntries } from "./use-chat-entries";

export type { SendOutcome };

/** What the composer follows of a message it sends. */
export type SendOptions = {
  /** The server took it: the cooldown counts from now (stream-reply.ts). */
  onAccepted?: () => void;
};

/** How a retry ended, and the question it asked again (a refused one is given back to the composer). */
export type RetryOutcome = SendOutcome & { question?: string };

export type ChatRequestExtras = Pick<ChatRequestBody, "spendingLimits" | "preferences" | "model" | "agentBudget" | "channelKeys">;

export type UseChatStreamOptions = {
  endpoint?: string;
  /** Read at send time: limits and preferences live in the browser and travel with each request. */
  extras?: () => ChatRequestExtras;
  /** The wallet the payments are for; sent with every request. */
  walletAddress?: string;
  /** Signs a quote's typed data with the wallet; absent when no wallet can sign. */
  sign?: ((typedData: ApprovalTypedData) => Promise<`0x${string}`>) | undefined;
  /** The person's Solana wallet, if one is connected; sent with every request. */
  solanaAddress?: string | undefined;
  /** Signs a quote's Solana transaction (base64) with that wallet; absent when none is connected. */
  signSolana?: ((transaction: string, networkId: string) => Promise<string>) | undefined;
  /**
   * Signs a quote made for the wallet's agent budget (`paidFrom: "agent-budget"`) with its
   * session key, no prompt, after the page checks it against the quote's card; absent when this
   * page holds no usable budget.
   */
  signFromBudget?: ((typedData: ApprovalTypedData, payment: PaymentStatus) => Promise<`0x${string}`>) | undefined;
  /** Signs what a pay-as-you-go channel's quote asks of the page's channel key (its vouchers); absent without one. */
  signWithChannelKey?: ((typedData: ApprovalTypedData, payment: PaymentStatus) => Promise<`0x${string}`>) | undefined;
  /** A `d:` line before the final one: settings the model proposes (docs/contract.md, section 5). */
  onProposal?: (data: StreamMetadata) => void;
  /** A reply ended; its finish metadata (a payment's outcome included). */
  onFinish?: (finish: FinishMetadata) => void;
};

export type UseChatStreamResult = {
  entries: ChatEntry[];
  streaming: boolean;
  /** The paymentId whose approval is being signed or sent, if any. */
  approving: string | undefined;
  send: (text: string, options?: SendOptions) => Promise<SendOutcome>;
  /** Sends the last user message again, in place of the reply it got. */
  retry: (options?: SendOptions) => Promise<RetryOutcome>;
  /** Signs the quote and sends the approval (request B) with the messages of its request. */
  approve: (payment: PaymentStatus, options?: ApproveOptions) => Promise<SendOutcome>;
  /** Turns a quote down, locally: no request is made. */
  reject: (paymentId: string) => void;
  stop: () => void;
  /** Stops any reply and starts an empty conversation (the tab's stored one is cleared). */
  newChat: () => void;
};

export function useChatStream({
  endpoint = "/api/chat",
  extras,
  walletAddress,
  sign,
  solanaAddress,
  signSolana,
  signFromBudget,
  signWithChannelKey,
  onProposal,
  onFinish,
}: UseChatStreamOptions = {}): UseChatStreamResult {
  const [streaming, setStreaming] = useState(false);
  const chatEntries = useChatEntries(streaming);
  const { entries, entriesRef, update, newId } = chatEntries;
  // The request in flight, if any: a second one is refused as busy, and Stop aborts this one.
  const controllerRef = useRef<AbortController | null>(null);

  /** Posts one request and streams its answer into a new reply (after `userText`'s entry, if any). */
  const run = useCallback(
    async (body: ChatRequestBody, userText: string | undefined, controller: AbortController, options: SendOptions = {}): Promise<SendOutcome> => {
      setStreaming(true);
      const userId = newId();
      const replyId = newId();
      update((current) => [...current, ...(userText === undefined ? [] : [{ id: userId, role: "user" as const, content: userText }]), waitingReply(replyId, body)]);
      return streamReply({
        endpoint,
        body,
        signal: controller.signal,
        updateReply: (change) => update((current) => current.map((entry) => (entry.id === replyId && entry.role === "assistant" ? change(entry) : entry))),
        // A message refused for the cooldown is not refused for good: the composer holds it and
        // sends it when the wait is over, so no refusal is shown for it.
        withdraw: (error) =>
          update((current) => [
            ...current.filter((entry) => entry.id !== userId && entry.id !== replyId),
            ...(error.status === 429 && userText !== undefined ? [] : [{ id: newId(), role: "refusal" as const, error }]),
          ]),
        onProposal,
        onFinish,
        onAccepted: options.onAccepted,
      }).finally(() => {
        // However it ended, the request is no longer in flight.
        controllerRef.current = null;
        setStreaming(false);
      });
    },
    [endpoint, newId, onFinish, onProposal, update],
  );

  const send = useCallback(
    async (text: string, options?: SendOptions): Promise<SendOutcome> => {
      if (controllerRef.current) return { kind: "busy" };
      const controller = new AbortController();
      controllerRef.current = controller;
      const body: ChatRequestBody = {
        messages: toRequestMessages([...entriesRef.current, { id: "pending", role: "user", content: text }]),
        ...(walletAddress ? { walletAddress } : {}),
        ...(solanaAddress ? { solanaAddress } : {}),
        ...extras?.(),
      };
      return run(body, text, controller, options);
    },
    [entriesRef, extras, run, solanaAddress, walletAddress],
  );

  const retry = useCallback(async (options?: SendOptions): Promise<RetryOutcome> => {
    if (controllerRef.current) return { kind: "busy" };
    const current = entriesRef.current;
    const lastUser = current.findLastIndex((entry) => entry.role === "user");
    const entry = current[lastUser];
    // Only a question whose reply is the last thing in the chat is asked again; a refused
    // message has already left the history and gone back to the composer.
    if (entry?.role !== "user" || lastUser !== current.length - 2 || current.at(-1)?.role !== "assistant") {
      return { kind: "busy" };
    }
    // The last question and what followed it (a failed or stopped reply, a refusal) are replaced.
    update((entries) => entries.slice(0, lastUser));
    return { ...(await send(entry.content, options)), question: entry.content };
  }, [entriesRef, send, update]);

  const { approving, approve } = useApprovalRequest({ chat: chatEntries, controllerRef, run, extras, walletAddress, sign, solanaAddress, signSolana, signFromBudget, signWithChannelKey });

  const reject = useCallback((paymentId: string) => update((current) => rejectPayment(current, paymentId)), [update]);

  const stop = useCallback(() => {
    // Aborting the fetch closes the connection; the server sees it and ends its work.
    controllerRef.current?.abort();
  }, []);

  const newChat = useCallback(() => {
    controllerRef.current?.abort();
    update(() => []);
    saveConversation([]);
  }, [update]);

  return { entries, streaming, approving, send, retry, approve, reject, stop, newChat };
}
