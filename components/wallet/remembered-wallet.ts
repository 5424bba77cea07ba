// Whether this browser remembers a connected wallet, read without the wallet libraries: wagmi
// keeps its state in localStorage (its default storage, under "wagmi.store"), and a connection
// listed there is one wagmi reconnects when the page loads. A wallet the person disconnected is
// no longer listed.
export const WAGMI_STORE_KEY = "wagmi.store";

export function remembersWallet(storage: Pick<Storage, "getItem"> | undefined = globalThis.localStorage): boolean {
  try {
    const stored: unknown = JSON.parse(storage?.getItem(WAGMI_STORE_KEY) ?? "null");
    const connections = (stored as { state?: { connections?: { value?: unknown } } } | null)?.state?.connections?.value;
    return Array.isArray(connections) && connections.length > 0;
  } catch {
    // Storage that cannot be read, or holds something else, remembers nothing.
    return false;
  }
}
