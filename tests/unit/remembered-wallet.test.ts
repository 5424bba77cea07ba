// The page loads the wallet libraries at once only for a browser that remembers a connected
// wallet. What it reads is wagmi's own stored state, written here by wagmi itself.
import { createConfig, createStorage, http, mock } from "wagmi";
import { connect, disconnect } from "wagmi/actions";
import { foundry } from "viem/chains";
import { describe, expect, it } from "vitest";
import { remembersWallet, WAGMI_STORE_KEY } from "@/components/wallet/remembered-wallet";

function memoryStorage() {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  };
}

function wagmiWith(storage: ReturnType<typeof memoryStorage>) {
  return createConfig({
    chains: [foundry],
    connectors: [mock({ accounts: ["0x70997970C51812dc3A010C7d01b50e0d17dc79C8"] })],
    transports: { [foundry.id]: http("http://127.0.0.1:1") },
    storage: createStorage({ storage }),
    multiInjectedProviderDiscovery: false,
  });
}

describe("remembersWallet", () => {
  it("is false for a first visit, true once wagmi has stored a connection, and false again after the person disconnects", async () => {
    const storage = memoryStorage();
    const config = wagmiWith(storage);
    expect(remembersWallet(storage)).toBe(false);

    const [connector] = config.connectors;
    if (!connector) throw new Error("no connector");
    await connect(config, { connector });
    expect(storage.items.has(WAGMI_STORE_KEY)).toBe(true);
    expect(remembersWallet(storage)).toBe(true);

    await disconnect(config);
    expect(storage.items.has(WAGMI_STORE_KEY)).toBe(true);
    expect(remembersWallet(storage)).toBe(false);
  });

  it("remembers nothing from storage it cannot read or that holds something else", () => {
    const storage = memoryStorage();
    for (const value of ["not json", "null", "[]", '{"state":{"connections":{"value":"x"}}}', '{"state":{}}']) {
      storage.items.set(WAGMI_STORE_KEY, value);
      expect(remembersWallet(storage)).toBe(false);
    }
    const throwing = { getItem: () => { throw new Error("storage is disabled"); } };
    expect(remembersWallet(throwing)).toBe(false);
    expect(remembersWallet(undefined)).toBe(false);
  });
});
