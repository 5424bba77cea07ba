// Whether an `exact` requirement can be paid on Solana here (docs/contract.md, section 10): the
// rule that discovery and quotes both follow, through the rails' registry (../../index.ts).
import type { PaymentRequirements } from "@x402/core/types";
import { findSolanaNetwork, isSolanaAddress, type SolanaNetworkConfig } from "@/lib/chain/solana";
import type { RailEnv } from "../../rail";

/** A Solana requirement that can be paid here, with its fields read. */
export type PayableSolanaRequirement = {
  requirements: PaymentRequirements;
  network: SolanaNetworkConfig;
  amount: bigint;
  asset: string;
  payTo: string;
  /** The facilitator that pays the transaction's fee and adds its signature. */
  feePayer: string;
};

/**
 * Whether a Solana `exact` requirement can be paid here: an enabled Solana network (x402 v2's
 * CAIP-2 spelling), its USDC mint, a positive whole amount within u64, a payee and a fee payer
 * that are Solana addresses, and a fee payer that is neither the payee nor, when `payer` is
 * known, the paying wallet.
 */
export function checkSolanaRequirement(
  requirements: PaymentRequirements,
  env: RailEnv,
  { x402Version, payer }: { x402Version?: number; payer?: string } = {},
): ({ payable: true } & PayableSolanaRequirement) | { payable: false; reason: string } {
  const refuse = (reason: string) => ({ payable: false as const, reason });
  if (typeof requirements !== "object" || requirements === null) return refuse("the payment option is not an object");
  const { scheme, network: named, asset, payTo, amount, extra } = requirements as Partial<Record<keyof PaymentRequirements, unknown>>;
  if (scheme !== "exact") return refuse(`scheme ${String(scheme)} is not supported`);
  // x402 v1 names Solana networks (`solana-devnet`); its SVM scheme is not paid here.
  if (x402Version === 1) return refuse(`network ${String(named)} is not enabled here (Solana is paid through x402 v2)`);
  const network = typeof named === "string" && env.X402_NETWORKS.includes(named) ? findSolanaNetwork(named, env) : undefined;
  if (!network) return refuse(`network ${String(named)} is not enabled here`);
  if (asset !== network.usdc.mint) return refuse(`asset ${String(asset)} is not USDC on ${network.name}`);
  if (typeof amount !== "string" || !/^\d{1,20}$/.test(amount) || BigInt(amount) === 0n || BigInt(amount) > 2n ** 64n - 1n) {
    return refuse("the amount is not a positive whole number of atomic units");
  }
  if (!isSolanaAddress(payTo)) return refuse("payTo is not a Solana address");
  const feePayer = (extra as { feePayer?: unknown } | null | undefined)?.feePayer;
  if (!isSolanaAddress(feePayer)) return refuse("the requirements name no fee payer (extra.feePayer)");
  // The fee payer signs first and pays the network fee: in x402 it is the facilitator, which
  // checks the payment and sends it. The payee in its place would be its own judge; the paying
  // wallet in its place would pay the fee itself, and its one signature would complete the
  // transaction, for whoever holds it to send at any time.
  if (feePayer === payTo) return refuse("the fee payer (extra.feePayer) is the payee itself, not a facilitator");
  if (payer !== undefined && feePayer === payer) {
    return refuse("the fee payer (extra.feePayer) is the paying wallet itself: it would pay the network fee, and its signature alone would complete the transaction");
  }
  return { payable: true, requirements, network, amount: BigInt(amount), asset: network.usdc.mint, payTo, feePayer };
}
