// Whether an `upto` requirement can be paid on EVM here: as `exact`'s (../exact/requirement.ts),
// a v2 network enabled here, its USDC with its real EIP-712 domain, a positive amount and an
// address to pay; and, for upto, that amount is the most the service may settle (the maximum
// the wallet signs for, which the limits hold the payment to), and `extra.facilitatorAddress`
// names the one address that may collect it (the permit's witness binds it). x402 v1 has no
// upto. What a registry or a service sends is data from strangers: no field is assumed to have
// the type it should.
import type { PaymentRequirements } from "@x402/core/types";
import { getAddress, isAddress } from "viem";
import { findNetwork, isEnabled } from "@/lib/chain/networks";
import type { RailEnv } from "../../rail";
import { amountOf, caip2Of, type PayableEvmRequirement } from "../exact/requirement";

export type PayableUptoRequirement = PayableEvmRequirement & {
  /** The facilitator the permit's witness names: the only address that can settle it. */
  facilitator: `0x${string}`;
};

export type UptoRequirementCheck = ({ payable: true } & PayableUptoRequirement) | { payable: false; reason: string };

export function checkUptoRequirement(requirements: PaymentRequirements, env: RailEnv, { x402Version }: { x402Version?: number } = {}): UptoRequirementCheck {
  const refuse = (reason: string): UptoRequirementCheck => ({ payable: false, reason });
  if (typeof requirements !== "object" || requirements === null) return refuse("the payment option is not an object");
  const { scheme, network: named, asset, payTo, extra } = requirements as Partial<Record<keyof PaymentRequirements, unknown>>;
  if (scheme !== "upto") return refuse(`scheme ${String(scheme)} is not supported`);
  if (x402Version === 1) return refuse("upto is paid in x402 version 2 only");
  const id = caip2Of(named, 2);
  const network = id && isEnabled(id, env) ? findNetwork(id, env) : undefined;
  if (!network) return refuse(`network ${String(named)} is not enabled here`);
  if (typeof asset !== "string" || asset.toLowerCase() !== network.usdc.address.toLowerCase()) {
    return refuse(`asset ${String(asset)} is not USDC on ${network.name}`);
  }
  const fields = typeof extra === "object" && extra !== null ? (extra as Record<string, unknown>) : {};
  if (fields.name !== network.usdc.name || fields.version !== network.usdc.version) {
    return refuse(`the EIP-712 domain is not ${network.usdc.name} version ${network.usdc.version}`);
  }
  const amount = amountOf(requirements, 2);
  if (amount === undefined) return refuse("the maximum is not a positive whole number of atomic units");
  if (typeof payTo !== "string" || !isAddress(payTo)) return refuse("payTo is not an address");
  const facilitator = fields.facilitatorAddress;
  if (typeof facilitator !== "string" || !isAddress(facilitator)) return refuse("the upto option names no facilitator address to collect it");
  return {
    payable: true,
    requirements,
    network,
    amount,
    asset: getAddress(network.usdc.address),
    payTo: getAddress(payTo),
    facilitator: getAddress(facilitator),
  };
}
