// Whether this browser remembers a connected wallet, read without the wallet libraries: wagmi
// keeps its state in localStorage (its default storage, under "wagmi.store"), and a connection
// listed there is one wagmi reconnects when the page loads. A wallet the person disconnected is
// no longer listed.
export const WAGMI_STORE_KEY = "wagmi.store";

/** `storage` defaults to the browser's localStorage, read inside the check: a browser that
 * blocks storage throws on reaching it, not only on reading from it. */
export function remembersWallet(storage?: Pick<Storage, "getItem">): boolean {
  try {
    const stored: unknown = JSON.parse((storage ?? globalThis.localStorage)?.getItem(WAGMI_STORE_KEY) ?? "null");
    const connections = (stored as { state?: { connections?: { value?: unknown } } } | null)?.state?.connections?.value;
    return Array.isArray(connections) && connections.length > 0;
  } catch {
    // Storage that cannot be read, or holds something else, remembers nothing.
    return false;
  }
}
