// The x402 `batch-settlement` channel contract's address, the same on every chain, for the page
// (without the x402 packages in its bundle): the contract a channel's deposit sits in, whose
// vouchers the page's channel key signs, and which the wallet asks for a withdrawal.
// lib/payments/rails/evm/channel has the rest, from @x402/evm.
export const CHANNEL_CONTRACT_ADDRESS = "0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003" as const;
