"use client";
// A notice above the chat (the offline model, the sandbox): one line (its title and a few words)
// that opens on a click or a tap and closes on another, on a wide screen as on a phone, so that
// the conversation keeps the screen (at 1280x800 two whole sentences took about 120 px of it).
//
//   <Notice testId="offline-banner" title="Offline model" summary="built-in rules answer">…</Notice>
//
// Test ids: `${testId}` (the notice), `${testId}-toggle` (its line).
import { useId, useState, type ReactNode } from "react";
import styles from "./notice.module.css";

export type NoticeProps = {
  testId: string;
  /** The notice's first words, in bold on its line. */
  title: string;
  /** What the folded line says after the title: a few words. */
  summary: string;
  /** The rest of the sentence, shown under the line when it is opened. */
  children: ReactNode;
};

export function Notice({ testId, title, summary, children }: NoticeProps) {
  const [open, setOpen] = useState(false);
  const bodyId = useId();
  return (
    <div className={styles.notice} role="status" data-testid={testId} data-open={open}>
      <button
        type="button"
        className={styles.toggle}
        aria-expanded={open}
        aria-controls={bodyId}
        onClick={() => setOpen((value) => !value)}
        data-testid={`${testId}-toggle`}
      >
        <span className={styles.line}>
          <strong>{title}:</strong> {summary}
        </span>
        <svg className={styles.chevron} width="12" height="12" viewBox="0 0 12 12" aria-hidden="true">
          <path d="M2.5 4.5 6 8l3.5-3.5" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round" />
        </svg>
      </button>
      <p id={bodyId} className={styles.body}>
        {children}
      </p>
    </div>
  );
}
