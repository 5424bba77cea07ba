"use client";
// The conversation log. It follows new text to the bottom while the reader is at the bottom,
// and leaves the scroll position alone once they scroll up to read something earlier.
import { useLayoutEffect, useMemo, useRef } from "react";
import type { PaymentActions } from "@/components/payment/payment-card";
import { paymentsByReply, type ChatEntry } from "./chat-entries";
import { ChatMessage } from "./chat-message";
import { ErrorBoundary } from "./error-boundary";
import styles from "./chat.module.css";

const NEAR_BOTTOM_PX = 80;

export type MessageListProps = { entries: ChatEntry[]; streaming: boolean; paymentActions?: PaymentActions };

export function MessageList({ entries, streaming, paymentActions }: MessageListProps) {
  // A payment's card stays in the reply that first showed it and follows its latest status.
  const payments = useMemo(() => paymentsByReply(entries), [entries]);
  const scroller = useRef<HTMLDivElement>(null);
  const followBottom = useRef(true);

  useLayoutEffect(() => {
    const element = scroller.current;
    if (element && followBottom.current) element.scrollTop = element.scrollHeight;
  }, [entries]);

  const onScroll = () => {
    const element = scroller.current;
    if (!element) return;
    followBottom.current = element.scrollHeight - element.scrollTop - element.clientHeight < NEAR_BOTTOM_PX;
  };

  return (
    // The log role sits on the scroller, so the messages stay a real list for assistive technology.
    // aria-busy holds screen-reader announcements until a reply is complete, not per word.
    <div
      ref={scroller}
      className={styles.scroller}
      onScroll={onScroll}
      role="log"
      aria-live="polite"
      aria-busy={streaming}
      aria-label="Conversation"
    >
      <ol className={styles.log} data-testid="message-list">
        {entries.map((entry) => (
          <ErrorBoundary key={entry.id} what="This message" item>
            <ChatMessage entry={entry} payments={payments.get(entry.id) ?? []} paymentActions={paymentActions} />
          </ErrorBoundary>
        ))}
      </ol>
    </div>
  );
}
