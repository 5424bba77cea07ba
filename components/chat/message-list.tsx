"use client";
// The conversation log. It follows new text to the bottom while the reader is at the bottom,
// and leaves the scroll position alone once they scroll up to read something earlier. Following
// stops at the top of a quote waiting for the person in the latest reply, so the quote is read
// from its top (its buttons stick to the pane's bottom edge, payment-card.module.css) however the
// reply's last lines arrive; the log follows the bottom again once it is answered, or with the next
// message. Only a scroll the log did not make itself tells whether the reader is at the bottom:
// its own scroll's event comes a frame later, when the log may have grown (a card arriving) and
// that position no longer reads as the bottom.
import { useLayoutEffect, useMemo, useRef } from "react";
import type { PaymentActions } from "@/components/payment/payment-card";
import type { PaymentStatus } from "@/lib/protocol/lines";
import { paymentsByReply, type ChatEntry } from "./chat-entries";
import { ChatMessage } from "./chat-message";
import { ErrorBoundary } from "./error-boundary";
import styles from "./chat.module.css";

const NEAR_BOTTOM_PX = 80;
const NO_PAYMENTS: PaymentStatus[] = [];
/** Room left above a quote shown from its top, so it reads as following what came before. */
const ABOVE_QUOTE_PX = 8;

/** The card of a payment waiting for the person's approval in the latest reply, if any. */
function waitingQuoteCard(log: HTMLElement, entries: readonly ChatEntry[], payments: ReadonlyMap<string, readonly PaymentStatus[]>): HTMLElement | undefined {
  const latest = entries.at(-1);
  const waiting = latest ? payments.get(latest.id)?.findLast((payment) => payment.status === "awaiting-signature") : undefined;
  if (!waiting) return undefined;
  return [...log.querySelectorAll<HTMLElement>("[data-payment-id]")].find((node) => node.dataset.paymentId === waiting.paymentId);
}

export type MessageListProps = { entries: ChatEntry[]; streaming: boolean; paymentActions?: PaymentActions };

export function MessageList({ entries, streaming, paymentActions }: MessageListProps) {
  // A payment's card stays in the reply that first showed it and follows its latest status.
  const payments = useMemo(() => paymentsByReply(entries), [entries]);
  const scroller = useRef<HTMLDivElement>(null);
  const followBottom = useRef(true);
  const entryCount = useRef(0);
  /** Where the log last scrolled itself to; its scroll event there is not the reader's. */
  const ownScrollTop = useRef<number | undefined>(undefined);

  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element) return;
    // A new message, or an approval's reply: the person wants to see it.
    if (entries.length > entryCount.current) followBottom.current = true;
    entryCount.current = entries.length;
    // Scrolled in the frame that paints this render, before it is painted: reading the layout in
    // the commit itself would make the browser lay the page out there, a longer task on a phone.
    const scrollTo = (top: number) => {
      element.scrollTop = top;
      ownScrollTop.current = element.scrollTop;
    };
    const frame = requestAnimationFrame(() => {
      if (!followBottom.current) return;
      const bottom = element.scrollHeight - element.clientHeight;
      const card = waitingQuoteCard(element, entries, payments);
      const cardTop = card ? card.getBoundingClientRect().top - element.getBoundingClientRect().top + element.scrollTop - ABOVE_QUOTE_PX : bottom;
      scrollTo(Math.min(bottom, cardTop));
    });
    return () => cancelAnimationFrame(frame);
  }, [entries, payments]);

  const onScroll = () => {
    const element = scroller.current;
    if (!element || element.scrollTop === ownScrollTop.current) return;
    ownScrollTop.current = undefined;
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
        {entries.map((entry) => {
          // Only a reply with cards follows the wallet and the approval: the other messages'
          // props stay the same object, so they are not rendered again (ChatMessage is memoized).
          const shown = payments.get(entry.id) ?? NO_PAYMENTS;
          return (
            <ErrorBoundary key={entry.id} what="This message" item>
              <ChatMessage entry={entry} payments={shown} paymentActions={shown.length > 0 ? paymentActions : undefined} />
            </ErrorBoundary>
          );
        })}
      </ol>
    </div>
  );
}
