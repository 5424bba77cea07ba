// What a wallet has paid, as the page's budget meters read it (docs/contract.md, section 9): settled
// payments only (what the wallet's transfers on chain already make public), summed over the
// rolling day, week and month, and the latest ones with their transaction links; for the wallet's
// own session, also what is held against its limits and not settled (docs/contract.md, section
// 12: a quote being paid, a payment pending on the chain, a usage-priced maximum the service may
// still collect), with until when. Limits stay in the browser; the page computes what is left.
import { sameAddress } from "@/lib/address";
import type { Queryable } from "@/lib/db";
import { describeUpTo, formatUsd } from "@/lib/money";
import { channelView, type ChannelView } from "./channel-view";
import { channelsOf } from "./ledger/channels";
import { heldByPeriod, heldPayments, inDepositsByPeriod, paymentsById, periods, periodStarts, recentPayments, settledByPeriod, settledPayments, countedByPeriod, type Period, type PeriodCount, type PaymentRecordStatus, type Wallets } from "./ledger";
import type { SpendingLimits } from "./limits";
import { paymentRails, type RailEnv } from "./rails";
import { ownTransactionPage } from "./rails/rail";

export const MAX_RECENT_PAYMENTS = 20;
/** The most channels a report lists per wallet. */
const MAX_CHANNELS = 10;

/** The most held payments a report lists (a person rarely has more than a few at once). */
const MAX_HELD_PAYMENTS = 50;

export type SpendingReport = {
  wallet: string;
  /** Every wallet the report counts, when more than one was asked for (a person's EVM and Solana wallets). */
  wallets?: string[];
  /** Whether `recent` is the wallets' whole history: only for their own signed-in session (docs/contract.md, section 9). */
  signedIn: boolean;
  /** `heldUsd`, for the wallets' own session: what is held against the limit and not settled (`held`, by creation time). */
  periods: Array<{ period: Period; spentUsd: string; since: string; heldUsd?: string }>;
  /** For the wallets' own session: what counts against the limits and has not settled, and until when the chain may still move it. */
  held?: Array<{
    paymentId: string;
    service: { name: string; url: string };
    network: string;
    amountUsd: string;
    /** Where the service delivered and said it charged nothing: the maximum is held all the same. */
    delivered?: true;
    /** When the signed payment can no longer move; absent when not known (an unfinished quote's). */
    until?: string;
    /** What an open channel's deposit holds beyond what its calls took: back to the wallet at the close. */
    deposit?: true;
  }>;
  /** For the wallets' own session: their pay-as-you-go channels, newest first (docs/contract.md, section 15). */
  channels?: ChannelView[];
  recent: Array<{
    paymentId: string;
    service: { name: string; url: string };
    network: string;
    amountUsd: string;
    /** Usage-priced (x402 `upto`): "up to $X, charged $Y", where `amountUsd` is the Y. */
    upTo?: string;
    txHash: string;
    explorerUrl: string;
    settledAt: string;
    /** Paid by the wallet's agent budget (its session key) without a prompt. */
    paidFrom?: "agent-budget";
  }>;
};

export type GetSpendingReportParameters = {
  db: Queryable;
  env: RailEnv;
  /** A validated address, or a person's addresses (one per chain family) counted together; the report names them as given. */
  wallet: string | readonly string[];
  /**
   * Name the payments (services, ids, transactions) of every wallet (true), of none (false: only
   * the totals), or of these (the ones that proved themselves).
   */
  history: boolean | readonly string[];
  now?: Date;
  recentLimit?: number;
};

export type GetSpendingReportReturnType = SpendingReport;

export async function getSpendingReport({
  db,
  env,
  wallet,
  history,
  now = new Date(),
  recentLimit = MAX_RECENT_PAYMENTS,
}: GetSpendingReportParameters): Promise<GetSpendingReportReturnType> {
  const named = typeof wallet === "string" ? [wallet] : [...wallet];
  const listed = history === true ? named : history === false ? [] : named.filter((one) => history.some((other) => sameAddress(one, other)));
  // Two queries side by side: the three periods' sums, and the latest payments.
  const [sums, inDeposits, settled, held, channels] = await Promise.all([
    settledByPeriod(db, wallet, now),
    inDepositsByPeriod(db, wallet, now),
    listed.length > 0 ? settledPayments(db, listed, Math.min(recentLimit, MAX_RECENT_PAYMENTS)) : [],
    listed.length > 0 ? heldPayments(db, listed, MAX_HELD_PAYMENTS) : undefined,
    listed.length > 0 ? Promise.all(listed.map((one) => channelsOf(db, one, { limit: MAX_CHANNELS }))) : undefined,
  ]);
  const starts = periodStarts(now);
  const heldSince = (since: Date) => (held ?? []).reduce((sum, payment) => (payment.createdAt > since ? sum + payment.amount : sum), 0n);
  // An open channel's settled deposit is not all spent: what its calls did not take is held until it comes back.
  const windows = (Object.keys(periods) as Period[]).map((period) => ({
    period,
    spentUsd: formatUsd(sums[period] - inDeposits[period]),
    since: starts[period].toISOString(),
    ...(held ? { heldUsd: formatUsd(heldSince(starts[period]) + inDeposits[period]) } : {}),
  }));
  const depositsHeld = (channels ?? []).flat().filter((channel) => channel.state !== "closed" && channel.state !== "opening" && channel.deposit > channel.vouched);
  const recent = settled.flatMap((payment) => {
    if (!payment.txHash) return [];
    return [
      {
        paymentId: payment.paymentId,
        service: { name: payment.serviceName, url: payment.serviceUrl },
        network: payment.network,
        amountUsd: formatUsd(payment.amount),
        ...(payment.maxAmount === null ? {} : { upTo: describeUpTo(payment.maxAmount, payment.amount) }),
        txHash: payment.txHash,
        explorerUrl: transactionLink(payment.network, payment.txHash, env),
        settledAt: (payment.settledAt ?? payment.createdAt).toISOString(),
        ...(payment.payer ? { paidFrom: "agent-budget" as const } : {}),
      },
    ];
  });
  return {
    wallet: named[0] ?? "",
    ...(named.length > 1 ? { wallets: named } : {}),
    signedIn: listed.length === named.length,
    periods: windows,
    ...(channels ? { channels: channels.flat().map((channel) => channelView(channel, (network, txHash) => transactionLink(network, txHash, env))) } : {}),
    recent,
    ...(held
      ? {
          held: [
            ...held.map((payment) => ({
            paymentId: payment.paymentId,
            service: { name: payment.serviceName, url: payment.serviceUrl },
            network: payment.network,
            amountUsd: formatUsd(payment.amount),
            ...(payment.outcome?.status === "delivered" ? { delivered: true as const } : {}),
            ...(payment.validBefore ? { until: payment.validBefore.toISOString() } : {}),
            })),
            ...depositsHeld.map((channel) => ({
              paymentId: channel.depositPaymentId,
              service: { name: channel.serviceName, url: channel.serviceUrl },
              network: channel.network,
              amountUsd: formatUsd(channel.deposit - channel.vouched),
              deposit: true as const,
            })),
          ],
        }
      : {}),
  };
}

/** A link to a payment's transaction: its rail's explorer, or the app's own page for a network this server does not know. */
export function transactionLink(networkId: string, txHash: string, env: RailEnv): string {
  const found = paymentRails(env).find(networkId);
  return (found?.network.transactionUrl ?? ownTransactionPage(networkId)).replace("{txHash}", txHash);
}

/** A wallet's payments against its limits, as the agent tells the person (docs/contract.md, section 8, getSpending). */
export type LimitUse = {
  /**
   * Per rolling period: what counts against the limit (settled, pending and reserved payments:
   * money that moved or still may), the limit, and what is left.
   */
  periods: Array<PeriodCount & { held: bigint }>;
  /** The latest payments in any state, newest first. */
  recent: Array<{
    paymentId: string;
    service: string;
    amount: bigint;
    /** A usage-priced payment's maximum: `amount` is what it was charged once settled, the maximum before. */
    maxAmount?: bigint;
    status: PaymentRecordStatus;
    network: string;
    at: Date;
    paidFrom?: "agent-budget";
    txHash?: string;
    explorerUrl?: string;
  }>;
};

export async function getLimitUse({
  db,
  env,
  wallets,
  history,
  limits,
  recentLimit = 10,
}: {
  db: Queryable;
  env: RailEnv;
  /** The person's wallets, one per chain family: the limits count them together. */
  wallets: Wallets;
  /**
   * Which payments may be listed: those of these wallets (the ones that proved themselves), or
   * only these payments (an AI app's own, under its grant).
   */
  history: readonly string[] | { paymentIds: readonly string[] };
  limits: SpendingLimits;
  recentLimit?: number;
}): Promise<LimitUse> {
  const now = new Date();
  const [counted, held, recent] = await Promise.all([
    countedByPeriod(db, { wallet: wallets, limits, now }),
    // What of it has not settled (a quote being paid, a payment pending on the chain, a held
    // maximum), said apart as the budget panel says it.
    heldByPeriod(db, wallets, now),
    recentLimit <= 0
      ? []
      : "paymentIds" in history
        ? paymentsById(db, history.paymentIds.slice(0, recentLimit))
        : history.length > 0
          ? recentPayments(db, history, recentLimit)
          : [],
  ]);
  const rails = paymentRails(env);
  return {
    periods: counted.map((entry) => ({ ...entry, held: held[entry.period] < entry.counted ? held[entry.period] : entry.counted })),
    recent: recent.map((payment) => {
      const found = payment.txHash ? rails.find(payment.network) : undefined;
      return {
        paymentId: payment.paymentId,
        service: payment.serviceName,
        amount: payment.amount,
        ...(payment.maxAmount === null ? {} : { maxAmount: payment.maxAmount }),
        status: payment.status,
        network: payment.network,
        at: payment.createdAt,
        ...(payment.payer ? { paidFrom: "agent-budget" as const } : {}),
        ...(payment.txHash ? { txHash: payment.txHash } : {}),
        ...(payment.txHash && found ? { explorerUrl: found.network.transactionUrl.replace("{txHash}", payment.txHash) } : {}),
      };
    }),
  };
}
