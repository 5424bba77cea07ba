// Addresses as text: the one equality. Hex is case-insensitive; any other family's (a Solana
// address is base58) is compared exactly as written. No dependencies, so that the page can
// compare addresses without loading the chains' code; lib/address.ts re-exports it. What an
// address of each family looks like is lib/chain/addresses.ts's.

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
