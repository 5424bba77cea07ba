// Whether an `exact` requirement can be paid on EVM here: the rule that discovery (what is
// listed) and quotes (what the wallet is asked to sign) both follow, through the rails' registry
// (../../index.ts). Payable means: scheme `exact`; a network in the v1 spelling (`base-sepolia`,
// as @x402/evm's v1 table names it) or the v2 CAIP-2 spelling (`eip155:84532`) that maps to a
// network enabled here; that network's USDC with its real EIP-712 domain; an amount that is a
// positive whole number of atomic units; and `payTo` an address. What a registry or a service
// sends is data from strangers, so nothing here assumes a field has the type it should.
import type { PaymentRequirements } from "@x402/core/types";
import { EVM_NETWORK_CHAIN_ID_MAP } from "@x402/evm/v1";
import { getAddress, isAddress } from "viem";
import { chainIdOf, findNetwork, isEnabled, type NetworkConfig, type NetworkId } from "@/lib/chain/networks";
import type { RailEnv } from "../../rail";

/** An EVM requirement that can be paid here, with its fields read and normalized. */
export type PayableEvmRequirement = {
  requirements: PaymentRequirements;
  network: NetworkConfig;
  /** Atomic USDC units. */
  amount: bigint;
  asset: `0x${string}`;
  payTo: `0x${string}`;
};

export type RequirementCheck = ({ payable: true } & PayableEvmRequirement) | { payable: false; reason: string };

const v1ChainIds: Readonly<Record<string, number>> = EVM_NETWORK_CHAIN_ID_MAP;
const MAX_UINT256 = 2n ** 256n - 1n;

/**
 * The CAIP-2 id of a requirement's network. v2 spells it `eip155:<chainId>`; v1 names it
 * (`base-sepolia`). With `x402Version`, only that version's spelling counts: the x402 client
 * pays a v1 requirement through the v1 scheme, which knows names only, and a v2 one through
 * the v2 scheme, which knows CAIP-2 ids only.
 */
export function caip2Of(network: unknown, x402Version?: number): NetworkId | undefined {
  if (typeof network !== "string") return undefined;
  const chainId = chainIdOf(network);
  if (chainId !== undefined) return x402Version === 1 ? undefined : `eip155:${chainId}`;
  if (x402Version !== undefined && x402Version !== 1) return undefined;
  const named = Object.hasOwn(v1ChainIds, network) ? v1ChainIds[network] : undefined;
  return named === undefined ? undefined : `eip155:${named}`;
}

/**
 * Atomic amount of a requirement, positive and within uint256: `amount` in v2, `maxAmountRequired`
 * in v1, which is what the v1 scheme signs, so it is also what is shown and compared, whatever
 * other `amount` a v1 answer carries. Without `x402Version` (a registry listing) the network's
 * spelling tells the version: CAIP-2 is v2, a name is v1.
 */
export function amountOf(requirements: PaymentRequirements, x402Version?: number): bigint | undefined {
  const record = requirements as PaymentRequirements & { maxAmountRequired?: unknown };
  const v1 = x402Version === undefined ? typeof record.network === "string" && !record.network.includes(":") : x402Version === 1;
  const value: unknown = v1 ? record.maxAmountRequired : record.amount;
  if (typeof value !== "string" || !/^\d{1,78}$/.test(value)) return undefined;
  const amount = BigInt(value);
  return amount > 0n && amount <= MAX_UINT256 ? amount : undefined;
}

/**
 * Whether this product can pay the requirement, and if not, why (in words the model can
 * relay). `x402Version` is the protocol version of the 402 the requirement came in; a registry
 * listing is read without it, its network's spelling telling the version.
 */
export function checkRequirement(
  requirements: PaymentRequirements,
  env: RailEnv,
  { x402Version }: { x402Version?: number } = {},
): RequirementCheck {
  const refuse = (reason: string): RequirementCheck => ({ payable: false, reason });
  if (typeof requirements !== "object" || requirements === null) return refuse("the payment option is not an object");
  const { scheme, network: named, asset, payTo } = requirements as Partial<Record<keyof PaymentRequirements, unknown>>;
  if (scheme !== "exact") return refuse(`scheme ${String(scheme)} is not supported`);
  const id = caip2Of(named, x402Version);
  const network = id && isEnabled(id, env) ? findNetwork(id, env) : undefined;
  if (!network) return refuse(`network ${String(named)} is not enabled here`);
  if (typeof asset !== "string" || asset.toLowerCase() !== network.usdc.address.toLowerCase()) {
    return refuse(`asset ${String(asset)} is not USDC on ${network.name}`);
  }
  // A wrong domain name gives a signature that looks valid and fails on chain.
  if (!hasUsdcDomain(requirements, network)) {
    return refuse(`the EIP-712 domain is not ${network.usdc.name} version ${network.usdc.version}`);
  }
  const amount = amountOf(requirements, x402Version);
  if (amount === undefined) return refuse("the amount is not a positive whole number of atomic units");
  // A mixed-case address must carry its EIP-55 checksum: a typo must not receive the payment.
  if (typeof payTo !== "string" || !isAddress(payTo)) return refuse("payTo is not an address");
  return { payable: true, requirements, network, amount, asset: getAddress(network.usdc.address), payTo: getAddress(payTo) };
}

function hasUsdcDomain(requirements: PaymentRequirements, network: NetworkConfig): boolean {
  const extra: unknown = requirements.extra;
  if (typeof extra !== "object" || extra === null) return false;
  const { name, version } = extra as { name?: unknown; version?: unknown };
  return name === network.usdc.name && version === network.usdc.version;
}
