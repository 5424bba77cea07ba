// The x402 `batch-settlement` channel contract's address, the same on every chain, for the page
// (without the x402 packages in its bundle): the contract a channel's deposit sits in, whose
// vouchers the page's channel key signs, and which the wallet asks for a withdrawal.
// lib/payments/rails/evm/channel has the rest, from @x402/evm.
import { parseAbi } from "viem";

export const CHANNEL_CONTRACT_ADDRESS = "0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003" as const;

/** The payer's own way back (its wallet sends these, with their gas): asking for a withdrawal, then taking it after the channel's delay. */
export const channelWithdrawAbi = parseAbi([
  "struct ChannelConfig { address payer; address payerAuthorizer; address receiver; address receiverAuthorizer; address token; uint40 withdrawDelay; bytes32 salt; }",
  "function initiateWithdraw(ChannelConfig config, uint128 amount)",
  "function finalizeWithdraw(ChannelConfig config)",
]);

/** A withdrawal call as the server names it for the wallet to send. */
export type ChannelWithdrawCall = { contract: string; functionName: string; args: unknown[] };
