// Addresses, as every part of the product compares them: the one equality, whatever the chain
// family (lib/address-text.ts, with no dependencies, re-exported here). Each family's address
// format (what an EVM or a Solana address is, the schemas that check a person's wallet) is
// lib/chain/addresses.ts's.
export { caseKey, sameAddress } from "./address-text";
