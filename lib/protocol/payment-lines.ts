// The payment card's words for the payment core: each payment update as the chat's `p:` line
// (docs/contract.md, section 3) and the MCP approval page's card, its amounts as decimal
// strings. The one place the page's wire format meets the core; it holds no payment rule.
import { formatUnits, formatUsd } from "@/lib/money";
import { totalOf, type PaymentUpdate, type WalletRequest } from "@/lib/payments/payment";
import type { PaymentStatus } from "@/lib/protocol/lines";

export function toPaymentStatus({ facts, stage, approval, txHash, explorerUrl, reason, collectableUntil, warnings, networkChoice, receipt }: PaymentUpdate): PaymentStatus {
  const { asset } = facts.network;
  const total = totalOf(facts);
  return {
    paymentId: facts.paymentId,
    status: stage,
    service: facts.service,
    network: facts.network.id,
    chain: facts.network.name,
    asset: { symbol: asset.symbol, address: asset.address, decimals: asset.decimals },
    amount: {
      serviceFee: formatUnits(facts.amount, asset.decimals),
      gasFee: formatUnits(facts.network.payerFee, asset.decimals),
      total: formatUnits(total, asset.decimals),
      currency: "USDC",
      // USDC is counted 1:1 with the dollar.
      usd: formatUsd(total),
      ...(facts.upTo ? { upTo: true as const } : {}),
      ...(facts.typical === undefined ? {} : { typical: formatUnits(facts.typical, asset.decimals) }),
      ...(facts.settledAmount === undefined ? {} : { charged: formatUnits(facts.settledAmount, asset.decimals) }),
    },
    payTo: facts.payTo,
    protocol: facts.protocol.name,
    protocolLabel: facts.protocol.label,
    ...(facts.paidFrom ? { paidFrom: facts.paidFrom } : {}),
    ...(facts.channel
      ? {
          channel: {
            opening: facts.channel.opening,
            price: formatUnits(facts.channel.price, asset.decimals),
            deposit: formatUnits(facts.channel.deposit, asset.decimals),
            left: formatUnits(facts.channel.left, asset.decimals),
            withdrawDelaySeconds: facts.channel.withdrawDelaySeconds,
            ...(facts.channel.confirm ? { confirm: true as const } : {}),
          },
        }
      : {}),
    ...(warnings && warnings.length > 0 ? { warnings } : {}),
    ...(networkChoice ? { networkChoice } : {}),
    ...(approval
      ? {
          approval: {
            toSign: approval.toSign,
            // Deprecated: the payment's own request, as clients read it before the list.
            ...deprecatedFormOf(approval.toSign.at(-1)),
            token: approval.token,
            expiresAt: approval.expiresAt.toISOString(),
          },
        }
      : {}),
    ...(txHash ? { txHash } : {}),
    ...(explorerUrl ? { explorerUrl } : {}),
    ...(reason ? { reason } : {}),
    ...(collectableUntil ? { collectableUntil: collectableUntil.toISOString() } : {}),
    ...(receipt ? { receipt } : {}),
  };
}

function deprecatedFormOf(request: WalletRequest | undefined): { typedData: unknown } | { transaction: string } | Record<string, never> {
  if (!request) return {};
  return request.kind === "transaction" ? { transaction: request.transaction } : { typedData: request.typedData };
}
