"use client";
// The budget beside the chat (a sheet over it on narrow screens, with its own Close): the meters
// and recent payments against the limits, and the agent budget with the AI apps' payments it made.
import { AgentBudgetCard } from "@/components/agent-budget/agent-budget-card";
import type { AgentBudgetState } from "@/components/agent-budget/use-agent-budget";
import { BudgetPanel } from "@/components/budget/budget-panel";
import type { ChannelActions } from "@/components/budget/use-channel-actions";
import type { AppBudgetPayment } from "@/components/mcp/use-app-budget-watch";
import type { WalletNetwork } from "@/lib/chain/wallet-networks";
import type { SpendingLimitSettings } from "@/lib/client/settings";
import styles from "./chat.module.css";

export type BudgetSheetProps = {
  open: boolean;
  onClose: () => void;
  wallet: `0x${string}` | undefined;
  solanaWallet: string | undefined;
  limits: SpendingLimitSettings;
  /** Changed when balances moved: the report and the balance are read again. */
  refreshKey: number;
  balance: string | undefined;
  signIn: (() => Promise<void>) | undefined;
  agentBudget: AgentBudgetState;
  appPayments: readonly AppBudgetPayment[];
  /** Whether the connected wallet can grant an agent budget. */
  canGrant: boolean;
  /** Where a new agent budget's USDC goes. */
  network: WalletNetwork | undefined;
  threshold: string;
  setThreshold: (threshold: string) => void;
  /** Closing a pay-as-you-go channel, or taking its deposit back. */
  channelActions?: ChannelActions | undefined;
};

export function BudgetSheet({ open, onClose, wallet, solanaWallet, limits, refreshKey, balance, signIn, agentBudget, appPayments, canGrant, network, threshold, setThreshold, channelActions }: BudgetSheetProps) {
  return (
    <aside id="budget-sheet" className={styles.aside} aria-label="Your budget" data-open={open}>
      {/* As a sheet (narrow screens), it closes from itself: on a phone its toggle is in the top bar's menu. */}
      <button type="button" className={styles.sheetClose} onClick={onClose} data-testid="budget-close">
        Close
      </button>
      <BudgetPanel wallet={wallet} solanaWallet={solanaWallet} limits={limits} refreshKey={refreshKey} balance={balance} signIn={signIn} channelActions={channelActions} />
      <AgentBudgetCard budget={agentBudget} appPayments={appPayments} canGrant={canGrant} network={network} threshold={threshold} setThreshold={setThreshold} />
    </aside>
  );
}
