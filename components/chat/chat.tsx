"use client";
// The page a person uses: the wallet, settings and budget around the conversation. Settings live
// in the browser and travel with every request; the model's proposals are applied (lowering a
// limit, changing a preference) or wait for the person (raising a limit). This puts the page's
// parts together; each concern is its own hook: the conversation (use-chat-stream.ts), what it
// exchanges with the settings (use-settings-exchange.ts), the agent budget
// (use-chat-agent-budget.ts), signing in (use-wallet-sign-in.ts), the waiting quote and its
// approval (use-quote-approval.ts) and the composer (use-composer.ts).
import { Suspense, useCallback, useMemo, useState } from "react";
import { ProposalBanner } from "@/components/settings/proposal-banner";
import { useCommitted } from "@/components/shared/use-committed";
import { useSettings } from "@/components/settings/use-settings";
import type { SandboxSolanaWalletOptions } from "@/components/wallet/sandbox-solana-wallet";
import { useSolanaWallet } from "@/components/wallet/use-solana-wallet";
import { useWallet } from "@/components/wallet/wallet-context";
import type { WalletNetwork } from "@/lib/chain/wallet-networks";
import type { FinishMetadata } from "@/lib/protocol/lines";
import { useChannelActions } from "@/components/budget/use-channel-actions";
import { BudgetSheet } from "./budget-sheet";
import { ChatNotices } from "./chat-notices";
import { ChatTools } from "./chat-tools";
import { ChatTopBar } from "./chat-top-bar";
import { Composer } from "./composer";
import { MessageList } from "./message-list";
import { useChannelKey } from "./use-channel-key";
import { useChatAgentBudget } from "./use-chat-agent-budget";
import { useChatStream } from "./use-chat-stream";
import { useComposer } from "./use-composer";
import { useQuoteApproval } from "./use-quote-approval";
import { useSettingsExchange } from "./use-settings-exchange";
import { useWalletSignIn } from "./use-wallet-sign-in";
import { Welcome } from "./welcome";
import styles from "./chat.module.css";

export type ChatConfig = {
  /** CHAT_COOLDOWN_SECONDS: the pause between messages the server enforces; 0 for none. */
  cooldownSeconds: number;
  /** The networks the server pays on (X402_NETWORKS), for the wallet and the settings. */
  networks: WalletNetwork[];
  /** No Gemini key: the built-in offline model answers. */
  offline: boolean;
  /** The app runs on the local sandbox (play money, a demo wallet in the wallet list). */
  sandbox: boolean;
  /** The Solana networks the server pays on (X402_NETWORKS); none: no Solana wallet is offered. */
  solanaNetworks?: { id: string; name: string }[];
  /** On the sandbox: its Solana demo wallet, offered among the Solana wallets. */
  sandboxSolana?: SandboxSolanaWalletOptions | undefined;
};

export function Chat({ cooldownSeconds, networks, offline, sandbox, solanaNetworks = [], sandboxSolana }: ChatConfig) {
  const settingsState = useSettings();
  const { settings } = settingsState;
  const wallet = useWallet();
  const solana = useSolanaWallet({ enabled: solanaNetworks.length > 0, sandbox: sandboxSolana });
  // Every network a payment may go out on, for the default-chain choice.
  const allNetworks = useMemo(() => [...networks.map(({ id, name }) => ({ id, name })), ...solanaNetworks], [networks, solanaNetworks]);
  // Changed whenever money moved (or may have): the meters and the balances are read again.
  const [budgetKey, setBudgetKey] = useState(0);
  const balancesMoved = useCallback(() => setBudgetKey((key) => key + 1), []);
  // On narrow screens the budget is a sheet over the chat, opened from the top bar.
  const [budgetOpen, setBudgetOpen] = useState(false);

  // Read at send time, so a request always carries the settings (and the budget) of that moment:
  // those the page shows, set as they are committed, before any handler runs.
  const settingsRef = useCommitted(settings);
  const threshold = settings.preferences.confirmationThreshold;
  // The page's key for pay-as-you-go channels: its address travels with each request, and it signs
  // the chat's and the AI apps' calls on a channel.
  const channelKey = useChannelKey(wallet.address);
  const agentBudget = useChatAgentBudget({ wallet, refreshKey: budgetKey, onMoved: balancesMoved, threshold, settings: settingsRef, channelKey });
  const exchange = useSettingsExchange(settingsState, settingsRef, agentBudget.budget.requestGrant);
  const { extras: settingsExtras } = exchange;
  // Read at send time, after the send waited for the key.
  const { current: channelKeyNow } = channelKey;
  const extras = useCallback(() => {
    const address = channelKeyNow();
    return { ...settingsExtras(), ...(address ? { channelKeys: { eip155: address } } : {}) };
  }, [settingsExtras, channelKeyNow]);
  const onFinish = useCallback(
    (finish: FinishMetadata) => {
      // A payment moved money (or tried to): the meters and the balance are read again.
      if (finish.paymentId || finish.txHash) balancesMoved();
    },
    [balancesMoved],
  );
  const chat = useChatStream({
    walletAddress: wallet.address,
    sign: wallet.sign,
    solanaAddress: solana.address,
    signSolana: solana.sign,
    signFromBudget: agentBudget.signFromBudget,
    signWithChannelKey: channelKey.sign,
    extras,
    onProposal: exchange.onProposal,
    onFinish,
  });
  const { entries, streaming } = chat;
  const newChat = () => {
    chat.newChat();
    exchange.dropProposals();
  };

  const signIn = useWalletSignIn({ wallet, solana, networks, onSignedIn: balancesMoved });
  const approval = useQuoteApproval({ chat, wallet, solana, agentBudget, channelKey, networks, threshold, refreshKey: budgetKey });
  const { approving } = approval;
  const channelActions = useChannelActions({ wallet: wallet.address, actions: wallet.actions, networks, onMoved: balancesMoved });
  const composer = useComposer({
    cooldownSeconds,
    send: approval.send,
    retry: chat.retry,
    idle: !streaming && approving === undefined,
    endsWithReply: entries.at(-1)?.role === "assistant",
  });

  return (
    <div className={styles.shell}>
      {/* A boundary of its own: React hydrates it as a task apart from the rest of the page's (a phone's main thread in shorter stretches). */}
      <Suspense>
        <ChatTopBar
          budgetOpen={budgetOpen}
          onToggleBudget={() => setBudgetOpen((open) => !open)}
          wallet={wallet}
          networks={networks}
          allNetworks={allNetworks}
          settings={settingsState}
          signIn={signIn}
          solana={solanaNetworks.length > 0 ? solana : undefined}
        />
      </Suspense>
      <ChatNotices offline={offline} sandbox={sandbox} sandboxSolana={sandboxSolana !== undefined} />
      <ProposalBanner settings={settingsState} networks={allNetworks} />
      <div className={styles.layout}>
        {/* The page's main landmark; the budget beside it stays a landmark of its own. */}
        <main className={styles.chat} aria-label="Chat with the payment agent">
          {entries.length === 0 ? (
            <Welcome onPick={composer.setDraft} ready={composer.hydrated} />
          ) : (
            // The welcome's heading gives way to this one, so the payment cards' headings follow an h2.
            <h2 className="sr-only">Conversation</h2>
          )}
          <MessageList entries={entries} streaming={streaming} paymentActions={approval.paymentActions} />
          <ChatTools
            model={settings.model}
            onModel={(model) => settingsState.update({ model })}
            offline={offline}
            onRetry={composer.canRetry ? () => void composer.onRetry() : undefined}
            onNewChat={composer.hydrated && entries.length > 0 && approving === undefined ? newChat : undefined}
          />
          <Composer
            value={composer.draft}
            onChange={composer.setDraft}
            onSend={() => void composer.onSend()}
            onStop={chat.stop}
            streaming={streaming || approving !== undefined}
            cooldownSeconds={composer.cooldownRemaining}
            held={composer.held}
            onCancelHeld={composer.cancelHeld}
            ready={composer.hydrated}
          />
        </main>
        {/* Hydrated as a task of its own too, like the top bar. */}
        <Suspense>
          <BudgetSheet
            open={budgetOpen}
            onClose={() => setBudgetOpen(false)}
            wallet={wallet.address}
            solanaWallet={solana.address}
            limits={settings.spendingLimits}
            refreshKey={budgetKey}
            balance={approval.balance}
            signIn={signIn}
            agentBudget={agentBudget.budget}
            appPayments={agentBudget.appPayments}
            canGrant={wallet.actions !== undefined}
            network={networks.find((network) => network.id === settings.preferences.defaultChain) ?? networks[0]}
            threshold={threshold}
            setThreshold={(confirmationThreshold) => settingsState.update({ preferences: { ...settingsRef.current.preferences, confirmationThreshold } })}
            channelActions={channelActions}
          />
        </Suspense>
      </div>
    </div>
  );
}
