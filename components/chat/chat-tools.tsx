"use client";
// The row under the conversation: the model picker, Retry (the last message, when its reply is the
// last thing in the chat), New chat (not while an approval is under way) and what is kept where.
import type { ModelTierId } from "@/lib/client/settings";
import { ModelPicker } from "./model-picker";
import { PrivacyNote } from "./privacy-note";
import styles from "./chat.module.css";

export type ChatToolsProps = {
  model: ModelTierId;
  onModel: (model: ModelTierId) => void;
  offline: boolean;
  /** Retry is offered; undefined: it is not. */
  onRetry: (() => void) | undefined;
  /** New chat is offered; undefined: it is not. */
  onNewChat: (() => void) | undefined;
};

export function ChatTools({ model, onModel, offline, onRetry, onNewChat }: ChatToolsProps) {
  return (
    <div className={styles.chatTools}>
      <ModelPicker value={model} onChange={onModel} offline={offline} />
      {onRetry ? (
        <button type="button" className={styles.toolButton} onClick={onRetry} data-testid="retry-button">
          Retry last message
        </button>
      ) : null}
      {onNewChat ? (
        <button type="button" className={styles.toolButton} onClick={onNewChat} data-testid="new-chat">
          New chat
        </button>
      ) : (
        // Its place, kept while a conversation comes back from the tab's storage (the document's
        // restoring mark, set before the first paint): the server's HTML is the empty chat, and
        // New chat arriving with the conversation would move the row, and the log above it.
        <button type="button" className={`${styles.toolButton} ${styles.heldPlace}`} aria-hidden="true" tabIndex={-1} disabled>
          New chat
        </button>
      )}
      <PrivacyNote />
    </div>
  );
}
