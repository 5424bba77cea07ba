// Whether a pay-as-you-go channel requirement (x402 `batch-settlement`) can be paid on EVM here:
// as `exact`'s (../exact/requirement.ts), a v2 network enabled here, its USDC with its real EIP-712
// domain, a positive price per call and an address to pay; and, for a channel, the service's
// `receiverAuthorizer` (the key that signs its claims and refunds; never the zero address), a
// withdrawal delay the scheme allows (the time a payer waits to take an unclaimed deposit back
// without the service: 15 minutes to 30 days), and the deposit the service suggests, if any, no
// smaller than one call. Deposits go through EIP-3009 only: a requirement that asks for Permit2
// is not paid here. What a registry or a service sends is data from strangers: no field is
// assumed to have the type it should.
import type { PaymentRequirements } from "@x402/core/types";
import { getAddress, isAddress, zeroAddress } from "viem";
import { findNetwork, isEnabled } from "@/lib/chain/networks";
import type { RailEnv } from "../../rail";
import { amountOf, caip2Of, type PayableEvmRequirement } from "../exact/requirement";

/** The shortest and longest withdrawal delays the scheme allows, in seconds. */
export const WITHDRAW_DELAY_RANGE = { min: 900, max: 30 * 24 * 3600 } as const;

export type PayableChannelRequirement = PayableEvmRequirement & {
  receiverAuthorizer: `0x${string}`;
  withdrawDelay: number;
  /** The deposit the service suggests (`extra.minDeposit`), in atomic units; undefined when it names none. */
  suggestedDeposit: bigint | undefined;
};

export type ChannelRequirementCheck = ({ payable: true } & PayableChannelRequirement) | { payable: false; reason: string };

export function checkChannelRequirement(requirements: PaymentRequirements, env: RailEnv, { x402Version }: { x402Version?: number } = {}): ChannelRequirementCheck {
  const refuse = (reason: string): ChannelRequirementCheck => ({ payable: false, reason });
  if (typeof requirements !== "object" || requirements === null) return refuse("the payment option is not an object");
  const { scheme, network: named, asset, payTo, extra } = requirements as Partial<Record<keyof PaymentRequirements, unknown>>;
  if (scheme !== "batch-settlement") return refuse(`scheme ${String(scheme)} is not supported`);
  if (x402Version === 1) return refuse("channels are paid in x402 version 2 only");
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
  if (amount === undefined) return refuse("the price per call is not a positive whole number of atomic units");
  if (typeof payTo !== "string" || !isAddress(payTo)) return refuse("payTo is not an address");
  const authorizer = fields.receiverAuthorizer;
  if (typeof authorizer !== "string" || !isAddress(authorizer) || getAddress(authorizer) === zeroAddress) {
    return refuse("the channel names no receiverAuthorizer to sign its claims and refunds");
  }
  const delay = fields.withdrawDelay;
  if (typeof delay !== "number" || !Number.isInteger(delay) || delay < WITHDRAW_DELAY_RANGE.min || delay > WITHDRAW_DELAY_RANGE.max) {
    return refuse("the channel's withdrawal delay is not between 15 minutes and 30 days");
  }
  if (fields.assetTransferMethod !== undefined && fields.assetTransferMethod !== "eip3009") {
    return refuse("the channel's deposit is asked through Permit2, which is not paid here");
  }
  let suggestedDeposit: bigint | undefined;
  if (fields.minDeposit !== undefined) {
    if (typeof fields.minDeposit !== "string" || !/^[1-9]\d{0,30}$/.test(fields.minDeposit) || BigInt(fields.minDeposit) < amount) {
      return refuse("the channel's suggested deposit is not a whole number of atomic units at least the price of a call");
    }
    suggestedDeposit = BigInt(fields.minDeposit);
  }
  return {
    payable: true,
    requirements,
    network,
    amount,
    asset: getAddress(network.usdc.address),
    payTo: getAddress(payTo),
    receiverAuthorizer: getAddress(authorizer),
    withdrawDelay: delay,
    suggestedDeposit,
  };
}
