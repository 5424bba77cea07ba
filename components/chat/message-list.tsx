"use client";
// The conversation log. It follows new text to the bottom while the reader is at the bottom,
// and leaves the scroll position alone once they scroll up to read something earlier.
import { useLayoutEffect, useRef } from "react";
import type { ChatEntry } from "./chat-entries";
import { ChatMessage } from "./chat-message";
import styles from "./chat.module.css";

const NEAR_BOTTOM_PX = 80;

export function MessageList({ entries, streaming }: { entries: ChatEntry[]; streaming: boolean }) {
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
    <div ref={scroller} className={styles.scroller} onScroll={onScroll}>
      {/* aria-busy holds screen-reader announcements until a reply is complete, not per word. */}
      <ol className={styles.log} role="log" aria-live="polite" aria-busy={streaming} aria-label="Conversation" data-testid="message-list">
        {entries.map((entry) => (
          <ChatMessage key={entry.id} entry={entry} />
        ))}
      </ol>
    </div>
  );
}
