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

/** A field of typed data as it travels: a uint or address as a string, or a struct of fields. */
export type TypedDataValue = string | { [field: string]: TypedDataValue };

/**
 * Typed data whose message holds structs (Permit2's witness transfer, for x402 `upto`), and
 * whose domain may have no version (Permit2's has none). Integers as decimal strings.
 */
export type NestedTypedDataForWallet = {
  domain: { name: string; version?: string; chainId: number; verifyingContract: `0x${string}` };
  types: Record<string, Array<{ name: string; type: string }>>;
  primaryType: string;
  message: Record<string, TypedDataValue>;
};

export type SignableValue = string | bigint | { [field: string]: SignableValue };

/** The message with every integer field, at any depth, as a bigint, as viem and wallets sign it. */
export function nestedTypedDataMessage(typedData: Pick<NestedTypedDataForWallet, "types" | "primaryType" | "message">): Record<string, SignableValue> {
  const convert = (typeName: string, value: Record<string, TypedDataValue>): Record<string, SignableValue> => {
    const fields = typedData.types[typeName] ?? [];
    return Object.fromEntries(
      Object.entries(value).map(([key, field]) => {
        const type = fields.find((candidate) => candidate.name === key)?.type ?? "";
        if (typeof field === "object") return [key, convert(type, field)];
        return [key, /^u?int\d*$/.test(type) ? BigInt(field) : field];
      }),
    );
  };
  return convert(typedData.primaryType, typedData.message);
}
