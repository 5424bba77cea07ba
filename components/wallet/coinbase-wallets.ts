// Coinbase's two wallets for people without an extension, on the networks Coinbase's service
// serves (lib/chain/wallet-networks.ts): Base Account, a smart wallet made and used with a passkey
// in a window of Coinbase's own (no extension, no app: what a phone's browser can use), and
// Coinbase Wallet, its app or extension, or the same passkey account. Both pay as smart accounts
// do (ERC-1271, or ERC-6492 before the account is deployed: lib/chain/networks.ts).
//
// Each connector loads its SDK only when a person picks it, or when it is a wallet wagmi remembers:
// wagmi asks every connector for its provider whenever it reconnects (each time the wallet stack
// loads), and each SDK, once made, also requests the page again to read its headers. Without this,
// every visit that loads the wallet would fetch both SDKs for a wallet nobody chose.
import type { WalletList } from "@rainbow-me/rainbowkit";
import { base, coinbaseWallet } from "@rainbow-me/rainbowkit/wallets";
import { numberToHex } from "viem";
import { createConnector, type CreateConnectorFn } from "wagmi";
import { remembersConnector } from "./remembered-wallet";

type CreateWallet = WalletList[number]["wallets"][number];

/** `createWallet`'s connector, made lazy: no SDK until it is chosen or remembered. */
export function loadedWhenChosen(createWallet: CreateWallet, remembers: (connectorId: string) => boolean = remembersConnector): CreateWallet {
  return (parameters) => {
    const wallet = createWallet(parameters);
    return {
      ...wallet,
      createConnector: (details) => lazyConnector(wallet.createConnector(details), remembers),
    };
  };
}

function lazyConnector(eager: CreateConnectorFn, remembers: (connectorId: string) => boolean): CreateConnectorFn {
  return createConnector((config) => {
    const connector = eager(config);
    const notLoaded = notLoadedProvider(config.chains[0].id);
    let chosen = false;
    return {
      ...connector,
      // Called as wagmi calls it, on the connector wagmi made from this one, so the SDK's own
      // calls to `this.getProvider()` come back here.
      connect<withCapabilities extends boolean = false>(parameters?: Parameters<typeof connector.connect<withCapabilities>>[0]) {
        chosen = true;
        const connectNow = connector.connect<withCapabilities>;
        return connectNow.call(this, parameters);
      },
      // Until then, a wallet with no account for this page: wagmi's reconnect passes it by, and
      // RainbowKit, which asks it for its chain just before it connects (and for a QR code the SDK
      // no longer makes), is told the page's first chain, as the SDK tells a page it has not met.
      async getProvider(parameters) {
        if (!chosen && !remembers(connector.id)) return notLoaded;
        return connector.getProvider.call(this, parameters);
      },
    };
  });
}

/** The provider of a wallet whose SDK is not loaded: no accounts, the page's first chain, and
 * nothing it could do. */
function notLoadedProvider(chainId: number) {
  return {
    async request({ method }: { method: string }): Promise<readonly never[] | `0x${string}`> {
      if (method === "eth_accounts") return [];
      if (method === "eth_chainId") return numberToHex(chainId);
      throw Object.assign(new Error("This wallet is not connected."), { code: 4100 });
    },
    on: () => undefined,
    removeListener: () => undefined,
  };
}

/** Base Account under its own name: RainbowKit lists it as "Base", the name of the chain too. */
const baseAccount: CreateWallet = (parameters) => ({ ...base(parameters), name: "Base Account", shortName: "Base Account" });

/** The group the wallet list shows them in, on the networks they serve. */
export const coinbaseWalletGroup: WalletList[number] = {
  groupName: "No extension needed",
  wallets: [loadedWhenChosen(baseAccount), loadedWhenChosen(coinbaseWallet)],
};
