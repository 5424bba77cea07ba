"use client";
// Sends the conversation to `POST /api/chat` and turns the streamed answer into entries as it
// arrives. The whole message array goes with every request (the server keeps no conversation);
// the stream is decoded by the shared codec in lib/protocol, never by a second parser here.
import { startTransition, useCallback, useEffect, useRef, useState } from "react";
import { sameAddress } from "@/lib/address-text";
import { readChatError, type ChatRequestError } from "@/lib/client/chat-error";
import { readApprovalTypedData, type ApprovalTypedData } from "@/lib/client/wallet-signer";
import {
  isFinishLine,
  readLines,
  StreamLineError,
  type FinishMetadata,
  type PaymentStatus,
  type StreamMetadata,
} from "@/lib/protocol/lines";
import {
  applyStreamLine,
  rejectPayment,
  toRequestMessages,
  type AssistantEntry,
  type ChatEntry,
  type ChatRequestBody,
} from "./chat-entries";
import { endRestoring, loadConversation, saveConversation } from "./conversation-store";

export type ChatRequestExtras = Pick<ChatRequestBody, "spendingLimits" | "preferences" | "model" | "agentBudget">;

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
   * session key, no prompt; absent when this page holds no usable budget.
   */
  /** Signs a quote made for the agent budget with its key, after the page checks it against the quote's card. */
  signFromBudget?: ((typedData: ApprovalTypedData, payment: PaymentStatus) => Promise<`0x${string}`>) | undefined;
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
  send: (text: string) => Promise<SendOutcome>;
  /** Sends the last user message again, in place of the reply it got. */
  retry: () => Promise<SendOutcome>;
  /** Signs the quote and sends the approval (request B) with the messages of its request. */
  approve: (payment: PaymentStatus) => Promise<SendOutcome>;
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
  onProposal,
  onFinish,
}: UseChatStreamOptions = {}): UseChatStreamResult {
  const [entries, setEntries] = useState<ChatEntry[]>([]);
  const [streaming, setStreaming] = useState(false);
  const [approving, setApproving] = useState<string | undefined>(undefined);
  // Refs mirror what an in-flight send needs, so a send never works from a stale render.
  const entriesRef = useRef<ChatEntry[]>([]);
  const controllerRef = useRef<AbortController | null>(null);
  const nextId = useRef(0);

  const update = useCallback((change: (current: ChatEntry[]) => ChatEntry[]) => {
    entriesRef.current = change(entriesRef.current);
    setEntries(entriesRef.current);
  }, []);

  const newId = useCallback(() => `entry-${(nextId.current += 1)}`, []);

  // The tab's conversation comes back after a reload (read after hydration: the server's HTML
  // has none), and is kept whenever no reply is streaming, and as the page goes away.
  const restored = useRef(false);
  const revealOnRender = useRef(false);
  useEffect(() => {
    const saved = loadConversation();
    if (saved.length > 0 && entriesRef.current.length === 0) {
      nextId.current = Math.max(0, ...saved.map((entry) => Number(/^entry-(\d+)$/.exec(entry.id)?.[1] ?? 0)));
      entriesRef.current = saved;
      // A transition: rendering a long conversation yields to the page between its parts.
      startTransition(() => setEntries(saved));
      // The welcome stays hidden until the conversation is rendered in its place.
      revealOnRender.current = true;
    } else endRestoring();
    restored.current = true;
    const keep = () => saveConversation(entriesRef.current);
    window.addEventListener("pagehide", keep);
    return () => window.removeEventListener("pagehide", keep);
  }, []);
  useEffect(() => {
    if (revealOnRender.current && entries.length > 0) {
      revealOnRender.current = false;
      endRestoring();
    }
  }, [entries]);
  useEffect(() => {
    if (restored.current && !streaming) saveConversation(entriesRef.current);
  }, [entries, streaming]);

  /** Posts one request and streams its answer into a new reply (after `userText`'s entry, if any). */
  const run = useCallback(
    async (body: ChatRequestBody, userText: string | undefined, controller: AbortController): Promise<SendOutcome> => {
      setStreaming(true);
      const userId = newId();
      const replyId = newId();
      const reply: AssistantEntry = {
        id: replyId,
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
      update((current) => [...current, ...(userText === undefined ? [] : [{ id: userId, role: "user" as const, content: userText }]), reply]);
      const updateReply = (change: (reply: AssistantEntry) => AssistantEntry) =>
        update((current) => current.map((entry) => (entry.id === replyId && entry.role === "assistant" ? change(entry) : entry)));
      // A request that never reached the model is not part of the conversation: the message
      // leaves the history (so it is not resent) and the refusal takes its place.
      const withdraw = (error: ChatRequestError) =>
        update((current) => [
          ...current.filter((entry) => entry.id !== userId && entry.id !== replyId),
          { id: newId(), role: "refusal", error },
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
        if (controller.signal.aborted) {
          updateReply((current) => ({ ...current, state: "stopped" }));
        } else {
          const message =
            error instanceof StreamLineError
              ? "The reply could not be read: the server sent something unexpected."
              : "The connection was lost while the reply was arriving.";
          updateReply((current) => ({ ...current, state: "failed", errors: [...current.errors, { code: "stream-broken", message }] }));
        }
        return { kind: "answered" };
      } finally {
        controllerRef.current = null;
        setStreaming(false);
      }
    },
    [endpoint, newId, onFinish, onProposal, update],
  );

  const send = useCallback(
    async (text: string): Promise<SendOutcome> => {
      if (controllerRef.current) return { kind: "busy" };
      const controller = new AbortController();
      controllerRef.current = controller;
      const body: ChatRequestBody = {
        messages: toRequestMessages([...entriesRef.current, { id: "pending", role: "user", content: text }]),
        ...(walletAddress ? { walletAddress } : {}),
        ...(solanaAddress ? { solanaAddress } : {}),
        ...extras?.(),
      };
      return run(body, text, controller);
    },
    [extras, run, solanaAddress, walletAddress],
  );

  const retry = useCallback(async (): Promise<SendOutcome> => {
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
    return send(entry.content);
  }, [send, update]);

  const approve = useCallback(
    async (payment: PaymentStatus): Promise<SendOutcome> => {
      if (controllerRef.current) return { kind: "busy" };
      const refuse = (code: string, message: string): SendOutcome => {
        const error: ChatRequestError = { status: 0, code, message };
        update((current) => [...current, { id: newId(), role: "refusal", error }]);
        return { kind: "refused", error };
      };
      const approval = payment.approval;
      // The messages of the request that produced this quote: the approval must resend them.
      const origin = entriesRef.current.find(
        (entry) => entry.role === "assistant" && entry.payments.some((item) => item.paymentId === payment.paymentId),
      );
      const messages = origin?.role === "assistant" ? origin.request : undefined;
      const settings = origin?.role === "assistant" ? origin.requestSettings : undefined;
      const wallets = { ...(walletAddress ? { walletAddress } : {}), ...(solanaAddress ? { solanaAddress } : {}) };
      /** Signs with the wallet (or the budget's key), then sends request B with the wallet's answer. */
      const signAndSend = async (signAnswer: () => Promise<{ signature: string } | { transaction: string }>, signerName: string): Promise<SendOutcome> => {
        const controller = new AbortController();
        controllerRef.current = controller;
        setApproving(payment.paymentId);
        try {
          let answer: { signature: string } | { transaction: string };
          try {
            answer = await signAnswer();
          } catch (error) {
            controllerRef.current = null;
            const detail = error instanceof Error && error.message ? ` (${error.message.split("\n")[0]})` : "";
            return refuse("signing-failed", `${signerName} could not sign the payment${detail}.`);
          }
          if (controller.signal.aborted) {
            controllerRef.current = null;
            return { kind: "answered" };
          }
          const body: ChatRequestBody = {
            messages: messages ?? [],
            ...wallets,
            ...extras?.(),
            // The quote is bound to its conversation's model and settings, whatever the picker says now.
            ...settings,
            payment: { paymentId: payment.paymentId, token: approval?.token ?? "", ...answer },
          };
          return await run(body, undefined, controller);
        } finally {
          setApproving(undefined);
        }
      };

      // A Solana quote: the wallet signs the transaction itself; the server checks it is the quoted one.
      if (approval?.transaction !== undefined) {
        if (!solanaAddress || !signSolana) return refuse("no-wallet", "Connect a Solana wallet to approve this payment.");
        if (!messages) return refuse("invalid-quote", "This quote cannot be signed: it is incomplete.");
        const transaction = approval.transaction;
        return signAndSend(async () => ({ transaction: await signSolana(transaction, payment.network) }), "The Solana wallet");
      }

      const typedData = approval ? readApprovalTypedData(approval.typedData) : undefined;
      const fromBudget = payment.paidFrom === "agent-budget";
      // The budget's key signs with the quote's card beside it, to check one against the other.
      const signer = fromBudget ? (signFromBudget ? (data: ApprovalTypedData) => signFromBudget(data, payment) : undefined) : sign;
      if (!walletAddress) return refuse("no-wallet", "Connect a wallet to approve this payment.");
      if (!signer) {
        return fromBudget
          ? refuse("no-agent-budget", "This payment was quoted for your agent budget, which this page no longer holds or has revoked. Ask again to pay it from your wallet.")
          : refuse("no-wallet", "Connect a wallet to approve this payment.");
      }
      if (!approval || !typedData || !messages) return refuse("invalid-quote", "This quote cannot be signed: it is incomplete.");
      // The approval token binds the wallet the quote was made for; another account cannot use it.
      const payer = typedData.message.from;
      if (!fromBudget && payer && !sameAddress(payer, walletAddress)) {
        return refuse(
          "wallet-changed",
          `This quote was made for the wallet ${payer.slice(0, 6)}…${payer.slice(-4)}. Switch back to it to approve, or ask again with this wallet.`,
        );
      }
      return signAndSend(async () => ({ signature: await signer(typedData) }), fromBudget ? "The agent budget" : "The wallet");
    },
    [extras, newId, run, sign, signFromBudget, signSolana, solanaAddress, update, walletAddress],
  );

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

function describeNetworkFailure(error: unknown): string {
  const offline = typeof navigator !== "undefined" && navigator.onLine === false;
  if (offline) return "You appear to be offline. Check your connection and try again.";
  return error instanceof Error && error.name === "TimeoutError"
    ? "The server took too long to answer. Please try again."
    : "The server could not be reached. Please try again.";
}
