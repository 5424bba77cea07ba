"use client";
// The wallet's pay-as-you-go channels in the budget panel (docs/contract.md, section 15): each
// one's deposit, what its calls took, what is left, and the way back: Close (the service returns
// the rest at once) or Withdraw (without the service: asked, then taken after the channel's
// delay). A channel's deposit counts against the limits until the chain shows the rest returned.
//
// Test ids: budget-channels (the list), budget-channel (each, data-state), budget-channel-close,
// budget-channel-withdraw, budget-channel-note (what the last action came to).
import { useState } from "react";
import { displayUsd } from "@/lib/client/settings";
import { formatLocalTime, parseMoment } from "@/components/payment/payment-display";
import type { ChannelEntry } from "./budget-model";
import styles from "./budget-panel.module.css";
import type { ChannelActions, ChannelOutcome } from "./use-channel-actions";
import { safeLink } from "@/lib/client/safe-link";

const stateWords: Record<ChannelEntry["state"], string> = {
  opening: "opening",
  open: "open",
  closing: "closing: waiting for the service's refund",
  withdrawing: "withdrawal asked",
  closed: "closed",
};

export function ChannelsList({ channels, actions }: { channels: ChannelEntry[]; actions: ChannelActions | undefined }) {
  // Closed ones stay a day, with what came back; one whose deposit never landed is not shown.
  const shown = channels.filter((channel) => channel.state !== "closed" || (channel.closeTx !== undefined && Date.now() - (parseMoment(channel.createdAt)?.getTime() ?? 0) < 86_400_000));
  if (shown.length === 0) return null;
  return (
    <>
      <h3 className={styles.subtitle}>Channels</h3>
      <p className={styles.muted}>A deposit pays a service's calls without a prompt; it counts against your limits until what is left comes back.</p>
      <ul className={styles.recent} data-testid="budget-channels">
        {shown.map((channel) => (
          <ChannelItem key={channel.channelId} channel={channel} actions={actions} />
        ))}
      </ul>
    </>
  );
}

function ChannelItem({ channel, actions }: { channel: ChannelEntry; actions: ChannelActions | undefined }) {
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<{ text: string; failed: boolean; explorerUrl?: string | undefined }>();
  const run = (action: (channelId: string) => Promise<ChannelOutcome>) => {
    setBusy(true);
    setNote(undefined);
    action(channel.channelId).then(
      (outcome) => setNote({ ...outcome, failed: false }),
      (error: unknown) => setNote({ text: error instanceof Error && error.message ? (error.message.split("\n")[0] ?? "") : "That did not go through.", failed: true }),
    ).finally(() => setBusy(false));
  };
  const asked = channel.withdrawRequestedAt ? parseMoment(channel.withdrawRequestedAt) : undefined;
  const readyAt = asked ? new Date(asked.getTime() + channel.withdrawDelaySeconds * 1000) : undefined;
  const live = channel.state !== "closed" && channel.state !== "opening";
  return (
    <li className={styles.payment} data-testid="budget-channel" data-state={channel.state}>
      <span className={styles.paymentName}>{channel.service.name}</span>
      <span className={styles.paymentAmount}>{channel.state === "closed" ? `${displayUsd(channel.leftUsd)} back` : `${displayUsd(channel.leftUsd)} left`}</span>
      <span className={styles.paymentMeta}>
        Deposit {displayUsd(channel.depositUsd)} · {channel.calls} call{channel.calls === 1 ? "" : "s"}, {displayUsd(channel.spentUsd)} · {stateWords[channel.state]}
        {channel.state === "withdrawing" && readyAt ? `, ready at ${formatLocalTime(readyAt)}` : ""}
        {channel.state === "closed" && safeLink(channel.closeExplorerUrl) ? (
          <>
            {" · "}
            <a href={safeLink(channel.closeExplorerUrl)} target="_blank" rel="noopener noreferrer" data-testid="budget-channel-return-tx">
              the transaction that returned it
            </a>
          </>
        ) : null}
      </span>
      {live && actions ? (
        <span className={styles.channelActions}>
          {channel.state === "open" ? (
            <button type="button" className="link-button" disabled={busy} onClick={() => run(actions.close)} data-testid="budget-channel-close">
              Close and get {displayUsd(channel.leftUsd)} back
            </button>
          ) : null}{" "}
          <button type="button" className="link-button" disabled={busy} onClick={() => run(actions.withdraw)} data-testid="budget-channel-withdraw">
            {channel.state === "withdrawing" ? "Take it back" : "Withdraw without the service"}
          </button>
        </span>
      ) : null}
      {busy ? <span className={styles.paymentMeta}>Working…</span> : null}
      {note ? (
        <span className={note.failed ? styles.notice : styles.paymentMeta} role={note.failed ? "alert" : "status"} data-testid="budget-channel-note">
          {note.text}
          {!note.failed && safeLink(note.explorerUrl) ? (
            <>
              {" "}
              <a href={safeLink(note.explorerUrl)} target="_blank" rel="noopener noreferrer" data-testid="budget-channel-note-tx">
                (its transaction)
              </a>
            </>
          ) : null}
        </span>
      ) : null}
    </li>
  );
}
