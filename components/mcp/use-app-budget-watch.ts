"use client";
// While the chat page is open with an agent budget, and this browser gave an AI app access for
// the wallet, the page pays that app's small quotes from the budget as it pays the chat's
// (docs/contract.md, section 11): every few seconds, while the tab is visible, it tells the server
// it is here (with the budget's grant and the confirmation threshold) and gets the quotes made
// for the budget; it signs each with the session key, after the budget's own checks in the page,
// and approves it as the approval page would. Without the wallet's session the server says no,
// and the app's quotes ask for the wallet through their approval link instead. Each payment it
// makes for an app is told to the page as it happens (`onAppPayment`), so the person sees what
// was paid without a prompt, and for which app.
import { useEffect } from "react";
import { useCommitted } from "@/components/shared/use-committed";
import type { AgentBudgetGrant } from "@/lib/chain/delegation";
import { readPaymentStatus } from "@/lib/protocol/stream-payloads";
import { channelKeyOnly, requestsOf } from "@/lib/client/wallet-requests";
import { readApprovalTypedData, type ApprovalTypedData } from "@/lib/client/wallet-signer";
import { parseUsd, ZERO_USD } from "@/lib/money";
import type { PaymentStatus } from "@/lib/protocol/lines";
import { hasAppAccess } from "./app-grants-store";

const EVERY_MS = 3_000;

export type AppBudgetWatchParameters = {
  wallet: `0x${string}` | undefined;
  /** The budget's grant, read at call time; undefined without a usable budget. */
  requestGrant: () => AgentBudgetGrant | undefined;
  /** Signs a quote with the budget's session key after the page's checks; undefined without a usable budget. */
  signFromBudget: ((typedData: ApprovalTypedData, payment: PaymentStatus) => Promise<`0x${string}`>) | undefined;
  /** The confirmation threshold, in USD as settings hold it. */
  threshold: string;
  /**
   * The page's channel key (docs/contract.md, section 15): its address, told to the server so that
   * an app's call to a channel service is paid from a deposit, and its signer for those calls.
   */
  channelKey?: { current: () => `0x${string}` | undefined; sign: ((typedData: ApprovalTypedData, payment: PaymentStatus) => Promise<`0x${string}`>) | undefined };
  /** A payment was made from the budget: balances and meters are read again. */
  onPaid: () => void;
  /** An app's payment the page signed from the budget, once the server answered: for the person to see. */
  onAppPayment: (payment: AppBudgetPayment) => void;
};

/** An app's payment made from the budget, as the page shows it. */
export type AppBudgetPayment = {
  paymentId: string;
  app: string;
  service: string;
  /** USD, a decimal string. */
  amountUsd: string;
  /** `paid` once the server says so; `failed` with the server's words otherwise. */
  outcome: "paid" | "failed";
  summary: string;
  explorerUrl?: string;
  at: number;
};

export function useAppBudgetWatch({ wallet, requestGrant, signFromBudget, channelKey, threshold, onPaid, onAppPayment }: AppBudgetWatchParameters): void {
  // What each check works with: the latest committed, read when it runs.
  const latest = useCommitted({ requestGrant, signFromBudget, channelKey, threshold, onPaid, onAppPayment });
  const usable = signFromBudget !== undefined || channelKey?.sign !== undefined;

  useEffect(() => {
    if (!wallet || !usable) return;
    const tried = new Set<string>();
    let running = false;
    const tick = async () => {
      const { requestGrant: grantNow, signFromBudget: sign, channelKey: keyNow, threshold: thresholdNow, onPaid: paid, onAppPayment: told } = latest.current;
      if (running || document.visibilityState !== "visible" || !hasAppAccess(wallet)) return;
      const agentBudget = sign ? grantNow() : undefined;
      const channelKey = keyNow?.sign ? keyNow.current() : undefined;
      if (!agentBudget && !channelKey) return;
      running = true;
      const steps = async () => {
        const response = await fetch("/api/mcp/budget", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ ...(agentBudget ? { agentBudget, threshold: String(parseUsd(thresholdNow) ?? ZERO_USD) } : {}), ...(channelKey ? { channelKey } : {}) }),
        }).catch(() => undefined);
        if (!response?.ok) return;
        const body = (await response.json().catch(() => ({}))) as { quotes?: Array<{ paymentId?: unknown; quote?: unknown; app?: unknown }> };
        for (const entry of body.quotes ?? []) {
          const payment = readPaymentStatus(entry.quote);
          const typedData = readApprovalTypedData(payment?.approval?.typedData);
          // Each quote is tried once: one the budget's or the channel key's checks refuse is left to expire.
          if (!payment || !typedData || tried.has(payment.paymentId)) continue;
          tried.add(payment.paymentId);
          // A call on a channel: the channel key signs its voucher; any other: the budget's key.
          const fromDeposit = channelKeyOnly(requestsOf(payment.approval));
          const signer = fromDeposit ? keyNow?.sign : sign;
          const signature = signer ? await signer(typedData, payment).catch(() => undefined) : undefined;
          if (!signature) continue;
          const approved = await fetch(`/api/mcp/payments/${encodeURIComponent(payment.paymentId)}`, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify({ signed: [signature] }),
          }).catch(() => undefined);
          const answer = (await approved?.json().catch(() => undefined)) as
            | { summary?: unknown; explorerUrl?: unknown; updates?: unknown; error?: { message?: unknown } }
            | undefined;
          // Paid when the chain shows it (the card confirmed it), delivered or not.
          const cards = Array.isArray(answer?.updates) ? answer.updates.map(readPaymentStatus) : [];
          const delivered = approved?.ok === true && cards.some((card) => card?.status === "confirmed" || card?.status === "delivered");
          if (approved?.ok) paid();
          const summary = answer?.summary ?? answer?.error?.message;
          told({
            paymentId: payment.paymentId,
            app: typeof entry.app === "string" ? entry.app : "An AI app",
            service: payment.service.name,
            amountUsd: payment.amount.usd,
            outcome: delivered ? "paid" : "failed",
            summary: typeof summary === "string" ? summary : delivered ? "Paid." : "The payment did not go through.",
            ...(typeof answer?.explorerUrl === "string" ? { explorerUrl: answer.explorerUrl } : {}),
            at: Date.now(),
          });
        }
      };
      await steps().finally(() => {
        running = false;
      });
    };
    void tick();
    const timer = window.setInterval(() => void tick(), EVERY_MS);
    return () => window.clearInterval(timer);
  }, [wallet, usable]);
}
