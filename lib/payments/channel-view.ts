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
  /** What the calls took of it: by the vouchers signed, and once closed, what the service claimed on chain. */
  spentUsd: string;
  /** What is left in it; once closed, what came back. */
  leftUsd: string;
  calls: number;
  withdrawDelaySeconds: number;
  /** When the payer asked for a withdrawal (ISO 8601). */
  withdrawRequestedAt?: string;
  /** The transaction that returned the rest (a refund or a withdrawal). */
  closeTx?: string;
  /** That transaction on its network's explorer. */
  closeExplorerUrl?: string;
  createdAt: string;
};

/** `linkOf` names a transaction's page (the spending report's transactionLink). */
export function channelView(channel: ChannelRecord & { calls: number }, linkOf: (network: string, txHash: string) => string): ChannelView {
  // Once closed, what the chain says the service claimed; before, what the vouchers allow it. A
  // channel closed without a transaction never held anything (its deposit did not land).
  const never = channel.state === "closed" && channel.closeTx === null;
  const spent = never ? 0n : (channel.claimed ?? channel.vouched);
  return {
    channelId: channel.channelId,
    service: { name: channel.serviceName, url: channel.serviceUrl },
    network: channel.network,
    state: channel.state,
    depositUsd: formatUsd(channel.deposit),
    spentUsd: formatUsd(spent),
    leftUsd: formatUsd(never ? 0n : channel.deposit - spent),
    calls: channel.calls,
    withdrawDelaySeconds: channel.config.withdrawDelay,
    ...(channel.withdrawRequestedAt ? { withdrawRequestedAt: channel.withdrawRequestedAt.toISOString() } : {}),
    ...(channel.closeTx ? { closeTx: channel.closeTx, closeExplorerUrl: linkOf(channel.network, channel.closeTx) } : {}),
    createdAt: channel.createdAt.toISOString(),
  };
}
