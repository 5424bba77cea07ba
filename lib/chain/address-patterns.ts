// An EVM address as text: its one pattern. No dependencies, so that what only reads an address
// as text (the configuration's check at start-up, lib/env.ts, and the page) does not load the
// chains' code; ./addresses.ts builds the checks of every family on it.

/** `0x` and 40 hex digits, in any case. */
export const EVM_ADDRESS_PATTERN = /^0x[0-9a-fA-F]{40}$/;

export function isEvmAddress(value: unknown): value is `0x${string}` {
  return typeof value === "string" && EVM_ADDRESS_PATTERN.test(value);
}
