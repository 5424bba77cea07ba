// The EVM rail: what `eip155:*` networks have whatever the x402 scheme. Their USDC and where
// their transactions are shown (lib/chain/networks.ts), a payer's balance and the chain's block
// (through lib/chain, viem), the agent budget's grant (an EIP-712 signature of the wallet's, key
// or smart account), and EIP-55 addresses. Its schemes are folders beside this file (./exact/),
// registered for `eip155:*` in ../index.ts.
import { getAddress, isAddress, type Hex } from "viem";
import { isEvmAddress } from "@/lib/chain/addresses";
import { getLatestBlockNumber } from "@/lib/chain/authorization";
import { getUsdcBalance } from "@/lib/chain/clients";
import { explorerTxUrl, findNetwork, type NetworkConfig } from "@/lib/chain/networks";
import type { PaymentNetwork } from "../../payment";
import type { PaymentRail, RailEnv } from "../rail";
import { verifyEvmGrant } from "./verify";

export const EVM_NAMESPACE = "eip155";

export function createEvmRail(env: RailEnv): PaymentRail {
  const configOf = evmNetworkConfig(env);
  return {
    namespace: EVM_NAMESPACE,
    network(id) {
      // Known here, enabled or not: a payment recorded on a network since disabled is still told and reconciled.
      const config = findNetwork(id, env);
      return config ? paymentNetworkOf(config) : undefined;
    },
    balance(network, owner) {
      return getUsdcBalance({ network: configOf(network), owner: evmPayer(owner) });
    },
    checkpoint(network) {
      return getLatestBlockNumber({ network: configOf(network) });
    },
    verifyGrant(grant, network) {
      return verifyEvmGrant(grant, configOf(network));
    },
    formatAddress(address) {
      return isAddress(address, { strict: false }) ? getAddress(address) : undefined;
    },
  };
}

/** The chain's configuration behind a network the core holds. */
export function evmNetworkConfig(env: RailEnv): (network: Pick<PaymentNetwork, "id">) => NetworkConfig {
  return (network) => {
    const config = findNetwork(network.id, env);
    if (!config) throw new Error(`${network.id} is not an EVM network known here`);
    return config;
  };
}

/** A payer's address as the chain takes it. */
export function evmPayer(address: string): Hex {
  if (!isEvmAddress(address)) throw new Error("not an EVM address");
  return address;
}

/** In x402's schemes on EVM the facilitator submits the transfer and pays its gas. */
const PAYER_GAS_FEE = 0n;

export function paymentNetworkOf(config: NetworkConfig): PaymentNetwork {
  return {
    id: config.id,
    name: config.name,
    testnet: config.testnet,
    asset: { symbol: "USDC", address: config.usdc.address, decimals: config.usdc.decimals },
    payerFee: PAYER_GAS_FEE,
    readable: config.rpcUrl !== undefined,
    transactionUrl: explorerTxUrl(config, "{txHash}"),
  };
}
