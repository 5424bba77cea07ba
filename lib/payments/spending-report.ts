// What a wallet has paid, as the page's budget meters read it (SPEC section 9): settled
// payments only (what the wallet's transfers on chain already make public), summed over the
// rolling day, week and month, and the latest ones with their transaction links. Limits stay in
// the browser; the page computes what is left.
import { chainIdOf, explorerTxUrl, findNetwork } from "@/lib/chain/networks";
import type { Queryable } from "@/lib/db";
import type { ServerEnv } from "@/lib/env";
import { periods, settledPayments, settledSince, type Period } from "./ledger";
import { formatUsd } from "@/lib/money";

export const MAX_RECENT_PAYMENTS = 20;

export type SpendingReport = {
  wallet: string;
  periods: Array<{ period: Period; spentUsd: string; since: string }>;
  recent: Array<{
    paymentId: string;
    service: { name: string; url: string };
    network: string;
    amountUsd: string;
    txHash: string;
    explorerUrl: string;
    settledAt: string;
    /** Paid by the wallet's agent budget (its session key) without a prompt. */
    paidFrom?: "agent-budget";
  }>;
};

export type GetSpendingReportParameters = {
  db: Queryable;
  env: Pick<ServerEnv, "X402_NETWORKS" | "rpcUrls" | "usdcAddresses">;
  /** A validated address; the report names it as given. */
  wallet: string;
  now?: Date;
  recentLimit?: number;
};

export type GetSpendingReportReturnType = SpendingReport;

export async function getSpendingReport({
  db,
  env,
  wallet,
  now = new Date(),
  recentLimit = MAX_RECENT_PAYMENTS,
}: GetSpendingReportParameters): Promise<GetSpendingReportReturnType> {
  const windows = await Promise.all(
    (Object.keys(periods) as Period[]).map(async (period) => {
      const since = new Date(now.getTime() - periods[period]);
      return { period, spentUsd: formatUsd(await settledSince(db, wallet, since)), since: since.toISOString() };
    }),
  );
  const settled = await settledPayments(db, wallet, Math.min(recentLimit, MAX_RECENT_PAYMENTS));
  const recent = settled.flatMap((payment) => {
    if (!payment.txHash) return [];
    return [
      {
        paymentId: payment.paymentId,
        service: { name: payment.serviceName, url: payment.serviceUrl },
        network: payment.network,
        amountUsd: formatUsd(payment.amount),
        txHash: payment.txHash,
        explorerUrl: transactionLink(payment.network, payment.txHash, env),
        settledAt: (payment.settledAt ?? payment.createdAt).toISOString(),
        ...(payment.payer ? { paidFrom: "agent-budget" as const } : {}),
      },
    ];
  });
  return { wallet, periods: windows, recent };
}

function transactionLink(networkId: string, txHash: string, env: GetSpendingReportParameters["env"]): string {
  const network = findNetwork(networkId, env);
  if (network) return explorerTxUrl(network, txHash);
  // A network whose USDC this server does not know (the sandbox chain when its token address is
  // not configured) has no explorer: the app's own transaction page serves it.
  return explorerTxUrl({ id: `eip155:${chainIdOf(networkId) ?? 0}`, explorer: undefined }, txHash);
}
