// Permit2's address, the same on every chain, for the page (without the x402 packages in its
// bundle): the contract usage-priced payments (x402 `upto`) move USDC through, which the wallet
// approves once. lib/chain/permit2.ts has the rest, from @x402/evm.
export const PERMIT2_ADDRESS = "0x000000000022D473030F116dDEE9F6B43aC78BA3" as const;
