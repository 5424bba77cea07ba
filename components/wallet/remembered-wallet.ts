// Whether this browser remembers a connected wallet, read without the wallet libraries: wagmi
// keeps its state in localStorage (its default storage, under "wagmi.store"), and a connection
// listed there is one wagmi reconnects when the page loads. A wallet the person disconnected is
// no longer listed.
export const WAGMI_STORE_KEY = "wagmi.store";

/** The ids of the connectors wagmi has stored connections of; none when storage cannot be read.
 * `storage` defaults to the browser's localStorage, read inside the check: a browser that blocks
 * storage throws on reaching it, not only on reading from it. */
function rememberedConnectorIds(storage?: Pick<Storage, "getItem">): string[] | undefined {
  try {
    const stored: unknown = JSON.parse((storage ?? globalThis.localStorage)?.getItem(WAGMI_STORE_KEY) ?? "null");
    const connections = (stored as { state?: { connections?: { value?: unknown } } } | null)?.state?.connections?.value;
    if (!Array.isArray(connections)) return undefined;
    // Each entry is [uid, { accounts, chainId, connector: { id, name, type, uid } }], as wagmi serializes a Map.
    return connections.map((entry: unknown) => {
      const id = Array.isArray(entry) ? (entry[1] as { connector?: { id?: unknown } } | null)?.connector?.id : undefined;
      return typeof id === "string" ? id : "";
    });
  } catch {
    // Storage that cannot be read, or holds something else, remembers nothing.
    return undefined;
  }
}

export function remembersWallet(storage?: Pick<Storage, "getItem">): boolean {
  return (rememberedConnectorIds(storage)?.length ?? 0) > 0;
}

/** Whether wagmi has a stored connection of the connector `id` (wagmi's connector id, not RainbowKit's). */
export function remembersConnector(id: string, storage?: Pick<Storage, "getItem">): boolean {
  return rememberedConnectorIds(storage)?.includes(id) ?? false;
}
