// x402 `upto` on EVM, usage-priced: the payer's wallet signs a Permit2 witness transfer of at
// most a maximum (EIP-712 typed data; ./prepare.ts builds it with @x402/evm's upto client), the
// facilitator the witness names collects what the service used through the x402 upto proxy, and
// the chain says how much: the payment is used when Permit2's nonce bitmap marks its nonce, and
// what it cost is the token's Transfer in the proxy's settle of that nonce (lib/chain/permit2.ts).
// Requirements are held to what `exact`'s are, plus the facilitator the witness names
// (./requirement.ts); the limits are held to the maximum, which the core reserves and then
// releases down to what the chain shows settled.
import type { PaymentRequirements } from "@x402/core/types";
import { getAddress } from "viem";
import { getPermit2Allowance, getUptoPaymentState, uptoSettlementIn } from "@/lib/chain/permit2";
import type { PaymentScheme, RailEnv, RequirementVerdict } from "../../rail";
import { evmNetworkConfig, evmPayer, paymentNetworkOf } from "..";
import { PERMIT_REQUEST, permit2Approval, prepareUptoPayment, uptoAnswers, uptoRequests, withUptoSignatures } from "./prepare";
import { checkUptoRequirement } from "./requirement";
import { verifyUptoApproval } from "./verify";

const NOT_APPROVED =
  "Usage-priced payments move USDC through Permit2, which this wallet has not approved yet. Approve Permit2 once (one transaction, with its own gas), then ask again.";

export function createUptoEvmScheme(env: RailEnv): PaymentScheme {
  const configOf = evmNetworkConfig(env);
  /** Whether the payer's USDC allowance to Permit2 is below the amount; false when the chain cannot be asked (the facilitator then decides). */
  const permit2Missing = async (network: Parameters<typeof configOf>[0], payer: string, amount: bigint): Promise<boolean> => {
    try {
      return (await getPermit2Allowance({ network: configOf(network), owner: evmPayer(payer) })) < amount;
    } catch {
      return false;
    }
  };
  return {
    scheme: "upto",
    usagePriced: true,
    check(requirements: PaymentRequirements, x402Version): RequirementVerdict {
      const check = checkUptoRequirement(requirements, env, x402Version === undefined ? {} : { x402Version });
      if (!check.payable) return check;
      return { ...check, network: paymentNetworkOf(check.network) };
    },
    async readiness({ network, payer, amount, prepared }) {
      // A quote that asks the wallet for a gasless EIP-2612 permit for Permit2 needs nothing first.
      if (prepared && uptoRequests(prepared).permit) return undefined;
      if (!(await permit2Missing(network, payer, amount))) return undefined;
      return { message: `${NOT_APPROVED} Nothing was reserved or paid.`, remedy: permit2Approval(configOf(network).usdc.address) };
    },
    remedyFor(network) {
      return permit2Approval(configOf(network).usdc.address);
    },
    prepare({ paymentRequired, requirement, payer }) {
      return prepareUptoPayment({ paymentRequired, requirements: requirement.requirements, payer: evmPayer(payer), network: configOf(requirement.network) });
    },
    async verify({ network, payer, amount, prepared, signed }) {
      const asked = uptoRequests(prepared);
      const answers = uptoAnswers(prepared, signed);
      // A quote that asked for a permit, answered without one: paid only if the wallet has
      // approved Permit2 itself since (the page's "Approve Permit2"); otherwise the same words as
      // a quote that could not ask, before anything is reserved.
      if (asked.permit && answers.permit === undefined && (await permit2Missing(network, payer, amount))) {
        return { valid: false, why: { message: NOT_APPROVED, field: "is missing: this wallet has not approved Permit2", request: PERMIT_REQUEST } };
      }
      return verifyUptoApproval({
        network: configOf(network),
        payer,
        amount,
        nonce: prepared.exposure.instrument,
        typedData: asked.transfer,
        unsignedPayload: prepared.unsignedPayload,
        signature: answers.transfer ?? "",
        ...(asked.permit && answers.permit !== undefined ? { permit: { typedData: asked.permit, signature: answers.permit } } : {}),
      });
    },
    complete(prepared, signed) {
      const answers = uptoAnswers(prepared, signed);
      if (answers.transfer === undefined) throw new Error("an upto payment without its signature");
      return withUptoSignatures(prepared.unsignedPayload, answers.transfer, answers.permit);
    },
    async paymentState({ network, payer, payTo, instrument: nonce, until, from: fromBlock, claimed }) {
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
        deadline: until ? Math.floor(until.getTime() / 1000) : undefined,
        fromBlock,
      });
      if (state.state === "used") {
        return state.settlement ? { state: "used", txHash: state.settlement.txHash, amount: state.settlement.amount } : { state: "used", txHash: undefined };
      }
      return { state: "unused", expired: state.expired };
    },
  };
}

