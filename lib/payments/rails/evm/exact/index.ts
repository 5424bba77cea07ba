// x402 `exact` on EVM, the EVM rail's first scheme: paid with an EIP-3009 authorization that the
// payer's wallet signs as EIP-712 typed data (key wallets, ERC-1271 smart accounts, ERC-6492
// counterfactual ones, and the agent budget's session key), collected by the facilitator, which
// pays the gas. The x402 packages build the payload (./prepare.ts); the chain says whether the
// authorization was used (its `authorizationState` and `AuthorizationUsed` event).
import type { PaymentRequirements } from "@x402/core/types";
import { getAddress, type Hex } from "viem";
import { getAuthorizationState, usedInTransaction } from "@/lib/chain/authorization";
import type { PaymentScheme, RailEnv, RequirementVerdict } from "../../rail";
import { evmNetworkConfig, evmPayer, paymentNetworkOf } from "..";
import { authorizationSignature, authorizationTypedData, prepareEvmPayment, withSignature } from "./prepare";
import { checkRequirement } from "./requirement";
import { verifyEvmApproval } from "./verify";

export function createExactEvmScheme(env: RailEnv): PaymentScheme {
  const configOf = evmNetworkConfig(env);
  return {
    scheme: "exact",
    check(requirements: PaymentRequirements, x402Version): RequirementVerdict {
      const check = checkRequirement(requirements, env, x402Version === undefined ? {} : { x402Version });
      if (!check.payable) return check;
      return { ...check, network: paymentNetworkOf(check.network) };
    },
    prepare({ paymentRequired, requirement, payer }) {
      return prepareEvmPayment({ paymentRequired, requirements: requirement.requirements, payer: evmPayer(payer) });
    },
    verify({ network, payer, amount, prepared, signed }) {
      return verifyEvmApproval({
        network: configOf(network),
        payer,
        amount,
        nonce: prepared.exposure.instrument,
        typedData: authorizationTypedData(prepared),
        unsignedPayload: prepared.unsignedPayload,
        signature: signed[0] ?? "",
      });
    },
    complete(prepared, signed) {
      return withSignature(prepared.unsignedPayload, authorizationSignature(signed));
    },
    async paymentState({ network, payer, instrument, until, from: fromBlock, claimed }) {
      const nonce = instrument as Hex;
      // A service's claim is checked first, on its own receipt: one read when it is true.
      if (claimed && (await usedInTransaction({ network: configOf(network), authorizer: evmPayer(payer), nonce, txHash: claimed }))) {
        return { state: "used", txHash: claimed };
      }
      const state = await getAuthorizationState({
        network: configOf(network),
        authorizer: getAddress(payer),
        nonce,
        validBefore: until ? Math.floor(until.getTime() / 1000) : undefined,
        fromBlock,
      });
      if (state.state === "used") return { state: "used", txHash: state.txHash };
      if (state.state === "canceled") return { state: "canceled" };
      return { state: "unused", expired: state.expired };
    },
  };
}
