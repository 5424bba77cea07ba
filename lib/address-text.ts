// Addresses as text: the one pattern of an EVM address and the one equality. Hex is
// case-insensitive; any other family's (a Solana address is base58) is compared exactly as
// written. No dependencies, so that what only reads an address as text (the configuration's
// check at start-up, lib/env.ts, and the page) does not load the chains' code; lib/address.ts
// re-exports it.

/** `0x` and 40 hex digits, in any case. */
export const EVM_ADDRESS_PATTERN = /^0x[0-9a-fA-F]{40}$/;

export function isEvmAddress(value: unknown): value is `0x${string}` {
  return typeof value === "string" && EVM_ADDRESS_PATTERN.test(value);
}

/**
 * The one form an address, a nonce or a transaction id is stored and compared under: `0x` hex in
 * lowercase (its case means nothing, or only a checksum), anything else as written (base58's case
 * is part of the value).
 */
export function caseKey(value: string): string {
  return /^0x[0-9a-fA-F]*$/.test(value) ? value.toLowerCase() : value;
}

/** Whether two addresses name the same account. */
export function sameAddress(a: string, b: string): boolean {
  return caseKey(a) === caseKey(b);
}
