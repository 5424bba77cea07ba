"use client";
// The agent budget beside the chat: without one, a short form to grant it ("let the agent pay up
// to $X without asking, until <date>", and the per-payment threshold under which it may); with
// one, what was granted, used and is left (left is the chain's balance at the budget's address),
// until when, and one button that revokes it and returns the rest to the wallet.
//
// Test ids: agent-budget, agent-budget-amount, agent-budget-until, agent-budget-threshold,
// agent-budget-grant, agent-budget-status (data-granted, data-left in USD), agent-budget-revoke,
// agent-budget-error, agent-budget-notice, agent-budget-app-payment (data-outcome).
import { useId, useState, type FormEvent } from "react";
import { formatLocalTime, shortHex } from "@/components/payment/payment-display";
import { explorerTxUrl } from "@/lib/chain/networks";
import type { WalletNetwork } from "@/lib/chain/wallet-networks";
import { safeLink } from "@/lib/client/safe-link";
import { dollarsOf, formatDollars, formatUsd, parseUsd, ZERO_USD } from "@/lib/money";
import panel from "@/components/budget/budget-panel.module.css";
import own from "./agent-budget.module.css";
import type { AppBudgetPayment } from "@/components/mcp/use-app-budget-watch";
import type { AgentBudgetState } from "./use-agent-budget";

export type AgentBudgetCardProps = {
  budget: AgentBudgetState;
  /** AI apps' payments this page made from the budget, newest first: each shown as it happens. */
  appPayments?: readonly AppBudgetPayment[];
  /** Whether a wallet is connected that can sign and send. */
  canGrant: boolean;
  /** The network a new budget's USDC goes to: the default chain, else the first enabled. */
  network: WalletNetwork | undefined;
  /** The person's confirmation threshold (a decimal USD string), and how to change it. */
  threshold: string;
  setThreshold: (value: string) => void;
};

const styles = { ...panel, ...own };

const DEFAULT_AMOUNT = "0.05";
const DEFAULT_THRESHOLD = "0.01";
const DEFAULT_DAYS = 7;

export function AgentBudgetCard({ budget, appPayments = [], canGrant, network, threshold, setThreshold }: AgentBudgetCardProps) {
  const titleId = useId();
  const { stored, left, busy } = budget;
  return (
    <section className={`${styles.panel} ${styles.space}`} data-testid="agent-budget" aria-labelledby={titleId} aria-busy={busy !== undefined}>
      <h2 id={titleId} className={styles.title}>
        Agent budget
      </h2>
      {stored ? (
        <ActiveBudget budget={budget} threshold={threshold} left={left} />
      ) : (
        <GrantForm budget={budget} canGrant={canGrant} network={network} threshold={threshold} setThreshold={setThreshold} />
      )}
      {budget.error ? (
        <p className={styles.notice} role="alert" data-testid="agent-budget-error">
          {budget.error}
        </p>
      ) : null}
      {budget.notice ? <Notice notice={budget.notice} /> : null}
      <AppPayments payments={appPayments} />
    </section>
  );
}

/** What AI apps were paid from the budget without a prompt: announced as each happens. */
function AppPayments({ payments }: { payments: readonly AppBudgetPayment[] }) {
  return (
    <div role="status" aria-live="polite">
      {payments.length > 0 ? (
        <ul className={styles.recent}>
          {payments.map((payment) => {
            const link = payment.explorerUrl ? safeLink(payment.explorerUrl) : undefined;
            return (
              <li key={payment.paymentId} className={styles.muted} data-testid="agent-budget-app-payment" data-outcome={payment.outcome}>
                {payment.outcome === "paid"
                  ? `${payment.app}: paid ${dollarsOf(payment.amountUsd)} to ${payment.service} from the budget, ${formatLocalTime(new Date(payment.at))}.`
                  : `${payment.app} asked for ${dollarsOf(payment.amountUsd)} to ${payment.service}: ${payment.summary}`}{" "}
                {link ? (
                  <a href={link} target="_blank" rel="noreferrer">
                    Transaction
                  </a>
                ) : null}
              </li>
            );
          })}
        </ul>
      ) : null}
    </div>
  );
}

function ActiveBudget({ budget, threshold, left }: { budget: AgentBudgetState; threshold: string; left: bigint | undefined }) {
  const { stored, busy } = budget;
  if (!stored) return null;
  const granted = BigInt(stored.grant.maxAmount);
  const used = left === undefined ? undefined : granted > left ? granted - left : ZERO_USD;
  const until = new Date(stored.grant.validUntil * 1000);
  const revoked = stored.revokedAt !== undefined;
  const unfunded = !revoked && stored.fundingTx === undefined;
  const expired = !revoked && !unfunded && until.getTime() <= Date.now();
  return (
    <>
      <p
        className={styles.status}
        data-testid="agent-budget-status"
        data-session={stored.grant.session}
        data-granted={formatUsd(granted)}
        data-left={left === undefined ? undefined : formatUsd(left)}
        data-state={revoked ? "revoked" : unfunded ? "unfunded" : expired ? "expired" : "active"}
      >
        <strong>{formatDollars(granted)}</strong> granted · {used === undefined ? "…" : `${formatDollars(used)} used`} ·{" "}
        <strong>{left === undefined ? "…" : `${formatDollars(left)} left`}</strong>
      </p>
      <p className={styles.muted}>
        {revoked
          ? "Revoked: the agent no longer pays from it. What is left is still at its address until it is withdrawn."
          : unfunded
            ? busy === "granting"
              ? "Waiting for your wallet to send the USDC…"
              : "The transfer to the budget did not finish, so the agent does not use it. Withdraw returns whatever arrived."
            : expired
            ? `Expired ${formatLocalTime(until)}: every payment asks your wallet again. Revoke it to take back what is left.`
            : `Until ${formatLocalTime(until)}, payments up to ${dollarsOf(threshold)} are paid from it without asking. Larger ones, and any past the budget, ask your wallet.`}
      </p>
      <p className={styles.muted}>
        Held at <span title={stored.grant.session}>{shortHex(stored.grant.session)}</span> on {stored.network.name}, by a key kept in this browser only.
      </p>
      <button type="button" className={styles.action} onClick={() => void budget.revoke()} disabled={busy !== undefined} data-testid="agent-budget-revoke">
        {busy === "revoking" ? "Returning to your wallet…" : revoked ? "Withdraw what is left" : "Revoke and withdraw"}
      </button>
      {revoked && stored.fundingTx === undefined && left === ZERO_USD ? (
        <button type="button" className="link-button" onClick={budget.forget} disabled={busy !== undefined} data-testid="agent-budget-forget">
          Nothing will arrive: forget this budget and its key
        </button>
      ) : null}
    </>
  );
}

function GrantForm({
  budget,
  canGrant,
  network,
  threshold,
  setThreshold,
}: Omit<AgentBudgetCardProps, "budget"> & { budget: AgentBudgetState }) {
  const [amount, setAmount] = useState(DEFAULT_AMOUNT);
  const [until, setUntil] = useState(() => dateInput(new Date(Date.now() + DEFAULT_DAYS * 24 * 60 * 60 * 1000)));
  const [perPayment, setPerPayment] = useState(() => ((parseUsd(threshold) ?? ZERO_USD) > ZERO_USD ? threshold : DEFAULT_THRESHOLD));
  const [problem, setProblem] = useState<string | undefined>(undefined);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const micros = parseUsd(amount);
    const cap = parseUsd(perPayment);
    // The end of the chosen day, in the person's time zone.
    const end = new Date(`${until}T23:59:59`);
    if (micros === undefined || micros <= ZERO_USD) return setProblem("Enter an amount above $0, with at most 6 decimals.");
    if (cap === undefined || cap <= ZERO_USD) return setProblem("Enter a per-payment amount above $0.");
    if (Number.isNaN(end.getTime()) || end.getTime() <= Date.now()) return setProblem("Choose a day from today on.");
    if (!network) return setProblem("No network is enabled for payments.");
    setProblem(undefined);
    setThreshold(perPayment.trim());
    void budget.grant({ amount: micros, validUntil: Math.floor(end.getTime() / 1000), network });
  };

  return (
    <form onSubmit={submit} noValidate>
      <p className={styles.muted}>
        Let the agent pay small things without asking. Your wallet moves the amount to a key kept in this browser and signs what it may
        spend; the agent can never spend more than you move.
      </p>
      <label className={styles.field}>
        Up to $
        <input inputMode="decimal" value={amount} onChange={(event) => setAmount(event.target.value)} data-testid="agent-budget-amount" />
      </label>
      <label className={styles.field}>
        Until
        <input type="date" value={until} onChange={(event) => setUntil(event.target.value)} data-testid="agent-budget-until" />
      </label>
      <label className={styles.field}>
        Each payment at most $
        <input inputMode="decimal" value={perPayment} onChange={(event) => setPerPayment(event.target.value)} data-testid="agent-budget-threshold" />
      </label>
      <p className={styles.muted}>This sets your confirmation threshold: larger payments ask your wallet.</p>
      {problem ? (
        <p className={styles.notice} role="alert" data-testid="agent-budget-error">
          {problem}
        </p>
      ) : null}
      <button type="submit" className={styles.action} disabled={!canGrant || budget.busy !== undefined} data-testid="agent-budget-grant">
        {budget.busy === "granting" ? "Waiting for your wallet…" : canGrant ? "Grant" : "Connect a wallet to grant"}
      </button>
    </form>
  );
}

function Notice({ notice }: { notice: NonNullable<AgentBudgetState["notice"]> }) {
  const link = safeLink(explorerTxUrl({ id: notice.network.id, explorer: notice.network.explorer }, notice.txHash));
  return (
    <p className={styles.muted} role="status" data-testid="agent-budget-notice" data-kind={notice.kind}>
      {notice.message}{" "}
      {link ? (
        <a href={link} target="_blank" rel="noopener noreferrer" title={notice.txHash}>
          {shortHex(notice.txHash, 8, 4)}
        </a>
      ) : (
        <span title={notice.txHash}>{shortHex(notice.txHash, 8, 4)}</span>
      )}
    </p>
  );
}

function dateInput(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}
