// The name an MPP `evm` charge goes by in the payment core, and the protocol a scheme name
// stands for: free of imports, so the ledger, the history and the approval read it without
// loading mppx.

/** The scheme name an MPP `evm` charge is quoted, approved and recorded under. */
export const MPP_EVM_CHARGE = "mpp-evm-charge";

/** The protocols a paid service speaks here. */
export const protocols = ["x402", "mpp"] as const;
export type PaidProtocol = (typeof protocols)[number];

/** The protocol of a scheme name: MPP's `evm` charge, or an x402 scheme. */
export function protocolOfScheme(scheme: string | undefined): PaidProtocol {
  return scheme === MPP_EVM_CHARGE ? "mpp" : "x402";
}
