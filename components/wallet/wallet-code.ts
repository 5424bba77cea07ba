// The wallet's code, loaded after the page in steps. Each step is imported by a module of the step
// before it (wallet-core.ts, wallet-stack.tsx, wallet-keys.ts), not by the page, and code two
// parts need at once comes in one step: the bundler then leaves out of a step's chunks what the
// steps before it brought. Imported side by side from the page, each part carried its own copy of
// what they share (viem's utilities and errors, @noble/hashes, the wagmi configuration itself),
// fetched and compiled again on every page that reconnects a wallet.
import { nextTask, once } from "@/lib/lazy-load";

/** Step one, fetched from a task of its own (not the commit that asked for it: fetching is a
 * stretch of the main thread too): the wagmi configuration with the libraries it needs. */
const loadWalletCore = once(async () => {
  await nextTask();
  return import("./wallet-core");
});

/** Step two, evaluated in a task after step one's (a module already evaluated is not evaluated
 * again): react-query, wagmi's React bindings and the stack's components. */
export const loadWalletStackModule = once(async () => {
  const core = await loadWalletCore();
  await nextTask();
  return core.loadWalletStackModule();
});

/** Step three, evaluated in a task after the stack's: the channel key's code (wallet-keys.ts).
 * Every wallet the stack connects gets its channel key a moment later (use-channel-key.ts);
 * evaluated with the stack, its curve made that one task half as long again. */
export const loadChannelKeys = once(async () => {
  const stack = await loadWalletStackModule();
  await nextTask();
  return stack.loadWalletKeysModule();
});

/** RainbowKit's provider and button (the largest part), after the channel key's code. */
export const loadWalletButtonModule = once(async () => (await loadChannelKeys()).loadWalletButton());
