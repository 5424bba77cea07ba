"use client";
// The chat panel: the conversation, the composer, and the cooldown between messages. It gets
// the server's non-secret configuration as props from the page (a server component).
import { useMemo, useState, useSyncExternalStore } from "react";
import { signWithDemoWallet, type ApprovalTypedData, type DemoWalletKeys } from "@/lib/client/wallet-signer";
import type { PaymentActions } from "@/components/payment/payment-card";
import { Composer } from "./composer";
import { MessageList } from "./message-list";
import { useChatStream } from "./use-chat-stream";
import { useCooldown } from "./use-cooldown";
import styles from "./chat.module.css";

export type ChatConfig = {
  /** CHAT_COOLDOWN_SECONDS: the pause between messages the server enforces; 0 for none. */
  cooldownSeconds: number;
  /** The sandbox's demo wallet (a local development key), when the app runs on the sandbox. */
  demoWallet?: DemoWalletKeys;
};

const examples = [
  "What services can you pay for?",
  "Compare prices for weather",
  "What's the weather in Lisbon?",
  "How much have I spent this week?",
];

const subscribeNever = () => () => undefined;

export function Chat({ cooldownSeconds, demoWallet }: ChatConfig) {
  const sign = useMemo(
    () => (demoWallet ? (typedData: ApprovalTypedData) => signWithDemoWallet(demoWallet, typedData) : undefined),
    [demoWallet],
  );
  const { entries, streaming, approving, send, approve, reject, stop } = useChatStream({
    walletAddress: demoWallet?.address,
    sign,
  });
  // An approval is not a new message: it starts no cooldown (the server does not count it).
  const paymentActions: PaymentActions = {
    canSign: sign !== undefined,
    busy: streaming || approving !== undefined,
    approving,
    approve: (payment) => void approve(payment),
    reject,
  };
  const cooldown = useCooldown(cooldownSeconds);
  const [draft, setDraft] = useState("");
  // True only once React runs in the browser; false in the server HTML.
  const hydrated = useSyncExternalStore(subscribeNever, () => true, () => false);

  const onSend = async () => {
    const text = draft.trim();
    if (text.length === 0) return;
    setDraft("");
    // The wait starts when the message leaves, as the server counts it on arrival.
    const undoCooldown = cooldown.start();
    const outcome = await send(text);
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

  return (
    <section className={styles.chat} aria-label="Chat with the payment agent">
      {entries.length === 0 ? (
        <div className={styles.welcome}>
          <h2 className={styles.welcomeTitle}>What can I get for you?</h2>
          <p className={styles.welcomeText}>
            I find paid x402 services, compare their prices and pay them in USDC within your limits. Every payment is
            signed by your own wallet.
          </p>
          <ul className={styles.examples}>
            {examples.map((example) => (
              <li key={example}>
                <button type="button" className={styles.example} onClick={() => setDraft(example)} disabled={!hydrated}>
                  {example}
                </button>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <MessageList entries={entries} streaming={streaming} paymentActions={paymentActions} />
      <Composer
        value={draft}
        onChange={setDraft}
        onSend={() => void onSend()}
        onStop={stop}
        streaming={streaming || approving !== undefined}
        cooldownSeconds={cooldown.remainingSeconds}
        ready={hydrated}
      />
    </section>
  );
}
