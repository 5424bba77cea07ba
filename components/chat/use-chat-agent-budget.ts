"use client";
// The agent budget's part in the chat (docs/contract.md, section 9): the budget this browser holds
// for the connected wallet, its key signing the quotes made for it (each checked against its card
// and the confirmation threshold of that moment), and the AI apps' small quotes it pays while the
// page is open, the latest five of them shown.
import { useMemo, useState, type RefObject } from "react";
import { useAgentBudget, type AgentBudgetState } from "@/components/agent-budget/use-agent-budget";
import { type AppBudgetPayment, type AppBudgetWatchParameters, useAppBudgetWatch } from "@/components/mcp/use-app-budget-watch";
import type { PaymentWallet } from "@/components/wallet/wallet-context";
import type { Settings } from "@/lib/client/settings";
import type { ApprovalTypedData } from "@/lib/client/wallet-signer";
import { parseUsd, ZERO_USD } from "@/lib/money";
import type { PaymentStatus } from "@/lib/protocol/lines";

export type ChatAgentBudgetParameters = {
  wallet: Pick<PaymentWallet, "address" | "actions">;
  /** Changed when balances moved: what is left is read again. */
  refreshKey: number;
  /** USDC moved between the wallet and the budget, or the budget paid: balances are read again. */
  onMoved: () => void;
  /** The confirmation threshold (USD, as settings hold it), for the apps' quotes. */
  threshold: string;
  /** The settings, read when a quote is signed: its threshold then. */
  settings: RefObject<Settings>;
  /** The page's channel key: it pays the apps' calls on a channel while the page is open. */
  channelKey?: AppBudgetWatchParameters["channelKey"];
};

export type ChatAgentBudget = {
  budget: AgentBudgetState;
  /** Signs a quote made for the budget with its key; undefined without a usable budget. */
  signFromBudget: ((typedData: ApprovalTypedData, payment: PaymentStatus) => Promise<`0x${string}`>) | undefined;
  /** The AI apps' payments this page made from the budget, newest first. */
  appPayments: AppBudgetPayment[];
};

/** A fee the quote does not state readably: the budget's key refuses to sign it. */
const UNREADABLE_FEE = -1n;

export function useChatAgentBudget({ wallet, refreshKey, onMoved, threshold, settings, channelKey }: ChatAgentBudgetParameters): ChatAgentBudget {
  const budget = useAgentBudget(wallet, refreshKey, onMoved);
  const signQuote = budget.signQuote;
  const signFromBudget = useMemo(
    () =>
      signQuote
        ? (typedData: ApprovalTypedData, payment: PaymentStatus) =>
            signQuote(typedData, parseUsd(settings.current.preferences.confirmationThreshold) ?? ZERO_USD, {
              payTo: payment.payTo,
              amount: parseUsd(payment.amount.serviceFee) ?? UNREADABLE_FEE,
              expiresAt: new Date(payment.approval?.expiresAt ?? 0),
            })
        : undefined,
    [settings, signQuote],
  );
  const [appPayments, setAppPayments] = useState<AppBudgetPayment[]>([]);
  useAppBudgetWatch({
    wallet: wallet.address,
    requestGrant: budget.requestGrant,
    signFromBudget,
    ...(channelKey ? { channelKey } : {}),
    threshold,
    onPaid: onMoved,
    onAppPayment: (payment) => setAppPayments((shown) => [payment, ...shown].slice(0, 5)),
  });
  return { budget, signFromBudget, appPayments };
}
