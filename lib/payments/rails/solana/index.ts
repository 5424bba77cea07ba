// The Solana rail (docs/contract.md, section 10): what `solana:*` networks have whatever the x402
// scheme. Their USDC mint and where their transactions are shown (lib/chain/solana.ts), a payer's
// USDC balance and the chain's slot, and base58 addresses; the agent budget pays on EVM only. Its
// schemes are folders beside this file (./exact/), registered for `solana:*` in ../index.ts.
import { findSolanaNetwork, getSolanaSlot, getSolanaUsdcBalance, isSolanaAddress, type SolanaNetworkConfig } from "@/lib/chain/solana";
import type { PaymentNetwork } from "../../payment";
import type { PaymentRail, RailEnv } from "../rail";

export const SOLANA_NAMESPACE = "solana";

export function createSolanaRail(env: RailEnv): PaymentRail {
  const configOf = solanaNetworkConfig(env);
  return {
    namespace: SOLANA_NAMESPACE,
    network(id) {
      const config = findSolanaNetwork(id, env);
      return config ? paymentNetworkOf(config) : undefined;
    },
    async balance(network, owner) {
      // No USDC account at all holds nothing: an insufficient balance, said as such.
      return (await getSolanaUsdcBalance({ network: configOf(network), owner })) ?? 0n;
    },
    checkpoint(network) {
      return getSolanaSlot({ network: configOf(network) });
    },
    async verifyGrant() {
      // The agent budget pays on EVM networks only.
      return false;
    },
    formatAddress(value) {
      return isSolanaAddress(value) ? value : undefined;
    },
  };
}

/** The chain's configuration behind a network the core holds. */
export function solanaNetworkConfig(env: RailEnv): (network: Pick<PaymentNetwork, "id">) => SolanaNetworkConfig {
  return (network) => {
    const config = findSolanaNetwork(network.id, env);
    if (!config) throw new Error(`${network.id} is not a Solana network known here`);
    return config;
  };
}

export function paymentNetworkOf(config: SolanaNetworkConfig): PaymentNetwork {
  return {
    id: config.id,
    name: config.name,
    testnet: config.testnet,
    asset: { symbol: "USDC", address: config.usdc.mint, decimals: config.usdc.decimals },
    // The facilitator pays the transaction's fee, as fee payer.
    payerFee: 0n,
    readable: config.rpcUrl !== undefined,
    transactionUrl: config.transactionUrl,
  };
}
