// The EVM rail: x402 `exact` on `eip155:*` networks, paid with an EIP-3009 authorization that
// the payer's wallet signs as EIP-712 typed data (key wallets, ERC-1271 smart accounts, ERC-6492
// counterfactual ones, and the agent budget's session key), collected by the facilitator, which
// pays the gas. The chain is read through lib/chain (viem); the x402 packages build the payload.
import type { PaymentRequirements } from "@x402/core/types";
import { getAddress, isAddress, type Hex } from "viem";
import { isEvmAddress } from "@/lib/address";
import { getAuthorizationState, getLatestBlockNumber, usedInTransaction } from "@/lib/chain/authorization";
import { getUsdcBalance } from "@/lib/chain/clients";
import { explorerTxUrl, findNetwork, type NetworkConfig } from "@/lib/chain/networks";
import type { TypedDataForWallet } from "@/lib/chain/typed-data";
import { checkRequirement, type RequirementsEnv } from "@/lib/x402/requirements";
import type { PaymentNetwork } from "../../payment";
import type { PaymentRail, RequirementVerdict } from "../rail";
import { prepareEvmPayment, withSignature } from "./prepare";
import { verifyEvmApproval, verifyEvmGrant } from "./verify";

export const EVM_NAMESPACE = "eip155";

/** In x402's exact scheme on EVM the facilitator submits the transfer and pays its gas. */
const PAYER_GAS_FEE = 0n;

export function createEvmRail(env: RequirementsEnv): PaymentRail {
  /** The chain's configuration behind a network the core holds. */
  const configOf = (network: Pick<PaymentNetwork, "id">): NetworkConfig => {
    const config = findNetwork(network.id, env);
    if (!config) throw new Error(`${network.id} is not an EVM network known here`);
    return config;
  };
  const payer = (address: string): Hex => {
    if (!isEvmAddress(address)) throw new Error("not an EVM address");
    return address;
  };

  return {
    namespace: EVM_NAMESPACE,
    network(id) {
      // Known here, enabled or not: a payment recorded on a network since disabled is still told and reconciled.
      const config = findNetwork(id, env);
      return config ? paymentNetworkOf(config) : undefined;
    },
    check(requirements: PaymentRequirements, x402Version): RequirementVerdict {
      const check = checkRequirement(requirements, env, x402Version === undefined ? {} : { x402Version });
      if (!check.payable) return check;
      return { ...check, network: paymentNetworkOf(check.network) };
    },
    prepare({ paymentRequired, requirement, payer: from }) {
      return prepareEvmPayment({ paymentRequired, requirements: requirement.requirements, payer: payer(from) });
    },
    verify({ network, payer: from, amount, prepared, signed }) {
      return verifyEvmApproval({
        network: configOf(network),
        payer: from,
        amount,
        nonce: prepared.nonce,
        typedData: prepared.toSign as TypedDataForWallet,
        unsignedPayload: prepared.unsignedPayload,
        signature: signed,
      });
    },
    complete(prepared, signed) {
      return withSignature(prepared.unsignedPayload, signed as Hex);
    },
    balance(network, owner) {
      return getUsdcBalance({ network: configOf(network), owner: payer(owner) });
    },
    checkpoint(network) {
      return getLatestBlockNumber({ network: configOf(network) });
    },
    async paymentState({ network, payer: from, nonce, validBefore, from: fromBlock, claimed }) {
      // A service's claim is checked first, on its own receipt: one read when it is true.
      if (claimed && (await usedInTransaction({ network: configOf(network), authorizer: payer(from), nonce: nonce as Hex, txHash: claimed }))) {
        return { state: "used", txHash: claimed };
      }
      const state = await getAuthorizationState({
        network: configOf(network),
        authorizer: getAddress(from),
        nonce: nonce as Hex,
        validBefore: validBefore ? Math.floor(validBefore.getTime() / 1000) : undefined,
        fromBlock,
      });
      if (state.state === "used") return { state: "used", txHash: state.txHash };
      if (state.state === "canceled") return { state: "canceled" };
      return { state: "unused", expired: state.expired };
    },
    verifyGrant(grant, network) {
      return verifyEvmGrant(grant, configOf(network));
    },
    formatAddress(address) {
      return isAddress(address, { strict: false }) ? getAddress(address) : undefined;
    },
  };
}

function paymentNetworkOf(config: NetworkConfig): PaymentNetwork {
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
