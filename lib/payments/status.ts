// Builds the `p:` payment status lines (SPEC section 3) from a payment's facts, so every
// status of one payment shows the same fee breakdown: service fee, gas fee, total, USD.
import type { NetworkConfig } from "@/lib/chain/networks";
import type { PaymentFailureCode, PaymentStatus, PaymentStatusName } from "@/lib/protocol/lines";
import { formatUnits, formatUsd } from "@/lib/money";
import { PAYER_GAS_FEE } from "./preflight";

export type PaymentFacts = {
  paymentId: string;
  service: { name: string; url: string };
  network: NetworkConfig;
  amount: bigint;
  payTo: string;
  /** Paid by the wallet's agent budget (its session key) rather than the wallet's own prompt. */
  paidFrom?: "agent-budget";
};

export function paymentStatus(
  facts: PaymentFacts,
  status: PaymentStatusName,
  extra: Partial<Pick<PaymentStatus, "approval" | "txHash" | "explorerUrl" | "warnings" | "collectableUntil">> & {
    reason?: { code: PaymentFailureCode; message: string };
  } = {},
): PaymentStatus {
  const { usdc } = facts.network;
  const total = facts.amount + PAYER_GAS_FEE;
  return {
    paymentId: facts.paymentId,
    status,
    service: facts.service,
    network: facts.network.id,
    chain: facts.network.name,
    asset: { symbol: "USDC", address: usdc.address, decimals: usdc.decimals },
    amount: {
      serviceFee: formatUnits(facts.amount, usdc.decimals),
      gasFee: formatUnits(PAYER_GAS_FEE, usdc.decimals),
      total: formatUnits(total, usdc.decimals),
      currency: "USDC",
      // USDC is counted 1:1 with the dollar.
      usd: formatUsd(total),
    },
    payTo: facts.payTo,
    ...(facts.paidFrom ? { paidFrom: facts.paidFrom } : {}),
    ...(extra.warnings && extra.warnings.length > 0 ? { warnings: extra.warnings } : {}),
    ...(extra.approval ? { approval: extra.approval } : {}),
    ...(extra.txHash ? { txHash: extra.txHash } : {}),
    ...(extra.explorerUrl ? { explorerUrl: extra.explorerUrl } : {}),
    ...(extra.reason ? { reason: extra.reason } : {}),
    ...(extra.collectableUntil ? { collectableUntil: extra.collectableUntil } : {}),
  };
}
