// One entry of the conversation: a user message (plain text), an assistant reply (markdown as
// it streams, its payment cards, its errors, how it ended, and a Copy button), or a refused
// request. Memoized: an entry renders again only when it, or its cards and their actions, change.
import { memo } from "react";
import { safeLink } from "@/lib/client/safe-link";
import type { FinishReason, PaymentStatus } from "@/lib/protocol/lines";
import { PaymentCard, type PaymentActions } from "@/components/payment/payment-card";
import type { AssistantEntry, ChatEntry } from "./chat-entries";
import { CopyButton } from "@/components/shared/copy-button";
import { ErrorBoundary } from "./error-boundary";
import { MarkdownText } from "@/components/shared/markdown";
import styles from "./chat.module.css";
import replyStyles from "./chat-message.module.css";

// `stop` is the ordinary ending and needs no label.
const finishLabels: Record<Exclude<FinishReason, "stop">, string> = {
  "payment-complete": "Payment complete",
  "payment-failed": "Payment failed",
  "limit-exceeded": "Stopped by a spending limit",
  "insufficient-balance": "Not enough balance",
  "service-unavailable": "Service unavailable",
};

export type ChatMessageProps = {
  entry: ChatEntry;
  /** The cards this entry shows: its payments' latest statuses (see paymentsByReply). */
  payments?: PaymentStatus[];
  paymentActions?: PaymentActions | undefined;
};

export const ChatMessage = memo(function ChatMessage({ entry, payments, paymentActions }: ChatMessageProps) {
  switch (entry.role) {
    case "user":
      return (
        <li className={styles.message} data-testid="message" data-role="user">
          <span className="sr-only">You said:</span>
          <div className={styles.userBubble}>{entry.content}</div>
        </li>
      );
    case "assistant":
      return <AssistantMessage entry={entry} payments={payments ?? entry.payments} paymentActions={paymentActions} />;
    case "refusal":
      return (
        <li className={styles.message} data-role="refusal">
          <p className={styles.error} role="alert" data-testid="error-message" data-code={entry.error.code}>
            {entry.error.message}
          </p>
        </li>
      );
  }
});

function AssistantMessage({
  entry,
  payments,
  paymentActions,
}: {
  entry: AssistantEntry;
  payments: PaymentStatus[];
  paymentActions: PaymentActions | undefined;
}) {
  const working = entry.state === "waiting" || entry.state === "streaming";
  // Every quote of the reply turned down or run out: what the agent said of approving it ("approve
  // it within 5 minutes") no longer holds, and the reply says so above its words.
  const ended = payments.length > 0 && !working ? endedQuotes(payments) : undefined;
  return (
    <li className={styles.message} data-testid="message" data-role="assistant" data-state={entry.state} aria-busy={working}>
      <span className="sr-only">Agent:</span>
      <div className={styles.assistantBody}>
        {ended && entry.content ? (
          <p className={styles.superseded} data-testid="reply-superseded">
            {ended}
          </p>
        ) : null}
        {entry.content ? (
          <div className={ended ? styles.supersededText : undefined}>
            <MarkdownText text={entry.content} />
          </div>
        ) : null}
        {entry.state === "waiting" ? (
          <p className={styles.typing} data-testid="reply-pending">
            Thinking…
          </p>
        ) : null}
        {payments.map((payment) => (
          <ErrorBoundary key={payment.paymentId} what="This payment's card">
            <PaymentCard payment={payment} actions={paymentActions} />
          </ErrorBoundary>
        ))}
        {entry.errors.map((error, index) => (
          <p key={`${error.code}-${index}`} className={styles.error} role="alert" data-testid="error-message" data-code={error.code}>
            {error.message}
          </p>
        ))}
        <ReplyFooter entry={entry} paid={payments.length > 0} />
      </div>
    </li>
  );
}

/** What became of a reply's quotes when each was turned down or ran out, in a line; undefined otherwise. */
function endedQuotes(payments: readonly PaymentStatus[]): string | undefined {
  const codes = payments.map((payment) => (payment.status === "failed" ? payment.reason?.code : undefined));
  if (codes.every((code) => code === "rejected")) return `You declined ${payments.length > 1 ? "these payments" : "this payment"}: nothing was sent, and what follows about approving it no longer applies.`;
  if (codes.every((code) => code === "rejected" || code === "expired")) return `${payments.length > 1 ? "These quotes" : "This quote"} ran out unpaid: nothing was sent. Ask again for a new one.`;
  return undefined;
}

function ReplyFooter({ entry, paid }: { entry: AssistantEntry; paid: boolean }) {
  // Copy once the text stands still: what is copied is what the person has read.
  const copyable = entry.content.trim().length > 0 && entry.state !== "waiting" && entry.state !== "streaming";
  const meta = <ReplyMeta entry={entry} paid={paid} />;
  if (!copyable) return meta;
  return (
    <div className={replyStyles.footer}>
      {meta}
      <CopyButton text={entry.content} label="Copy reply" data-testid="copy-message" />
    </div>
  );
}

/** Names the payment ending only where the reply had a payment (a card, or the ending names one):
 * a request the service refused before anything was quoted did not fail a payment. */
const PAYMENT_ENDINGS: ReadonlySet<FinishReason> = new Set(["payment-complete", "payment-failed"]);

function ReplyMeta({ entry, paid }: { entry: AssistantEntry; paid: boolean }) {
  if (entry.state === "stopped") {
    return (
      <p className={styles.meta} data-testid="message-meta">
        Stopped.
      </p>
    );
  }
  if (!entry.finish) return null;
  const { finishReason, model, explorerUrl, txHash } = entry.finish;
  const aboutPayment = paid || entry.finish.paymentId !== undefined;
  const label = finishReason === "stop" || (PAYMENT_ENDINGS.has(finishReason) && !aboutPayment) ? undefined : finishLabels[finishReason];
  const transaction = txHash ? safeLink(explorerUrl) : undefined;
  return (
    <p className={styles.meta} data-testid="message-meta" data-finish-reason={finishReason}>
      {label ? <span>{label} · </span> : null}
      <span>{model === "offline" ? "Offline model" : model}</span>
      {transaction ? (
        <>
          {" · "}
          <a href={transaction} target="_blank" rel="noopener noreferrer">
            transaction
          </a>
        </>
      ) : null}
    </p>
  );
}
