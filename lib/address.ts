// Addresses, as every part of the product reads and compares them: the one pattern of an EVM
// address, the one schema that checks a person's EVM address (EIP-55 when mixed case), and the
// one equality. An EVM address is case-insensitive hex; any other family's (a Solana address is
// base58) is compared exactly as written. Free of server imports: the page uses it too.
import { getAddress } from "viem";
import { z } from "zod";

/** `0x` and 40 hex digits, in any case. */
export const EVM_ADDRESS_PATTERN = /^0x[0-9a-fA-F]{40}$/;

export function isEvmAddress(value: unknown): value is `0x${string}` {
  return typeof value === "string" && EVM_ADDRESS_PATTERN.test(value);
}

/** Whether two addresses name the same account: EVM hex in any case, anything else as written. */
export function sameAddress(a: string, b: string): boolean {
  if (isEvmAddress(a) && isEvmAddress(b)) return a.toLowerCase() === b.toLowerCase();
  return a === b;
}

/** The form an address is stored and counted under: lowercase for EVM hex, as written otherwise. */
export function addressKey(address: string): string {
  return isEvmAddress(address) ? address.toLowerCase() : address;
}

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
