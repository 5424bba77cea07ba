// A pay-as-you-go channel as the page lists it (the spending report's `channels`, the answers of
// POST /api/channels): from the ledger alone, light enough for every spending read.
import { formatUsd } from "@/lib/money";
import type { ChannelRecord } from "./ledger/channels";

/** A channel as the page lists it: what it holds, what it paid, what is left, and where it stands. */
export type ChannelView = {
  channelId: string;
  service: { name: string; url: string };
  network: string;
  state: ChannelRecord["state"];
  depositUsd: string;
  /** What the calls took of it, by the vouchers signed. */
  spentUsd: string;
  leftUsd: string;
  calls: number;
  withdrawDelaySeconds: number;
  /** When the payer asked for a withdrawal (ISO 8601). */
  withdrawRequestedAt?: string;
  /** The transaction that returned the rest (a refund or a withdrawal). */
  closeTx?: string;
  createdAt: string;
};

export function channelView(channel: ChannelRecord & { calls?: number }): ChannelView {
  return {
    channelId: channel.channelId,
    service: { name: channel.serviceName, url: channel.serviceUrl },
    network: channel.network,
    state: channel.state,
    depositUsd: formatUsd(channel.deposit),
    spentUsd: formatUsd(channel.vouched),
    leftUsd: formatUsd(channel.deposit - channel.vouched),
    calls: channel.calls ?? 0,
    withdrawDelaySeconds: channel.config.withdrawDelay,
    ...(channel.withdrawRequestedAt ? { withdrawRequestedAt: channel.withdrawRequestedAt.toISOString() } : {}),
    ...(channel.closeTx ? { closeTx: channel.closeTx } : {}),
    createdAt: channel.createdAt.toISOString(),
  };
}
