// The USDC calls a wallet makes itself (the person pays their gas): a plain transfer, and
// EIP-3009's transferWithAuthorization with a signature split into v, r, s (FiatToken v2 and
// later keep this form beside the bytes one). Loaded with the wallet libraries, which use it.
import { erc20Abi, parseAbi } from "viem";

export const usdcWalletAbi = [
  ...erc20Abi,
  ...parseAbi([
    "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
  ]),
] as const;
