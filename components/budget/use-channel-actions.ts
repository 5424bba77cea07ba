"use client";
// What the Channels list does with a channel (POST /api/channels, docs/contract.md, section 15):
// closing it (the server names the refund voucher, the page's channel key signs it, the service
// returns the rest), or taking the deposit back without the service (the wallet asks for the
// withdrawal, then takes it once the channel's delay has passed). Each step answers what the
// person is told.
import { useMemo } from "react";
import { loadChannelKeys } from "@/components/wallet/wallet-code";
import type { WalletActions } from "@/components/wallet/wallet-context";
import type { ChannelWithdrawCall } from "@/lib/chain/channel-address";
import type { WalletNetwork } from "@/lib/chain/wallet-networks";
import { formatLocalTime } from "@/components/payment/payment-display";
import { readApprovalTypedData } from "@/lib/client/wallet-signer";
import { displayUsd } from "@/lib/client/settings";
import { ZERO_USD } from "@/lib/money";

/** What an action came to, and the transaction that moved the money back, where there is one. */
export type ChannelOutcome = { text: string; explorerUrl?: string | undefined };

export type ChannelActions = {
  close: (channelId: string) => Promise<ChannelOutcome>;
  withdraw: (channelId: string) => Promise<ChannelOutcome>;
};

type ChannelAnswer = { channel?: { state: string; leftUsd: string; network: string; closeExplorerUrl?: string }; toSign?: { typedData?: unknown }[]; call?: ChannelWithdrawCall; waitUntil?: string; error?: { message: string } };

async function post(body: Record<string, unknown>): Promise<ChannelAnswer> {
  const response = await fetch("/api/channels", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), cache: "no-store" });
  const answer = (await response.json().catch(() => ({}))) as ChannelAnswer;
  if (!response.ok) throw new Error(answer.error?.message ?? `The channel could not be changed (HTTP ${response.status}).`);
  return answer;
}

export function useChannelActions({
  wallet,
  actions,
  networks,
  onMoved,
}: {
  wallet: string | undefined;
  actions: WalletActions | undefined;
  networks: readonly WalletNetwork[];
  onMoved: () => void;
}): ChannelActions | undefined {
  return useMemo(() => {
    if (!wallet) return undefined;
    return {
      async close(channelId) {
        const asked = await post({ action: "close", wallet, channelId });
        const typedData = readApprovalTypedData(asked.toSign?.[0]?.typedData);
        if (!typedData) throw new Error("The server named no refund to sign.");
        const { signVoucher } = await loadChannelKeys();
        // A close raises nothing: the key signs at most what it signed for this channel already.
        const signature = await signVoucher(wallet, typedData, ZERO_USD);
        const closed = await post({ action: "close", wallet, channelId, signed: [signature] });
        onMoved();
        return closed.channel?.state === "closed"
          ? { text: `Closed: ${displayUsd(closed.channel.leftUsd)} came back to your wallet.`, explorerUrl: closed.channel.closeExplorerUrl }
          : { text: "Closing: the service was asked for the refund; the rest comes back once the chain shows it." };
      },
      async withdraw(channelId) {
        const step = await post({ action: "withdraw", wallet, channelId });
        if (step.waitUntil) return { text: `Asked for already: you can take it back at ${formatLocalTime(new Date(step.waitUntil))}.` };
        if (!step.call) {
          onMoved();
          return { text: step.channel?.state === "closed" ? "Nothing is left in it: it is closed." : "Nothing to take back just now." };
        }
        if (!actions) throw new Error("Connect the wallet that paid the deposit to take it back.");
        const network = networks.find((one) => one.id === step.channel?.network);
        if (!network) throw new Error("This channel's network is not one this page pays on.");
        await actions.channelWithdraw(network, step.call);
        const after = await post({ action: "refresh", wallet, channelId });
        onMoved();
        return step.call.functionName === "finalizeWithdraw" || after.channel?.state === "closed"
          ? { text: "Taken back: the rest of the deposit is in your wallet.", explorerUrl: after.channel?.closeExplorerUrl }
          : { text: "Asked: once the delay has passed, press Withdraw again to take it back." };
      },
    };
  }, [wallet, actions, networks, onMoved]);
}
