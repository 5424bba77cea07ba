// A person's wallet address in each chain family this product pays on, by the CAIP-2 namespace
// its rail pays in: an EVM address (`0x` and 40 hex digits, EIP-55 when mixed case) or a Solana
// one (32 bytes in base58). The schemas that check one, which family an address is of, and the
// form it is kept in. Free of server imports. @solana/addresses is the part of @solana/kit that
// reads an address: a route that checks one does not load the whole kit.
import { isAddress as isBase58Address, type Address as SolanaAddress } from "@solana/addresses";
import { getAddress } from "viem";
import { z } from "zod";
import { EVM_ADDRESS_PATTERN, isEvmAddress } from "./address-patterns";

export { EVM_ADDRESS_PATTERN, isEvmAddress } from "./address-patterns";

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

/** A person's wallets by the CAIP-2 namespace of the rail each pays on, each checked by its family's schema. */
export const walletsSchema = z.strictObject({ eip155: evmAddressSchema.optional(), solana: solanaAddressSchema.optional() });

/** How many wallets a person pays from at most (one per family), and those families in a person's words. */
export const WALLET_FAMILIES = { count: 2, words: "an EVM and a Solana wallet" } as const;

/** The CAIP-2 namespace whose rail pays from an address of this form; undefined for an address of no family paid here. */
export function addressNamespace(address: unknown): "eip155" | "solana" | undefined {
  if (isEvmAddress(address)) return "eip155";
  return isSolanaAddress(address) ? "solana" : undefined;
}

/** A wallet address in the form it is kept and shown in (EIP-55 on EVM, as written on Solana), or undefined when it is of no family paid here. */
export function walletAddressOf(address: unknown): string | undefined {
  if (isEvmAddress(address)) return getAddress(address);
  return isSolanaAddress(address) ? address : undefined;
}

/** Wallets by the namespace of the rail each pays on, as the payment core takes them; an address of no family paid here is left out. */
export function walletsByNamespace(addresses: readonly (string | undefined)[]): Record<string, string> {
  const wallets: Record<string, string> = {};
  for (const address of addresses) {
    const namespace = address === undefined ? undefined : addressNamespace(address);
    if (namespace && address !== undefined) wallets[namespace] = address;
  }
  return wallets;
}
