// The USDC calls a wallet makes itself (the person pays their gas): a plain transfer, and
// EIP-3009's transferWithAuthorization with a signature split into v, r, s (FiatToken v2 and
// later keep this form beside the bytes one). Free of other imports, for the page's bundle.
import { erc20Abi, parseAbi } from "viem";

export const usdcWalletAbi = [
  ...erc20Abi,
  ...parseAbi([
    "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
  ]),
] as const;

/** EIP-3009's TransferWithAuthorization, as USDC's EIP-712 domain signs it. */
export const transferWithAuthorizationTypes = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;
