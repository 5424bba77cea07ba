// Base Account's and Coinbase Wallet's SDKs are loaded for a person who picks one, or whose
// browser remembers one, and for nobody else: wagmi asks every wallet for its provider each time
// the wallet stack loads. A stand-in SDK counts the loads; wagmi itself connects, stores and
// reconnects, as in the page.
import type { WalletList } from "@rainbow-me/rainbowkit";
import { foundry } from "viem/chains";
import { createConfig, createConnector, createStorage, http, mock } from "wagmi";
import { connect, reconnect } from "wagmi/actions";
import { describe, expect, it } from "vitest";
import { loadedWhenChosen } from "@/components/wallet/coinbase-wallets";
import { remembersConnector } from "@/components/wallet/remembered-wallet";
import { walletConnectors } from "@/components/wallet/wallet-connectors";

const ACCOUNT = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

function memoryStorage() {
  const items = new Map<string, string>();
  return {
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  };
}

/** A wallet whose provider stands for an SDK: each connector's first getProvider is a load. The
 * SDK keeps the site's permission itself, across reloads, as Base Account's does. Built on wagmi's
 * mock wallet, answering here what it would ask a chain. */
function walletWithSdk() {
  const sdk = { loads: 0, allowed: false };
  const createWallet: WalletList[number]["wallets"][number] = () => ({
    id: "sdk-wallet",
    name: "SDK Wallet",
    iconUrl: "data:image/svg+xml,<svg/>",
    iconBackground: "#fff",
    installed: true,
    createConnector: (details) =>
      createConnector((config) => {
        const wallet = mock({ accounts: [ACCOUNT], features: { defaultConnected: sdk.allowed, reconnect: true } })(config);
        let loaded = false;
        return {
          ...wallet,
          ...details,
          async getProvider(parameters) {
            if (!loaded) sdk.loads += 1;
            loaded = true;
            const provider = await wallet.getProvider.call(this, parameters);
            return {
              ...provider,
              async request(call: { method: string; params?: unknown }) {
                if (call.method === "eth_requestAccounts") sdk.allowed = true;
                if (call.method === "eth_accounts") return sdk.allowed ? [ACCOUNT] : [];
                return provider.request(call as Parameters<typeof provider.request>[0]);
              },
            };
          },
        };
      }),
  });
  return { sdk, createWallet };
}

function page(storage: ReturnType<typeof memoryStorage>, createWallet: WalletList[number]["wallets"][number]) {
  const remembers = (id: string) => remembersConnector(id, storage);
  const connectors = walletConnectors([{ groupName: "No extension needed", wallets: [loadedWhenChosen(createWallet, remembers)] }], {
    appName: "x402 payment agent",
    projectId: "unused",
  });
  return createConfig({
    chains: [foundry],
    connectors,
    transports: { [foundry.id]: http("http://127.0.0.1:1") },
    storage: createStorage({ storage }),
    multiInjectedProviderDiscovery: false,
  });
}

describe("Base Account and Coinbase Wallet in the wallet list", () => {
  it("load nothing for a visit that never picks them, connect when picked, and reconnect after a reload", async () => {
    const storage = memoryStorage();
    const { sdk, createWallet } = walletWithSdk();

    const first = page(storage, createWallet);
    expect(await reconnect(first)).toEqual([]);
    expect(sdk.loads).toBe(0);

    const [connector] = first.connectors;
    if (!connector) throw new Error("no connector");
    // RainbowKit asks a wallet for its chain just before connecting it: still nothing loads.
    expect(await connector.getChainId()).toBe(foundry.id);
    expect(sdk.loads).toBe(0);
    const { accounts } = await connect(first, { connector });
    expect(accounts).toEqual([ACCOUNT]);
    expect(sdk.loads).toBe(1);

    // A reload: a new configuration over the same storage, which remembers the connection.
    const reloaded = page(storage, createWallet);
    const [again] = await reconnect(reloaded);
    expect(again?.accounts).toEqual([ACCOUNT]);
    expect(sdk.loads).toBe(2);
  });
});
