"use client";
// The quote waiting in the conversation and how it is approved (docs/contract.md, section 9): who
// pays it (the wallet, the Solana wallet or the agent budget's key) and from what balance, whether
// the person confirms in the page first (above the confirmation threshold), and the wallet's prompt
// opening by itself at or below it, once per quote, when the reply that brought it has finished.
// A quote made for the agent budget is signed by its key at once with no prompt at all, at most
// once per message the person sends: text in a listing or a service's answer that steers the agent
// to pay again meets the person, not the key. An approval is not a new message: it starts no
// cooldown (the server does not count it).
import { useEffect, useMemo, useRef, useState } from "react";
import type { ApproveOptions, PaymentActions } from "@/components/payment/payment-card";
import { quoteExpired } from "@/components/payment/payment-display";
import { useCommitted } from "@/components/shared/use-committed";
import type { SolanaWalletState } from "@/components/wallet/use-solana-wallet";
import { insteadApproval, useWalletBalance, type PaymentWallet, type WalletStatus } from "@/components/wallet/wallet-context";
import type { WalletNetwork } from "@/lib/chain/wallet-networks";
import { channelKeyOnly, requestsOf } from "@/lib/client/wallet-requests";
import { readApprovalTypedData } from "@/lib/client/wallet-signer";
import { formatUnits, parseUsd, ZERO_USD } from "@/lib/money";
import type { PaymentStatus } from "@/lib/protocol/lines";
import { latestPayments, type ChatEntry } from "./chat-entries";
import type { SendOptions, SendOutcome, UseChatStreamResult } from "./use-chat-stream";
import type { ChannelKey } from "./use-channel-key";
import type { ChatAgentBudget } from "./use-chat-agent-budget";
import { useWalletWait } from "./use-wallet-wait";

export type QuoteApprovalParameters = {
  chat: Pick<UseChatStreamResult, "entries" | "streaming" | "approving" | "approve" | "send" | "reject">;
  wallet: PaymentWallet & { status: WalletStatus; whenReady: () => Promise<void> };
  solana: Pick<SolanaWalletState, "address" | "sign">;
  agentBudget: Pick<ChatAgentBudget, "budget" | "signFromBudget">;
  channelKey: Pick<ChannelKey, "address" | "sign" | "ready">;
  networks: WalletNetwork[];
  /** The confirmation threshold (USD, as settings hold it). */
  threshold: string;
  /** Changed when balances moved: the paying wallet's balance is read again. */
  refreshKey: number;
};

export type QuoteApproval = {
  paymentActions: PaymentActions;
  /** The payment being approved: signed, sent, or waiting for the wallet to load. */
  approving: string | undefined;
  /** The wallet's USDC balance on the waiting quote's network (else the first network). */
  balance: string | undefined;
  /** Sends a message once the wallet is there (or has not come within a moment). */
  send: (text: string, options?: SendOptions) => Promise<SendOutcome>;
};

export function useQuoteApproval({ chat, wallet, solana, agentBudget, channelKey, networks, threshold, refreshKey }: QuoteApprovalParameters): QuoteApproval {
  const walletWait = useWalletWait(wallet);
  // Approvals and messages go on with the latest render's wallet once they have waited for it:
  // the chat's functions as they are committed, before any handler runs.
  const approveNow = useCommitted(chat.approve);
  const sendNow = useCommitted(chat.send);
  const approve = async (payment: PaymentStatus, options?: ApproveOptions) => {
    if (wallet.status === "loading") await walletWait.forApproval(payment.paymentId);
    return approveNow.current(payment, options);
  };
  const approving = chat.approving ?? walletWait.awaitingWallet;
  // The agent budget's payments signed without a prompt for this message: the first one only. The
  // ref counts them for the effect that signs; the state shows the card whether one has gone.
  const silentThisMessage = useRef(0);
  const [silentSigned, setSilentSigned] = useState(false);
  const send = async (text: string, options?: SendOptions) => {
    if (wallet.status === "loading") await walletWait.forMessage();
    // A wallet just connected: its channel key is made in a moment, and the message carries it.
    await channelKey.ready();
    silentThisMessage.current = 0;
    setSilentSigned(false);
    return sendNow.current(text, options);
  };

  const pending = useMemo(() => latestQuote(chat.entries), [chat.entries]);
  const quoteNetwork = networks.find((network) => network.id === pending?.network) ?? networks[0];
  const balance = useWalletBalance(wallet.address, quoteNetwork, refreshKey);
  const quoteChain = pending ? readApprovalTypedData(pending.approval?.typedData)?.domain.chainId : undefined;
  const wrongChain =
    wallet.address && quoteChain !== undefined && wallet.chainId !== quoteChain && quoteNetwork ? { name: quoteNetwork.name } : undefined;
  const limit = parseUsd(threshold) ?? ZERO_USD;
  const needsConfirmation = (payment: PaymentStatus) => (parseUsd(payment.amount.usd) ?? ZERO_USD) > limit;
  const payer = payerOf(pending, { wallet, solana, agentBudget, channelKey, balance });
  // A call on an open channel: the page's channel key signs its voucher from the deposit the
  // person signed, with no prompt, however many there are (the deposit bounds them), at the price
  // the deposit was opened at and within a confirmation threshold the person set. One priced above
  // either (the server marks the first `confirm`) waits for the person's Confirm like any payment.
  // A price the page cannot read is above any threshold.
  const withinThreshold = (usd: string) => {
    const price = parseUsd(usd);
    return limit === ZERO_USD || (price !== undefined && price <= limit);
  };
  const fromDeposit = (payment: PaymentStatus) =>
    payment.channel?.opening === false &&
    payment.channel.confirm !== true &&
    withinThreshold(payment.channel.price) &&
    channelKeyOnly(requestsOf(payment.approval));

  const paymentActions: PaymentActions = {
    canSign: payer.canSign,
    walletLoading: wallet.status === "loading",
    busy: chat.streaming || approving !== undefined,
    approving,
    approve: (payment, options) => void approve(payment, options),
    reject: chat.reject,
    confirmRequired: pending ? (pending.paidFrom === "agent-budget" ? silentSigned : !fromDeposit(pending) && needsConfirmation(pending)) : false,
    ...(payer.address ? { payingFrom: payer.address } : {}),
    ...(payer.balance !== undefined ? { balance: payer.balance } : {}),
    ...(wrongChain && !payer.fromBudget ? { wrongChain } : {}),
    // What a quote's optional request or a failure's remedy offers instead: the wallet does it once, with its gas.
    ...insteadApproval(wallet.actions, networks),
  };

  const prompted = useRef(new Set<string>());
  useEffect(() => {
    // A quote that has run out (brought back by a reload, or met by a threshold raised since) is over.
    if (!pending || chat.streaming || approving !== undefined || quoteExpired(pending)) return;
    const fromBudget = pending.paidFrom === "agent-budget";
    if (!payer.canSign) return;
    if (prompted.current.has(pending.paymentId) || (!fromBudget && !fromDeposit(pending) && needsConfirmation(pending))) return;
    if (fromBudget && silentThisMessage.current > 0) return;
    prompted.current.add(pending.paymentId);
    if (fromBudget) {
      silentThisMessage.current += 1;
      setSilentSigned(true);
    }
    void approve(pending);
  });

  return { paymentActions, approving, balance, send };
}

/** The newest quote still waiting for a signature, if any. */
function latestQuote(entries: readonly ChatEntry[]): PaymentStatus | undefined {
  return [...latestPayments(entries).values()].findLast((payment) => payment.status === "awaiting-signature");
}

/**
 * Who pays the waiting quote, from what, and whether it can sign now: a quote for the agent budget
 * is paid by its key, from its address and what is left of it; a Solana quote by the Solana wallet
 * (its balance is not read here); any other by the wallet.
 */
function payerOf(
  pending: PaymentStatus | undefined,
  { wallet, solana, agentBudget, channelKey, balance }: Pick<QuoteApprovalParameters, "wallet" | "solana" | "agentBudget" | "channelKey"> & { balance: string | undefined },
): { fromBudget: boolean; address: string | undefined; balance: string | undefined; canSign: boolean } {
  const { budget, signFromBudget } = agentBudget;
  if (pending?.paidFrom === "agent-budget") {
    const left = budget.stored && budget.left !== undefined ? formatUnits(budget.left, budget.stored.network.usdc.decimals) : undefined;
    return { fromBudget: true, address: budget.stored?.grant.session, balance: left, canSign: signFromBudget !== undefined };
  }
  if (pending?.channel?.opening === false && channelKeyOnly(requestsOf(pending.approval))) {
    return { fromBudget: false, address: channelKey.address, balance: pending.channel.left, canSign: channelKey.sign !== undefined };
  }
  if (pending?.approval?.transaction !== undefined) return { fromBudget: false, address: solana.address, balance: undefined, canSign: solana.sign !== undefined };
  return { fromBudget: false, address: wallet.address, balance, canSign: wallet.sign !== undefined };
}
