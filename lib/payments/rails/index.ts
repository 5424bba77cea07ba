// The rails this server pays on, by CAIP-2 namespace: the one list a new chain family joins.
// The payment core finds a payment's rail here from its network id, and the rail that can pay a
// service's requirement; it never names a namespace itself.
import type { PaymentRequirements } from "@x402/core/types";
import type { RequirementsEnv } from "@/lib/x402/requirements";
import type { PaymentNetwork } from "../payment";
import { createEvmRail } from "./evm";
import { createSolanaRail } from "./solana";
import type { PaymentRail, RequirementVerdict } from "./rail";

export type RailEnv = RequirementsEnv;

export type PaymentRails = {
  /** The rail of a CAIP-2 network id and the network as the core shows it, if this server knows it. */
  find(networkId: string): { rail: PaymentRail; network: PaymentNetwork } | undefined;
  /**
   * The rail that can pay a requirement, or why none can (the reason of the rail it names, else
   * the first). `payers`: who would pay, one address for any rail or one per rail namespace;
   * each rail holds the requirement to its own payer.
   */
  check(
    requirements: PaymentRequirements,
    x402Version?: number,
    payers?: string | Readonly<Record<string, string>>,
  ): ({ rail: PaymentRail } & Extract<RequirementVerdict, { payable: true }>) | { payable: false; reason: string };
};

const byEnv = new WeakMap<RailEnv, PaymentRails>();

/** The rails for this configuration, made once per configuration object. */
export function paymentRails(env: RailEnv): PaymentRails {
  let rails = byEnv.get(env);
  if (!rails) {
    rails = railsOf([createEvmRail(env), createSolanaRail(env)]);
    byEnv.set(env, rails);
  }
  return rails;
}

function railsOf(list: readonly PaymentRail[]): PaymentRails {
  const byNamespace = new Map(list.map((rail) => [rail.namespace, rail]));
  return {
    find(networkId) {
      const rail = byNamespace.get(namespaceOf(networkId));
      const network = rail?.network(networkId);
      return rail && network ? { rail, network } : undefined;
    },
    check(requirements, x402Version, payers) {
      const named = typeof requirements?.network === "string" ? byNamespace.get(namespaceOf(requirements.network)) : undefined;
      let refusal: string | undefined;
      // A v1 requirement names its network without a namespace (`base-sepolia`): each rail is asked.
      for (const rail of named ? [named] : list) {
        const verdict = rail.check(requirements, x402Version, typeof payers === "string" ? payers : payers?.[rail.namespace]);
        if (verdict.payable) return { rail, ...verdict };
        refusal ??= verdict.reason;
      }
      return { payable: false, reason: refusal ?? `network ${String(requirements?.network)} is not enabled here` };
    },
  };
}

/** The namespace of a CAIP-2 id (what stands before its colon); a name without one is its own. */
export function namespaceOf(networkId: string): string {
  const colon = networkId.indexOf(":");
  return colon === -1 ? networkId : networkId.slice(0, colon);
}
