"use client";
// The composer's side of the chat: the draft, the cooldown a message starts when it leaves and
// counts again from when the server took it (the server counts it on arrival, docs/contract.md,
// section 2), retrying the last message, and what a message the server did not take gives back:
// the wait undone, and its text returned to fix or resend, unless it held a secret. A message the
// server holds back for the cooldown (429) is not dropped: it stays in the composer and is sent
// by itself when the wait is over (the person may still change it, cancel it, or clear it to not
// send it). A message sent while the page's countdown runs is held the same way, without asking the
// server first: the person writes the next question during the wait instead of waiting to write
// it. A held message is kept across a reload of the tab. Approving, declining and closing a
// channel never wait: the server's cooldown is for messages only. Nothing acts before React runs
// in the browser (`hydrated`).
import { startTransition, useEffect, useEffectEvent, useState } from "react";
import { readHeldMessage, writeHeldMessage } from "@/lib/client/cooldown-store";
import { preloadMarkdown } from "@/components/shared/markdown";
import type { SendOutcome } from "./stream-reply";
import { useCooldown } from "./use-cooldown";
import type { RetryOutcome, SendOptions } from "./use-chat-stream";

export type ComposerParameters = {
  /** CHAT_COOLDOWN_SECONDS: the pause between messages the server enforces; 0 for none. */
  cooldownSeconds: number;
  send: (text: string, options?: SendOptions) => Promise<SendOutcome>;
  retry: (options?: SendOptions) => Promise<RetryOutcome>;
  /** No reply is streaming and no approval is under way. */
  idle: boolean;
  /** The conversation ends with a reply: the question before it may be asked again. */
  endsWithReply: boolean;
};

export type ComposerState = {
  draft: string;
  setDraft: (draft: string) => void;
  /** True only once React runs in the browser; false in the server's HTML. */
  hydrated: boolean;
  /** Seconds until the next message may leave. */
  cooldownRemaining: number;
  /** The draft is a message held for the cooldown: it is sent when the wait is over. */
  held: boolean;
  /** Sends the draft, or holds it until the cooldown is over. */
  onSend: () => Promise<void>;
  /** The held message is not sent: its text stays in the composer. */
  cancelHeld: () => void;
  canRetry: boolean;
  onRetry: () => Promise<void>;
};

export function useComposer({ cooldownSeconds, send, retry, idle, endsWithReply }: ComposerParameters): ComposerState {
  const cooldown = useCooldown(cooldownSeconds);
  const [draft, setDraft] = useState("");
  // Set after hydration in a transition: the chat's render that enables its buttons yields to the
  // browser between its parts.
  const [hydrated, setHydrated] = useState(false);
  const [held, setHeld] = useState(false);
  useEffect(
    () =>
      startTransition(() => {
        // A message held when the tab was reloaded is held again, with its text.
        const kept = readHeldMessage();
        if (kept !== undefined) {
          setDraft(kept);
          setHeld(true);
        }
        setHydrated(true);
      }),
    [],
  );
  // What is held is kept for a reload; what is not, forgotten.
  useEffect(() => {
    if (hydrated) writeHeldMessage(held ? draft : undefined);
  }, [hydrated, held, draft]);
  // The server counts the message when it arrives, after it left: the wait is counted again then.
  const sendOptions: SendOptions = { onAccepted: cooldown.countFromNow };

  const afterSend = (outcome: SendOutcome, text: string, undoCooldown: () => void) => {
    if (outcome.kind === "answered") return;
    if (outcome.kind === "refused" && outcome.error.status === 429) {
      // Retry-After is whole seconds rounded up from this answer: by then the server takes it.
      cooldown.waitFor(outcome.error.retryAfterSeconds ?? Math.max(cooldownSeconds, 1));
      if (text.length > 0) setHeld(true);
    } else if (outcome.kind !== "refused" || outcome.error.status < 500) {
      // Refused before the server counted it (it validates before claiming the cooldown), never
      // delivered, or not sent at all: the person need not wait for a message that was not taken.
      undoCooldown();
    }
    // Give the text back to fix or resend, unless it held a secret: that must not linger.
    const secret = outcome.kind === "refused" && outcome.error.code === "secret-in-message";
    if (!secret) setDraft((current) => (current.length === 0 ? text : current));
  };

  const onSend = async () => {
    const text = draft.trim();
    if (text.length === 0) return;
    // During the countdown the message waits for its end, in the composer, said as "Sending in".
    if (cooldown.remainingSeconds > 0) {
      setHeld(true);
      return;
    }
    setDraft("");
    // The reply will be markdown: its renderer is fetched while the question travels.
    preloadMarkdown();
    setHeld(false);
    // The wait shows as the message leaves, and is counted again when the server takes it.
    const undoCooldown = cooldown.start();
    afterSend(await send(text, sendOptions), text, undoCooldown);
  };

  // A held message goes when the wait is over, unless the person cleared it meanwhile.
  const sendHeld = useEffectEvent(() => void onSend());
  const due = held && hydrated && idle && cooldown.remainingSeconds === 0;
  useEffect(() => {
    if (!due) return;
    if (draft.trim().length === 0) setHeld(false);
    else sendHeld();
  }, [due, draft]);

  const canRetry = hydrated && idle && cooldown.remainingSeconds === 0 && endsWithReply;
  const onRetry = async () => {
    const undoCooldown = cooldown.start();
    const outcome = await retry(sendOptions);
    if (outcome.kind === "busy") undoCooldown();
    else if (outcome.kind !== "answered") afterSend(outcome, outcome.question ?? "", undoCooldown);
  };

  const cancelHeld = () => setHeld(false);

  return { draft, setDraft, hydrated, cooldownRemaining: cooldown.remainingSeconds, held: held && draft.trim().length > 0, onSend, cancelHeld, canRetry, onRetry };
}
