"use client";
// The page a person uses: the wallet, settings and budget around the conversation. Settings live
// in the browser and travel with every request; the model's proposals are applied (lowering a
// limit, changing a preference) or wait for the person (raising a limit). A quote at or below
// the confirmation threshold opens the wallet's prompt as soon as it arrives; above it, the
// person confirms in the page first. The server re-checks everything either way.
import { startTransition, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { AgentBudgetCard } from "@/components/agent-budget/agent-budget-card";
import { useAgentBudget } from "@/components/agent-budget/use-agent-budget";
import { BudgetPanel } from "@/components/budget/budget-panel";
import type { PaymentActions } from "@/components/payment/payment-card";
import { ProposalBanner } from "@/components/settings/proposal-banner";
import { SettingsPanel } from "@/components/settings/settings-panel";
import { AiAppsDialog } from "@/components/mcp/ai-apps-dialog";
import { type AppBudgetPayment, useAppBudgetWatch } from "@/components/mcp/use-app-budget-watch";
import { useSettings } from "@/components/settings/use-settings";
import { WalletConnectButton } from "@/components/wallet/connect-button";
import type { SandboxSolanaWalletOptions } from "@/components/wallet/sandbox-solana-wallet";
import { SolanaWalletButton } from "@/components/wallet/solana-button";
import { useSolanaWallet } from "@/components/wallet/use-solana-wallet";
import { useWallet, useWalletBalance } from "@/components/wallet/wallet-context";
import type { WalletNetwork } from "@/lib/chain/wallet-networks";
import { toRequestExtras } from "@/lib/client/settings";
import { readApprovalTypedData, type ApprovalTypedData } from "@/lib/client/wallet-signer";
import { formatUnits, parseUsd } from "@/lib/money";
import type { FinishMetadata, PaymentStatus, StreamMetadata } from "@/lib/protocol/lines";
import { latestPayments, type ChatEntry } from "./chat-entries";
import { Composer } from "./composer";
import { preloadMarkdown } from "./markdown";
import { MessageList } from "./message-list";
import { ModelPicker } from "./model-picker";
import { Notice } from "./notice";
import { PrivacyNote } from "./privacy-note";
import { TopBarMenu } from "./top-bar-menu";
import { useChatStream } from "./use-chat-stream";
import { useCooldown } from "./use-cooldown";
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

const examples = [
  "What services can you pay for?",
  "Compare prices for weather",
  "What's the weather in Lisbon?",
  "How much have I spent this week?",
];

export function Chat({ cooldownSeconds, networks, offline, sandbox, solanaNetworks = [], sandboxSolana }: ChatConfig) {
  const settingsState = useSettings();
  const { settings, propose } = settingsState;
  const wallet = useWallet();
  const solana = useSolanaWallet({ enabled: solanaNetworks.length > 0, sandbox: sandboxSolana });
  // Every network a payment may go out on, for the default-chain choice.
  const allNetworks = useMemo(() => [...networks.map(({ id, name }) => ({ id, name })), ...solanaNetworks], [networks, solanaNetworks]);
  const [budgetKey, setBudgetKey] = useState(0);
  // On narrow screens the budget is a sheet over the chat, opened from the top bar.
  const [budgetOpen, setBudgetOpen] = useState(false);

  // The agent budget this browser holds for the connected wallet: small payments it pays itself.
  const balancesMoved = useCallback(() => setBudgetKey((key) => key + 1), []);
  const agentBudget = useAgentBudget(wallet, budgetKey, balancesMoved);
  const requestGrant = agentBudget.requestGrant;

  // Read at send time, so a request always carries the settings (and the budget) of that moment.
  const settingsRef = useRef(settings);
  settingsRef.current = settings;
  const extras = useCallback(() => {
    const grant = requestGrant();
    return { ...toRequestExtras(settingsRef.current), ...(grant ? { agentBudget: grant } : {}) };
  }, [requestGrant]);
  const onProposal = useCallback(
    (data: StreamMetadata) => {
      if (data.spendingLimits || data.preferences) {
        propose({
          ...(data.spendingLimits ? { spendingLimits: data.spendingLimits } : {}),
          ...(data.preferences ? { preferences: data.preferences } : {}),
        });
      }
    },
    [propose],
  );
  const onFinish = useCallback((finish: FinishMetadata) => {
    // A payment moved money (or tried to): the meters and the balance are read again.
    if (finish.paymentId || finish.txHash) setBudgetKey((key) => key + 1);
  }, []);

  const signQuote = agentBudget.signQuote;
  const signFromBudget = useMemo(
    () =>
      signQuote
        ? (typedData: ApprovalTypedData, payment: PaymentStatus) =>
            signQuote(typedData, parseUsd(settingsRef.current.preferences.confirmationThreshold) ?? 0n, {
              payTo: payment.payTo,
              amount: parseUsd(payment.amount.serviceFee) ?? -1n,
              expiresAt: new Date(payment.approval?.expiresAt ?? 0),
            })
        : undefined,
    [signQuote],
  );
  // The page pays its AI apps' small quotes from the same budget while it is open, and shows each.
  const [appPayments, setAppPayments] = useState<AppBudgetPayment[]>([]);
  useAppBudgetWatch({
    wallet: wallet.address,
    requestGrant,
    signFromBudget,
    threshold: settings.preferences.confirmationThreshold,
    onPaid: balancesMoved,
    onAppPayment: (payment) => setAppPayments((shown) => [payment, ...shown].slice(0, 5)),
  });
  const chat = useChatStream({
    walletAddress: wallet.address,
    sign: wallet.sign,
    solanaAddress: solana.address,
    signSolana: solana.sign,
    signFromBudget,
    extras,
    onProposal,
    onFinish,
  });
  const { entries, streaming, send, retry, reject, stop } = chat;
  // A new conversation drops what the model proposed in the old one (the waiting raises are kept
  // with the conversation, use-settings.ts).
  const { dismissPending, dismissApplied } = settingsState;
  const newChat = () => {
    chat.newChat();
    dismissPending();
    dismissApplied();
  };

  // A person may approve before the wallet has loaded: the approval waits for it, then goes on
  // with the wallet that is there (the latest render's approve), or asks to connect one.
  const approveNow = useRef(chat.approve);
  approveNow.current = chat.approve;
  const [awaitingWallet, setAwaitingWallet] = useState<string | undefined>(undefined);
  const approve = async (payment: PaymentStatus) => {
    if (wallet.status === "loading") {
      setAwaitingWallet(payment.paymentId);
      try {
        await wallet.whenReady();
      } catch {
        // It could not load: approve below finds no wallet and says so.
      } finally {
        setAwaitingWallet(undefined);
      }
    }
    return approveNow.current(payment);
  };
  const approving = chat.approving ?? awaitingWallet;

  // A message sent while the wallet is still loading (right after a reload, a wallet used before is
  // being reconnected) waits a moment for it, so that it goes with the person's address, as it
  // would a second later; a person without a wallet waits at most WALLET_WAIT_MS.
  const sendNow = useRef(chat.send);
  sendNow.current = chat.send;
  // At most one payment is signed without a prompt per message the person sends: text in a
  // listing or a service's answer that steers the agent to pay again meets the person, not the key.
  const silentThisMessage = useRef(0);
  const sendWithWallet = async (text: string) => {
    if (wallet.status === "loading") await settledWithin(wallet.whenReady(), WALLET_WAIT_MS);
    silentThisMessage.current = 0;
    return sendNow.current(text);
  };

  const pending = useMemo(() => latestQuote(entries), [entries]);
  const quoteNetwork = networks.find((network) => network.id === pending?.network) ?? networks[0];
  // Signing in shows the wallet its own history; the message names a chain the agent pays on. A
  // person with only a Solana wallet signs in with it.
  const signMessage = wallet.actions?.signMessage;
  const solanaSignIn = solana.signIn;
  const signInWallet = useMemo(() => {
    const chainId = networks.some((network) => network.chainId === wallet.chainId) ? wallet.chainId : networks[0]?.chainId;
    const signInOnce =
      wallet.address && signMessage && chainId !== undefined
        ? async () => {
            // Loaded when first used: most visits never sign in.
            const { signIn } = await import("@/lib/client/sign-in");
            await signIn({ address: wallet.address as `0x${string}`, chainId, signMessage });
          }
        : solanaSignIn;
    if (!signInOnce) return undefined;
    return async () => {
      await signInOnce();
      setBudgetKey((key) => key + 1);
    };
  }, [networks, signMessage, solanaSignIn, wallet.address, wallet.chainId]);
  // A session belongs to one wallet: it ends when that wallet leaves the page.
  const signedInWallet = useRef(wallet.address);
  useEffect(() => {
    if (signedInWallet.current && signedInWallet.current !== wallet.address && wallet.status === "ready") {
      void import("@/lib/client/sign-in").then(({ signOut }) => signOut());
    }
    if (wallet.status === "ready") signedInWallet.current = wallet.address;
  }, [wallet.address, wallet.status]);
  const signedInSolana = useRef(solana.address);
  useEffect(() => {
    if (signedInSolana.current && signedInSolana.current !== solana.address) {
      void import("@/lib/client/sign-in").then(({ signOut }) => signOut());
    }
    signedInSolana.current = solana.address;
  }, [solana.address]);
  const balance = useWalletBalance(wallet.address, quoteNetwork, budgetKey);
  const quoteChain = pending ? readApprovalTypedData(pending.approval?.typedData)?.domain.chainId : undefined;
  const wrongChain =
    wallet.address && quoteChain !== undefined && wallet.chainId !== quoteChain && quoteNetwork ? { name: quoteNetwork.name } : undefined;

  const threshold = parseUsd(settings.preferences.confirmationThreshold) ?? 0n;
  const needsConfirmation = (payment: PaymentStatus) => (parseUsd(payment.amount.usd) ?? 0n) > threshold;

  // A quote for the agent budget is paid by its key, from its address and balance.
  const pendingFromBudget = pending?.paidFrom === "agent-budget";
  const budgetLeft =
    agentBudget.stored && agentBudget.left !== undefined ? formatUnits(agentBudget.left, agentBudget.stored.network.usdc.decimals) : undefined;
  // A Solana quote is signed by the Solana wallet, from its address (its balance is not read here).
  const pendingOnSolana = pending?.approval?.transaction !== undefined;
  const payingFrom = pendingFromBudget ? agentBudget.stored?.grant.session : pendingOnSolana ? solana.address : wallet.address;
  const payingBalance = pendingFromBudget ? budgetLeft : pendingOnSolana ? undefined : balance;
  const canSignPending = pendingFromBudget ? signFromBudget !== undefined : pendingOnSolana ? solana.sign !== undefined : wallet.sign !== undefined;

  // An approval is not a new message: it starts no cooldown (the server does not count it).
  const paymentActions: PaymentActions = {
    canSign: canSignPending,
    walletLoading: wallet.status === "loading",
    busy: streaming || approving !== undefined,
    approving,
    approve: (payment) => void approve(payment),
    reject,
    confirmRequired: pending ? (pending.paidFrom === "agent-budget" ? silentThisMessage.current > 0 : needsConfirmation(pending)) : false,
    ...(payingFrom ? { payingFrom } : {}),
    ...(payingBalance !== undefined ? { balance: payingBalance } : {}),
    ...(wrongChain && !pendingFromBudget ? { wrongChain } : {}),
  };

  // At or below the threshold the wallet's own prompt is the confirmation: open it at once,
  // once per quote, when the reply that brought it has finished. A quote made for the agent
  // budget is signed by its key at once, with no prompt at all.
  const prompted = useRef(new Set<string>());
  useEffect(() => {
    if (!pending || streaming || approving !== undefined) return;
    const fromBudget = pending.paidFrom === "agent-budget";
    if (!canSignPending) return;
    if (prompted.current.has(pending.paymentId) || (!fromBudget && needsConfirmation(pending))) return;
    if (fromBudget && silentThisMessage.current > 0) return;
    prompted.current.add(pending.paymentId);
    if (fromBudget) silentThisMessage.current += 1;
    void approve(pending);
  });

  const cooldown = useCooldown(cooldownSeconds);
  const [draft, setDraft] = useState("");
  // True only once React runs in the browser; false in the server HTML. Set after hydration in a
  // transition: the chat's render that enables its buttons yields to the browser between its parts.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => startTransition(() => setHydrated(true)), []);

  const afterSend = (outcome: Awaited<ReturnType<typeof send>>, text: string, undoCooldown: () => void) => {
    if (outcome.kind === "answered") return;
    if (outcome.kind === "refused" && outcome.error.status === 429) {
      cooldown.waitFor(outcome.error.retryAfterSeconds ?? Math.max(cooldownSeconds, 1));
    } else if (outcome.kind !== "refused" || outcome.error.status < 500) {
      // Refused before the server counted it (it validates before claiming the cooldown), never
      // delivered, or not sent at all: the person need not wait for a message that was not taken.
      undoCooldown();
    }
    // Give the text back to fix or resend, unless it held a secret: that must not linger.
    const secret = outcome.kind === "refused" && outcome.error.code === "secret-in-message";
    if (!secret) setDraft((current) => (current.length === 0 ? text : current));
  };

  const onSend = async () => {
    const text = draft.trim();
    if (text.length === 0) return;
    setDraft("");
    // The reply will be markdown: its renderer is fetched while the question travels.
    preloadMarkdown();
    // The wait starts when the message leaves, as the server counts it on arrival.
    const undoCooldown = cooldown.start();
    afterSend(await sendWithWallet(text), text, undoCooldown);
  };

  const last = entries.at(-1);
  const canRetry = hydrated && !streaming && approving === undefined && cooldown.remainingSeconds === 0 && last?.role === "assistant";
  const onRetry = async () => {
    const undoCooldown = cooldown.start();
    const outcome = await retry();
    if (outcome.kind === "busy") undoCooldown();
    else if (outcome.kind !== "answered") afterSend(outcome, "", undoCooldown);
  };

  return (
    <div className={styles.shell}>
      <header className={styles.topBar}>
        <div className={styles.brand}>
          <h1 className={styles.title}>x402 payment agent</h1>
          <p className={styles.tagline}>Pay per use for x402 services, in USDC, within your limits.</p>
        </div>
        <div className={styles.controls}>
          <TopBarMenu>
            <button
              type="button"
              className={styles.budgetToggle}
              aria-expanded={budgetOpen}
              aria-controls="budget-sheet"
              onClick={() => setBudgetOpen((open) => !open)}
              data-testid="budget-toggle"
            >
              Budget
            </button>
            <AiAppsDialog wallet={wallet} networks={networks} limits={settings.spendingLimits} signIn={signInWallet} />
            <SettingsPanel settings={settingsState} networks={allNetworks} />
            {solanaNetworks.length > 0 ? <SolanaWalletButton wallet={solana} /> : null}
          </TopBarMenu>
          <WalletConnectButton />
        </div>
      </header>
      {offline ? (
        <Notice testId="offline-banner" title="Offline model" summary="built-in rules answer, not Gemini">
          No Gemini API key is set, so simple built-in rules answer instead of Gemini. Set <code>GOOGLE_GENERATIVE_AI_API_KEY</code>{" "}
          on the server to use the real model.
        </Notice>
      ) : null}
      {sandbox ? (
        <Notice testId="sandbox-banner" title="Sandbox" summary="play USDC on a local chain">
          Payments use play USDC on a local chain. Connect the <em>Sandbox demo wallet</em> to try them, or any wallet on the
          sandbox chain{sandboxSolana ? <>; on Solana, the <em>Sandbox Solana wallet</em></> : null}.
        </Notice>
      ) : null}
      <ProposalBanner settings={settingsState} networks={allNetworks} />
      <div className={styles.layout}>
        {/* The page's main landmark; the budget beside it stays a landmark of its own. */}
        <main className={styles.chat} aria-label="Chat with the payment agent">
          {entries.length === 0 ? (
            <div className={styles.welcome} data-welcome="">
              <h2 className={styles.welcomeTitle}>What can I get for you?</h2>
              <p className={styles.welcomeText}>
                I find paid x402 services, compare their prices and pay them in USDC within your limits. Every payment is
                signed by your own wallet.
              </p>
              <ul className={styles.examples}>
                {examples.map((example) => (
                  <li key={example}>
                    <button type="button" className={styles.example} onClick={() => setDraft(example)} disabled={!hydrated}>
                      {example}
                    </button>
                  </li>
                ))}
              </ul>
            </div>
          ) : (
            // The welcome's heading gives way to this one, so the payment cards' headings follow an h2.
            <h2 className="sr-only">Conversation</h2>
          )}
          <MessageList entries={entries} streaming={streaming} paymentActions={paymentActions} />
          <div className={styles.chatTools}>
            <ModelPicker value={settings.model} onChange={(model) => settingsState.update({ model })} offline={offline} />
            {canRetry ? (
              <button type="button" className={styles.toolButton} onClick={() => void onRetry()} data-testid="retry-button">
                Retry last message
              </button>
            ) : null}
            {hydrated && entries.length > 0 && approving === undefined ? (
              <button type="button" className={styles.toolButton} onClick={newChat} data-testid="new-chat">
                New chat
              </button>
            ) : null}
            <PrivacyNote />
          </div>
          <Composer
            value={draft}
            onChange={setDraft}
            onSend={() => void onSend()}
            onStop={stop}
            streaming={streaming || approving !== undefined}
            cooldownSeconds={cooldown.remainingSeconds}
            ready={hydrated}
          />
        </main>
        <aside id="budget-sheet" className={styles.aside} aria-label="Your budget" data-open={budgetOpen}>
          {/* As a sheet (narrow screens), it closes from itself: on a phone its toggle is in the top bar's menu. */}
          <button type="button" className={styles.sheetClose} onClick={() => setBudgetOpen(false)} data-testid="budget-close">
            Close
          </button>
          <BudgetPanel wallet={wallet.address} solanaWallet={solana.address} limits={settings.spendingLimits} refreshKey={budgetKey} balance={balance} signIn={signInWallet} />
          <AgentBudgetCard
            budget={agentBudget}
            appPayments={appPayments}
            canGrant={wallet.actions !== undefined}
            network={networks.find((network) => network.id === settings.preferences.defaultChain) ?? networks[0]}
            threshold={settings.preferences.confirmationThreshold}
            setThreshold={(confirmationThreshold) => settingsState.update({ preferences: { ...settingsRef.current.preferences, confirmationThreshold } })}
          />
        </aside>
      </div>
    </div>
  );
}

/** The newest quote still waiting for a signature, if any. */
function latestQuote(entries: readonly ChatEntry[]): PaymentStatus | undefined {
  return [...latestPayments(entries).values()].findLast((payment) => payment.status === "awaiting-signature");
}

/** How long a message waits for a wallet that is still loading before it goes without one. */
const WALLET_WAIT_MS = 5_000;

/** Resolves when `promise` settles (either way) or after `ms`, whichever comes first. */
function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    promise.then(
      () => resolve(),
      () => resolve(),
    ).finally(() => clearTimeout(timer));
  });
}
