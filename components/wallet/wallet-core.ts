// Step one of the wallet's code (wallet-code.ts loads it): the wagmi configuration with the
// libraries it needs (viem, wagmi's core and connectors). The steps after it are imported from
// here, so that their chunks leave out what this one brought.
import "./wagmi-config";

/** Step two: react-query, wagmi's React bindings and the stack's components. */
export const loadWalletStackModule = () => import("./wallet-stack");
