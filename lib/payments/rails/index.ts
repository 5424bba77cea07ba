// The rails this server pays on and their x402 schemes, keyed by CAIP-2 namespace and scheme
// name, as the x402 packages' x402Client registers a scheme client for a network pattern. The
// one list a new chain family or a new scheme joins (`register`, below). The payment core finds
// here a payment's rail and scheme from its network id and scheme name, and the scheme that can
// pay a service's requirement; discovery lists what can be paid by the same rule. It never names
// a namespace or a scheme itself.
import type { PaymentRequirements } from "@x402/core/types";
import type { PaymentNetwork } from "../payment";
import { createEvmRail } from "./evm";
import { createChannelEvmScheme } from "./evm/channel";
import { createExactEvmScheme } from "./evm/exact";
import { createMppChargeEvmScheme } from "./evm/mpp-charge";
import { createUptoEvmScheme } from "./evm/upto";
import type { NetworkPattern, PaymentRail, PaymentScheme, RailEnv, RequirementVerdict } from "./rail";

export { FIRST_SCHEME } from "./rail";
import { createSolanaRail } from "./solana";
import { createExactSolanaScheme } from "./solana/exact";

export type { RailEnv } from "./rail";


/** A rail's scheme that can pay a requirement, and the requirement read. */
export type PayableOption = { rail: PaymentRail; scheme: PaymentScheme } & Extract<RequirementVerdict, { payable: true }>;

export type PaymentRails = {
  /** The rail of a CAIP-2 network id and the network as the core shows it, if this server knows it. */
  find(networkId: string): { rail: PaymentRail; network: PaymentNetwork } | undefined;
  /** The same with one of the rail's schemes, for a payment made (or to be made) in it. */
  findScheme(networkId: string, scheme: string): { rail: PaymentRail; scheme: PaymentScheme; network: PaymentNetwork } | undefined;
  /**
   * The scheme that can pay a requirement, or why none can (the reason of the rail the network
   * names, else the first's). `payers`: who would pay, one address for any rail or one per rail
   * namespace; each scheme holds the requirement to its own rail's payer.
   */
  check(requirements: PaymentRequirements, x402Version?: number, payers?: string | Readonly<Record<string, string>>): PayableOption | { payable: false; reason: string };
};

/** The rails and schemes of this configuration: each scheme registered for its rail's network pattern. */
function registryFor(env: RailEnv): PaymentRails {
  const evm = createEvmRail(env);
  const solana = createSolanaRail(env);
  return new RailRegistry()
    .register("eip155:*", evm, createExactEvmScheme(env))
    // The Machine Payments Protocol's `evm` charge: the same EIP-3009 authorization, answering an MPP challenge.
    .register("eip155:*", evm, createMppChargeEvmScheme(env))
    .register("eip155:*", evm, createUptoEvmScheme(env))
    // Pay-as-you-go channels (x402 `batch-settlement`): one deposit, then vouchers the page's channel key signs.
    .register("eip155:*", evm, createChannelEvmScheme(env))
    .register("solana:*", solana, createExactSolanaScheme(env))
    .rails();
}

const byEnv = new WeakMap<RailEnv, PaymentRails>();

/** The rails for this configuration, made once per configuration object. */
export function paymentRails(env: RailEnv): PaymentRails {
  let rails = byEnv.get(env);
  if (!rails) {
    rails = registryFor(env);
    byEnv.set(env, rails);
  }
  return rails;
}

/** Whether any rail this product pays on can pay the requirement: what a listing shows. */
export function checkAnyRequirement(
  requirements: PaymentRequirements,
  env: RailEnv,
  options: { x402Version?: number } = {},
): { payable: true; networkId: string; amount: bigint; asset: string; payTo: string; usagePriced: boolean } | { payable: false; reason: string } {
  const check = paymentRails(env).check(requirements, options.x402Version);
  if (!check.payable) return check;
  return { payable: true, networkId: check.network.id, amount: check.amount, asset: check.asset, payTo: check.payTo, usagePriced: check.scheme.usagePriced === true };
}

/** Schemes by network pattern and name, with the rail each pattern's networks are on. */
class RailRegistry {
  private readonly byNamespace = new Map<string, { rail: PaymentRail; schemes: Map<string, PaymentScheme> }>();

  register(pattern: NetworkPattern, rail: PaymentRail, scheme: PaymentScheme): this {
    const namespace = pattern.slice(0, -2);
    if (namespace !== rail.namespace) throw new Error(`${pattern} is not the pattern of the ${rail.namespace} rail`);
    const entry = this.byNamespace.get(namespace) ?? { rail, schemes: new Map<string, PaymentScheme>() };
    entry.schemes.set(scheme.scheme, scheme);
    this.byNamespace.set(namespace, entry);
    return this;
  }

  rails(): PaymentRails {
    const entries = [...this.byNamespace.values()];
    const byNamespace = new Map(this.byNamespace);
    return {
      find(networkId) {
        const rail = byNamespace.get(namespaceOf(networkId))?.rail;
        const network = rail?.network(networkId);
        return rail && network ? { rail, network } : undefined;
      },
      findScheme(networkId, name) {
        const entry = byNamespace.get(namespaceOf(networkId));
        const scheme = entry?.schemes.get(name);
        const network = entry?.rail.network(networkId);
        return entry && scheme && network ? { rail: entry.rail, scheme, network } : undefined;
      },
      check(requirements, x402Version, payers) {
        if (typeof requirements !== "object" || requirements === null) return { payable: false, reason: "the payment option is not an object" };
        const { network, scheme: name } = requirements as { network?: unknown; scheme?: unknown };
        const named = typeof network === "string" ? byNamespace.get(namespaceOf(network)) : undefined;
        let refusal: string | undefined;
        // A v1 requirement names its network without a namespace (`base-sepolia`), and one of a
        // namespace no rail pays in names none of ours: each rail is asked.
        for (const { rail, schemes } of named ? [named] : entries) {
          const scheme = typeof name === "string" ? schemes.get(name) : undefined;
          if (!scheme) {
            refusal ??= `scheme ${String(name)} is not supported`;
            continue;
          }
          const verdict = scheme.check(requirements, x402Version, typeof payers === "string" ? payers : payers?.[rail.namespace]);
          if (verdict.payable) return { rail, scheme, ...verdict };
          refusal ??= verdict.reason;
        }
        return { payable: false, reason: refusal ?? `network ${String(network)} is not enabled here` };
      },
    };
  }
}

/** The namespace of a CAIP-2 id (what stands before its colon); a name without one is its own. */
export function namespaceOf(networkId: string): string {
  const colon = networkId.indexOf(":");
  return colon === -1 ? networkId : networkId.slice(0, colon);
}
