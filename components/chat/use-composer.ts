"use client";
// The composer's side of the chat: the draft, the cooldown a message starts when it leaves (the
// server counts it on arrival, docs/contract.md, section 2), retrying the last message, and what a
// message the server did not take gives back: the wait undone, and its text returned to fix or
// resend, unless it held a secret. Nothing acts before React runs in the browser (`hydrated`).
import { startTransition, useEffect, useState } from "react";
import { preloadMarkdown } from "./markdown";
import type { SendOutcome } from "./stream-reply";
import { useCooldown } from "./use-cooldown";

export type ComposerParameters = {
  /** CHAT_COOLDOWN_SECONDS: the pause between messages the server enforces; 0 for none. */
  cooldownSeconds: number;
  send: (text: string) => Promise<SendOutcome>;
  retry: () => Promise<SendOutcome>;
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
  onSend: () => Promise<void>;
  canRetry: boolean;
  onRetry: () => Promise<void>;
};

export function useComposer({ cooldownSeconds, send, retry, idle, endsWithReply }: ComposerParameters): ComposerState {
  const cooldown = useCooldown(cooldownSeconds);
  const [draft, setDraft] = useState("");
  // Set after hydration in a transition: the chat's render that enables its buttons yields to the
  // browser between its parts.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => startTransition(() => setHydrated(true)), []);

  const afterSend = (outcome: SendOutcome, text: string, undoCooldown: () => void) => {
    if (outcome.kind === "answered") return;
    if (outcome.kind === "refused" && outcome.error.status === 429) {
      cooldown.waitFor(outcome.error.retryAfterSeconds ?? Math.max(cooldownSeconds, 1));
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
    setDraft("");
    // The reply will be markdown: its renderer is fetched while the question travels.
    preloadMarkdown();
    // The wait starts when the message leaves, as the server counts it on arrival.
    const undoCooldown = cooldown.start();
    afterSend(await send(text), text, undoCooldown);
  };

  const canRetry = hydrated && idle && cooldown.remainingSeconds === 0 && endsWithReply;
  const onRetry = async () => {
    const undoCooldown = cooldown.start();
    const outcome = await retry();
    if (outcome.kind === "busy") undoCooldown();
    else if (outcome.kind !== "answered") afterSend(outcome, "", undoCooldown);
  };

  return { draft, setDraft, hydrated, cooldownRemaining: cooldown.remainingSeconds, onSend, canRetry, onRetry };
}
