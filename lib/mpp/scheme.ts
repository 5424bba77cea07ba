// The Machine Payments Protocol's names in the payment core: the protocol's registered name
// (lib/payments/protocols/mpp.ts) and the scheme an MPP `evm` charge is quoted, approved and
// recorded under. Free of imports, so the protocol's registration reads them without loading mppx.

/** The protocol's registered name. */
export const MPP_PROTOCOL = "mpp";

/** The scheme name an MPP `evm` charge is quoted, approved and recorded under. */
export const MPP_EVM_CHARGE = "mpp-evm-charge";
