// Step three of the wallet's code (wallet-code.ts loads it, after the stack): the channel key's
// code (lib/client/channel-keys.ts), whose secp256k1 curve is the costliest module to evaluate.
// Every wallet the stack connects gets its channel key a moment later (use-channel-key.ts).
// RainbowKit's button is imported from here: it signs with some of the same viem modules, which
// its chunks then leave out.
export { ensureChannelKey, signVoucher } from "@/lib/client/channel-keys";

/** RainbowKit's provider and button (the largest part). */
export const loadWalletButton = () => import("./wallet-button");
