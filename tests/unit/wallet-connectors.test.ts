// wagmi reconnects a remembered wallet before RainbowKit is loaded, with connectors the page makes
// itself; RainbowKit's modal later lists the wallets by what those connectors carry. They must be
// the connectors RainbowKit's own `connectorsForWallets` makes for the same list.
import { connectorsForWallets } from "@rainbow-me/rainbowkit";
import { foundry } from "viem/chains";
import { createConfig, http, type CreateConnectorFn } from "wagmi";
import { describe, expect, it } from "vitest";
import { walletList, type WalletSetup } from "@/components/wallet/wagmi-config";
import { walletConnectors } from "@/components/wallet/wallet-connectors";

const sandbox = { address: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", chainId: foundry.id, rpcUrl: "http://127.0.0.1:1" } as const;
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
