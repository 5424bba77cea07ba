// Addresses, as every part of the product reads and compares them: the one pattern of an EVM
// address and the one equality (lib/address-text.ts, with no dependencies, re-exported here),
// and the one schema that checks a person's EVM address (EIP-55 when mixed case) or Solana
// address. Free of server imports: the page uses it too. @solana/addresses is the part of
// @solana/kit that reads an address: a route that checks one does not load the whole kit.
import { isAddress as isBase58Address, type Address as SolanaAddress } from "@solana/addresses";
import { getAddress } from "viem";
import { z } from "zod";
import { EVM_ADDRESS_PATTERN } from "./address-text";

export { caseKey, EVM_ADDRESS_PATTERN, isEvmAddress, sameAddress } from "./address-text";

/** A person's EVM address: `0x` + 40 hex digits; a mixed-case one must carry a valid EIP-55 checksum. Checksummed on the way in. */
export const evmAddressSchema = z
  .string()
  // abort: the checksum check must not run on something that is not an address at all.
  .regex(EVM_ADDRESS_PATTERN, { message: "must be 0x followed by 40 hex digits", abort: true })
  .refine((value) => {
    const digits = value.slice(2);
    const singleCase = digits === digits.toLowerCase() || digits === digits.toUpperCase();
    return singleCase || getAddress(value) === value;
  }, "has a wrong EIP-55 checksum")
  .transform((value) => getAddress(value));

/** A Solana address: 32 bytes in base58 (32 to 44 characters). */
export function isSolanaAddress(value: unknown): value is SolanaAddress {
  return typeof value === "string" && /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(value) && isBase58Address(value);
}

/** A person's Solana address, kept as written: base58's case is part of it. */
export const solanaAddressSchema = z
  .string()
  .refine(isSolanaAddress, "must be a Solana address: 32 to 44 base58 characters")
  .transform((value) => value as SolanaAddress);

/** A person's wallet of either family: `0x…` is read as an EVM address, anything else as a Solana one, each with its own message. */
export const walletAddressSchema = z.string().transform((value, ctx): string => {
  const evm = value.startsWith("0x");
  const parsed = (evm ? evmAddressSchema : solanaAddressSchema).safeParse(value);
  if (parsed.success) return parsed.data;
  if (evm) for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message });
  else ctx.addIssue({ code: "custom", message: "must be an EVM address (0x and 40 hex digits) or a Solana address (32 to 44 base58 characters)" });
  return z.NEVER;
});
