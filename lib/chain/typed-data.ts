// The EIP-712 typed data of a quote as it travels to the browser (integers as decimal strings),
// and the conversion back to what wallets and viem sign. Free of imports, so the page can use
// it without pulling the x402 packages into its bundle.

export type TypedDataForWallet = {
  domain: { name: string; version: string; chainId: number; verifyingContract: `0x${string}` };
  types: Record<string, Array<{ name: string; type: string }>>;
  primaryType: string;
  /** uint256 values as decimal strings, so the typed data travels as JSON. */
  message: Record<string, string>;
};

/** The typed data's message with its integer fields as bigints, as viem and wallets sign it. */
export function typedDataMessage(typedData: TypedDataForWallet): Record<string, string | bigint> {
  const fields = typedData.types[typedData.primaryType] ?? [];
  return Object.fromEntries(
    Object.entries(typedData.message).map(([key, value]) => {
      const type = fields.find((field) => field.name === key)?.type ?? "";
      return [key, /^u?int\d*$/.test(type) ? BigInt(value) : value];
    }),
  );
}

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
