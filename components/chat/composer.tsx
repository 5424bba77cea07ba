"use client";
// The message box: Enter sends, Shift+Enter adds a line. Sending is blocked while a reply streams
// (Stop is offered instead). During the cooldown, whose countdown is shown beside the button, a
// message sent is held and goes by itself when the wait is over: it says when, and can be
// cancelled (its text stays). The text box stays usable, so a held message can be changed.
import { useId, type FormEvent, type KeyboardEvent } from "react";
import styles from "./chat.module.css";
import { COMPOSER_ID } from "./first-paint";

export type ComposerProps = {
  value: string;
  onChange: (value: string) => void;
  onSend: () => void;
  onStop: () => void;
  streaming: boolean;
  cooldownSeconds: number;
  /** The text is a message held for the cooldown, sent by itself when it is over. */
  held?: boolean;
  /** Not to send the held message after all. */
  onCancelHeld?: () => void;
  /** False until the page is interactive, so an early click cannot submit the form natively. */
  ready: boolean;
};

export function Composer({ value, onChange, onSend, onStop, streaming, cooldownSeconds, held = false, onCancelHeld, ready }: ComposerProps) {
  const inputId = useId();
  const hintId = useId();
  // During the cooldown Send holds the message; once held, there is nothing more to send.
  const canSend = ready && !streaming && !held && value.trim().length > 0;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (canSend) onSend();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    // Enter while composing (IME) confirms the character, it does not send.
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      if (canSend) onSend();
    }
  };

  return (
    <form id={COMPOSER_ID} className={styles.composer} onSubmit={submit} aria-label="Send a message">
      <label htmlFor={inputId} className="sr-only">
        Message
      </label>
      <textarea
        id={inputId}
        className={styles.input}
        data-testid="composer-input"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        onKeyDown={onKeyDown}
        placeholder="Ask for a service, compare prices, or check your spending…"
        rows={2}
        maxLength={16_000}
        aria-describedby={hintId}
      />
      <div className={styles.actions}>
        <p id={hintId} className={styles.hint}>
          {cooldownSeconds > 0 ? (
            <>
              <span className={styles.cooldown} role="timer" data-testid="cooldown-indicator">
                {held ? `Sending in ${cooldownSeconds} s` : `Next message in ${cooldownSeconds} s`}
              </span>
              {held && onCancelHeld ? (
                <>
                  {" "}
                  <button type="button" className="link-button" onClick={onCancelHeld} data-testid="cancel-held">
                    Cancel
                  </button>
                </>
              ) : null}
            </>
          ) : (
            <span>Enter to send, Shift+Enter for a new line</span>
          )}
        </p>
        {streaming ? (
          <button type="button" className={styles.stopButton} onClick={onStop} data-testid="stop-button">
            Stop
          </button>
        ) : null}
        <button type="submit" className={styles.sendButton} disabled={!canSend} data-testid="send-button">
          Send
        </button>
      </div>
    </form>
  );
}
