// wagmi reconnects a remembered wallet before RainbowKit is loaded, with connectors the page makes
// itself; RainbowKit's modal later lists the wallets by what those connectors carry. They must be
// the connectors RainbowKit's own `connectorsForWallets` makes for the same list.
import { connectorsForWallets } from "@rainbow-me/rainbowkit";
import { foundry } from "viem/chains";
import { createConfig, http, type CreateConnectorFn } from "wagmi";
import { describe, expect, it } from "vitest";
import { walletList, type WalletSetup } from "@/components/wallet/wagmi-config";
import type { WalletNetwork } from "@/lib/chain/wallet-networks";
import { walletConnectors } from "@/components/wallet/wallet-connectors";

const sandbox = { address: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", chainId: foundry.id, rpcUrl: "http://127.0.0.1:1" } as const;
const baseMainnet: WalletNetwork = {
  id: "eip155:8453",
  chainId: 8453,
  name: "Base",
  testnet: false,
  usdc: { address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", decimals: 6, name: "USD Coin", version: "2" },
};
const sandboxNetwork: WalletNetwork = { ...baseMainnet, id: "eip155:31337", chainId: foundry.id, name: "Sandbox", testnet: true };
const smartAccount = { ...sandbox, address: "0x1111111111111111111111111111111111111111", signer: sandbox.address } as const;

/** The connectors as wagmi holds them: what a connector is listed and found by, functions by kind. */
function made(connectors: CreateConnectorFn[]) {
  const config = createConfig({ chains: [foundry], connectors, transports: { [foundry.id]: http("http://127.0.0.1:1") }, multiInjectedProviderDiscovery: false });
  return config.connectors.map((connector) =>
    JSON.parse(
      JSON.stringify({ id: connector.id, name: connector.name, type: connector.type, rkDetails: (connector as { rkDetails?: unknown }).rkDetails }, (_key, value: unknown) =>
        typeof value === "function" ? "function" : value,
      ),
    ),
  );
}

describe("walletConnectors", () => {
  const setups: [string, WalletSetup][] = [
    ["the sandbox's wallets and the browser's", { networks: [], sandbox, sandboxSmartAccount: smartAccount }],
    ["the browser's wallets and WalletConnect", { networks: [], walletConnectProjectId: "project-id" }],
    ["the browser's wallets, Base Account and Coinbase Wallet on Base", { networks: [baseMainnet] }],
  ];
  it.each(setups)("makes the connectors RainbowKit makes for %s", (_name, setup) => {
    const parameters = { appName: "x402 payment agent", projectId: setup.walletConnectProjectId ?? "unused" };
    const ours = made(walletConnectors(walletList(setup), parameters));
    const rainbowKit = made(connectorsForWallets(walletList(setup), parameters));
    expect(ours).toEqual(rainbowKit);
    expect(ours.length).toBeGreaterThan(1);
    for (const connector of ours) expect(connector.rkDetails).toMatchObject({ isRainbowKitConnector: true, groupName: expect.any(String) });
  });
});

describe("walletList", () => {
  const names = (setup: WalletSetup) =>
    walletList(setup).map(({ groupName, wallets }) => ({ groupName, wallets: wallets.map((wallet) => wallet({ appName: "x402 payment agent", projectId: "unused" }).name) }));

  it("offers Base Account and Coinbase Wallet, which need no extension, on Base and Base Sepolia", () => {
    expect(names({ networks: [baseMainnet] })).toEqual([
      { groupName: "Installed", wallets: ["Browser Wallet"] },
      { groupName: "No extension needed", wallets: ["Base Account", "Coinbase Wallet"] },
    ]);
    expect(names({ networks: [{ ...baseMainnet, id: "eip155:84532", chainId: 84532, name: "Base Sepolia" }] })[1]?.wallets).toEqual([
      "Base Account",
      "Coinbase Wallet",
    ]);
  });

  it("does not offer them on the sandbox's local chain, which Coinbase's service cannot reach", () => {
    expect(names({ networks: [sandboxNetwork], sandbox, sandboxSmartAccount: smartAccount })).toEqual([
      { groupName: "Sandbox", wallets: ["Sandbox demo wallet", "Sandbox smart account"] },
      { groupName: "Installed", wallets: ["Browser Wallet"] },
    ]);
  });
});
