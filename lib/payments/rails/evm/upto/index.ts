// x402 `upto` on EVM, usage-priced: the payer's wallet signs a Permit2 witness transfer of at
// most a maximum (EIP-712 typed data; ./prepare.ts builds it with @x402/evm's upto client), the
// facilitator the witness names collects what the service used through the x402 upto proxy, and
// the chain says how much: the payment is used when Permit2's nonce bitmap marks its nonce, and
// what it cost is the token's Transfer in the proxy's settle of that nonce (lib/chain/permit2.ts).
// Requirements are held to what `exact`'s are, plus the facilitator the witness names
// (./requirement.ts); the limits are held to the maximum, which the core reserves and then
// releases down to what the chain shows settled.
import type { PaymentRequirements } from "@x402/core/types";
import { getAddress, type Hex } from "viem";
import { getPermit2Allowance, getUptoPaymentState, uptoSettlementIn } from "@/lib/chain/permit2";
import type { NestedTypedDataForWallet } from "@/lib/chain/typed-data";
import type { PaymentScheme, RailEnv, RequirementVerdict } from "../../rail";
import { evmNetworkConfig, evmPayer, paymentNetworkOf } from "..";
import { prepareUptoPayment, withUptoSignature } from "./prepare";
import { checkUptoRequirement } from "./requirement";
import { verifyUptoApproval } from "./verify";

export function createUptoEvmScheme(env: RailEnv): PaymentScheme {
  const configOf = evmNetworkConfig(env);
  return {
    scheme: "upto",
    usagePriced: true,
    check(requirements: PaymentRequirements, x402Version): RequirementVerdict {
      const check = checkUptoRequirement(requirements, env, x402Version === undefined ? {} : { x402Version });
      if (!check.payable) return check;
      return { ...check, network: paymentNetworkOf(check.network) };
    },
    async readiness({ network, payer, amount }) {
      try {
        const allowance = await getPermit2Allowance({ network: configOf(network), owner: evmPayer(payer) });
        if (allowance >= amount) return undefined;
      } catch {
        return undefined;
      }
      return "Usage-priced payments move USDC through Permit2, which this wallet has not approved yet. Approve Permit2 once (one transaction, with its own gas), then ask again. Nothing was reserved or paid.";
    },
    prepare({ paymentRequired, requirement, payer }) {
      return prepareUptoPayment({ paymentRequired, requirements: requirement.requirements, payer: evmPayer(payer) });
    },
    verify({ network, payer, amount, prepared, signed }) {
      return verifyUptoApproval({
        network: configOf(network),
        payer,
        amount,
        nonce: prepared.nonce,
        typedData: prepared.toSign as NestedTypedDataForWallet,
        unsignedPayload: prepared.unsignedPayload,
        signature: signed,
      });
    },
    complete(prepared, signed) {
      return withUptoSignature(prepared.unsignedPayload, signed as Hex);
    },
    async paymentState({ network, payer, payTo, nonce, validBefore, from: fromBlock, claimed }) {
      const config = configOf(network);
      const owner = evmPayer(payer);
      const payee = getAddress(payTo);
      // A service's claim is checked first, on its own transaction: one read when it is true.
      if (claimed) {
        const settlement = await uptoSettlementIn({ network: config, owner, nonce, payTo: payee, txHash: claimed });
        if (settlement) return { state: "used", txHash: settlement.txHash, amount: settlement.amount };
      }
      const state = await getUptoPaymentState({
        network: config,
        owner,
        nonce,
        payTo: payee,
        deadline: validBefore ? Math.floor(validBefore.getTime() / 1000) : undefined,
        fromBlock,
      });
      if (state.state === "used") {
        return state.settlement ? { state: "used", txHash: state.settlement.txHash, amount: state.settlement.amount } : { state: "used", txHash: undefined };
      }
      return { state: "unused", expired: state.expired };
    },
  };
}
