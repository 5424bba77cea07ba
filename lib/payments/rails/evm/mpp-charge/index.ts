// The Machine Payments Protocol's `evm` charge on the EVM rail (docs/contract.md, section 12): the
// same EIP-3009 `transferWithAuthorization` as x402 `exact`, signed by the payer's wallet as
// EIP-712 typed data, with two differences the protocol makes: its nonce is the challenge's hash
// (mppx's `challengeHash`, so the authorization answers that challenge and no other), and it is
// collectable until the challenge expires (never past MAX_AUTHORIZATION_SECONDS). The options come
// from lib/mpp/charge.ts; what is signed is checked, completed and looked for on chain as `exact`
// does it (the chain's `authorizationState` and `AuthorizationUsed` event know no protocol).
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { challengeHash } from "mppx/evm";
import { getAddress, isAddress, isAddressEqual, recoverTypedDataAddress, type Hex } from "viem";
import { findNetwork, isEnabled } from "@/lib/chain/networks";
import { transferWithAuthorizationTypes, typedDataMessage, type TypedDataForWallet } from "@/lib/chain/typed-data";
import { challengeOf, MPP_EVM_CHARGE, type MppChargeExtra } from "@/lib/mpp/charge";
import { MAX_AUTHORIZATION_SECONDS, type PaymentScheme, type RailEnv, type RequirementVerdict } from "../../rail";
import { evmPayer, paymentNetworkOf } from "..";
import { createExactEvmScheme } from "../exact";
import { authorizationRequest, authorizationSignature, authorizationTypedData, UNSIGNED } from "../exact/prepare";
import { caip2Of } from "../exact/requirement";

const MAX_UINT256 = 2n ** 256n - 1n;
const ATOMIC = /^\d{1,78}$/;

export function createMppChargeEvmScheme(env: RailEnv): PaymentScheme {
  // Checking the wallet's signature, completing the payload and asking the chain are exact's.
  const exact = createExactEvmScheme(env);
  return {
    scheme: MPP_EVM_CHARGE,
    check(requirements: PaymentRequirements): RequirementVerdict {
      const refuse = (reason: string): RequirementVerdict => ({ payable: false, reason });
      if (typeof requirements !== "object" || requirements === null) return refuse("the payment option is not an object");
      const { scheme, network: named, asset, payTo, amount: asked, extra } = requirements as Partial<Record<keyof PaymentRequirements, unknown>>;
      if (scheme !== MPP_EVM_CHARGE) return refuse(`scheme ${String(scheme)} is not supported`);
      const id = caip2Of(named, 2);
      const network = id && isEnabled(id, env) ? findNetwork(id, env) : undefined;
      if (!network) return refuse(`the MPP charge's chain ${String(named)} is not one this agent pays on`);
      if (typeof asset !== "string" || asset.toLowerCase() !== network.usdc.address.toLowerCase()) {
        return refuse(`the MPP charge's currency ${String(asset).slice(0, 60)} is not USDC on ${network.name}`);
      }
      if (typeof asked !== "string" || !ATOMIC.test(asked) || BigInt(asked) === 0n || BigInt(asked) > MAX_UINT256) {
        return refuse("the MPP charge's amount is not a positive whole number of atomic units");
      }
      const amount = BigInt(asked);
      if (typeof payTo !== "string" || !isAddress(payTo)) return refuse("the MPP charge's recipient is not an address");
      const splits = (extra as MppChargeExtra | undefined)?.splits;
      if (splits !== undefined && splits.length > 0) {
        const total = splits.reduce((sum, split) => sum + (typeof split.amount === "string" && ATOMIC.test(split.amount) ? BigInt(split.amount) : MAX_UINT256), 0n);
        if (total > amount || splits.some((split) => typeof split.recipient !== "string" || !isAddress(split.recipient))) {
          return refuse("the MPP charge's splits do not add up within its amount, or name no address");
        }
        return refuse("the MPP charge splits its amount among several recipients, which one EIP-3009 authorization cannot pay");
      }
      return { payable: true, requirements, network: paymentNetworkOf(network), amount, asset: getAddress(network.usdc.address), payTo: getAddress(payTo) };
    },
    async prepare({ requirement, payer }) {
      const challenge = challengeOf(requirement.requirements);
      if (!challenge) throw new Error("an MPP charge option without its challenge");
      const network = findNetwork(requirement.network.id, env);
      if (!network) throw new Error(`${requirement.network.id} is not an EVM network known here`);
      const now = Math.floor(Date.now() / 1000);
      const expires = (requirement.requirements.extra as MppChargeExtra | undefined)?.expires;
      const validBefore = Math.min(typeof expires === "number" ? expires : now, now + MAX_AUTHORIZATION_SECONDS);
      if (validBefore <= now) throw new Error("the MPP challenge has expired");
      const nonce = challengeHash(challenge);
      const authorization = { from: getAddress(evmPayer(payer)), to: getAddress(requirement.payTo), value: requirement.amount.toString(), validAfter: "0", validBefore: String(validBefore), nonce };
      const typedData: TypedDataForWallet = {
        domain: { name: network.usdc.name, version: network.usdc.version, chainId: network.chainId, verifyingContract: getAddress(network.usdc.address) },
        types: { TransferWithAuthorization: [...transferWithAuthorizationTypes.TransferWithAuthorization] },
        primaryType: "TransferWithAuthorization",
        message: authorization,
      };
      // The payload in x402's form, as exact's checks read it; lib/mpp/service-call.ts turns it into the credential.
      const unsignedPayload: PaymentPayload = { x402Version: 2, accepted: requirement.requirements, payload: { authorization, signature: UNSIGNED } };
      // The same EIP-3009 exposure as x402 `exact`: the value, once, until validBefore.
      return { exposure: { amount: requirement.amount, instrument: nonce, until: validBefore }, toSign: [authorizationRequest(typedData)], unsignedPayload };
    },
    async verify(payment) {
      const verdict = await exact.verify(payment);
      if (!verdict.valid) return verdict;
      // mppx's server takes a key's signature only (it recovers the signer, and never asks a
      // contract, ERC-1271, or deploys one, ERC-6492): a smart account's approval, good on chain,
      // would be refused by the service after the amount was reserved. Said now instead.
      let signer: string | undefined;
      try {
        const typedData = authorizationTypedData(payment.prepared);
        signer = await recoverTypedDataAddress({ ...typedData, message: typedDataMessage(typedData), signature: authorizationSignature(payment.signed) });
      } catch {
        signer = undefined;
      }
      if (signer && isAddressEqual(signer as Hex, evmPayer(payment.payer))) return verdict;
      return {
        valid: false,
        why: {
          message: `MPP services check a wallet key's own signature only, and ${payment.payer} signed as a smart account (ERC-1271 or ERC-6492): pay this service from a key wallet, or choose an x402 service. Nothing was reserved or paid.`,
          field: "a smart account's signature, which MPP services do not accept",
        },
      };
    },
    complete: (prepared, signed) => exact.complete(prepared, signed),
    paymentState: (parameters) => exact.paymentState(parameters),
  };
}
