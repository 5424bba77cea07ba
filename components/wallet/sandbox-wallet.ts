// The sandbox's demo wallet as a wagmi connector and a RainbowKit wallet entry, like any other
// wallet in the list. Its account is an anvil development account that the local chain holds
// unlocked: every request, `eth_signTypedData_v4` included, goes to the sandbox RPC, and anvil
// signs. No key is in the page. It exists only when the app runs on the sandbox. The sandbox's
// smart account is offered the same way: its address is the account, and its owner (an unlocked
// development account) signs, as a smart-account wallet's owner key does.
import type { Wallet, WalletDetailsParams } from "@rainbow-me/rainbowkit";
import { custom, getAddress, numberToHex, type EIP1193RequestFn } from "viem";
import { rpc } from "viem/utils";
import { createConnector } from "wagmi";

export type SandboxWalletOptions = {
  address: `0x${string}`;
  chainId: number;
  rpcUrl: string;
  /** The unlocked account that signs for `address` (a smart account's owner); default `address`. */
  signer?: `0x${string}`;
};

/** How a sandbox wallet is listed. */
export type SandboxWalletIdentity = { id: string; name: string };

export const SANDBOX_DEMO_WALLET: SandboxWalletIdentity = { id: "sandbox-demo-wallet", name: "Sandbox demo wallet" };
export const SANDBOX_SMART_ACCOUNT: SandboxWalletIdentity = { id: "sandbox-smart-account", name: "Sandbox smart account" };

const icon =
  "data:image/svg+xml;base64," +
  btoa(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 28 28"><rect width="28" height="28" rx="6" fill="#1f6feb"/><path d="M7 10h14v10H7z" fill="none" stroke="#fff" stroke-width="2"/><path d="M17 15h4" stroke="#fff" stroke-width="2"/><path d="M9 10l8-3v3" fill="none" stroke="#fff" stroke-width="2"/></svg>',
  );

function sandboxConnector({ address, chainId, rpcUrl, signer }: SandboxWalletOptions, { id, name }: SandboxWalletIdentity) {
  const connectedKey = id === SANDBOX_DEMO_WALLET.id ? "sandbox.connected" : `${id}.connected`;
  /** Signature requests name the account; the chain signs with the key that signs for it. */
  const signedBy = (method: string, params: unknown): unknown => {
    if (!signer || !Array.isArray(params)) return params;
    if (method === "eth_signTypedData_v4") return [signer, ...params.slice(1)];
    if (method === "personal_sign") return [params[0], signer, ...params.slice(2)];
    return params;
  };
  return createConnector((config) => {
    const request: EIP1193RequestFn = async ({ method, params }) => {
      if (method === "eth_accounts" || method === "eth_requestAccounts") return [address];
      if (method === "eth_chainId") return numberToHex(chainId);
      if (method === "wallet_switchEthereumChain") {
        const [target] = (params ?? []) as [{ chainId: string }];
        if (Number(target?.chainId) !== chainId) throw new Error("The sandbox wallet is only on the sandbox chain.");
        return null;
      }
      const { error, result } = await rpc.http(rpcUrl, { body: { method, params: signedBy(method, params) } });
      if (error) throw new Error(error.message);
      return result;
    };
    const provider = custom({ request })({ retryCount: 0 });
    return {
      id,
      name,
      type: "sandbox",
      icon,
      async connect<withCapabilities extends boolean = false>() {
        await config.storage?.setItem(connectedKey, true);
        const accounts = [getAddress(address)];
        // wagmi's generic return type; this connector reports no capabilities.
        return { accounts, chainId } as never as {
          accounts: withCapabilities extends true ? readonly { address: `0x${string}`; capabilities: Record<string, unknown> }[] : readonly `0x${string}`[];
          chainId: number;
        };
      },
      async disconnect() {
        await config.storage?.removeItem(connectedKey);
      },
      async getAccounts() {
        return [getAddress(address)];
      },
      async getChainId() {
        return chainId;
      },
      async getProvider() {
        return provider;
      },
      async isAuthorized() {
        return Boolean(await config.storage?.getItem(connectedKey));
      },
      async switchChain({ chainId: target }) {
        const chain = config.chains.find((candidate) => candidate.id === target);
        if (!chain || target !== chainId) throw new Error("The sandbox wallet is only on the sandbox chain.");
        return chain;
      },
      onAccountsChanged() {},
      onChainChanged() {},
      onDisconnect() {
        config.emitter.emit("disconnect");
      },
    };
  });
}

/** The RainbowKit wallet entry for the sandbox's demo wallet (or, named so, its smart account). */
export function sandboxWallet(options: SandboxWalletOptions, identity: SandboxWalletIdentity = SANDBOX_DEMO_WALLET): () => Wallet {
  return () => ({
    id: identity.id,
    name: identity.name,
    iconUrl: icon,
    iconBackground: "#1f6feb",
    installed: true,
    createConnector: (details: WalletDetailsParams) =>
      createConnector((config) => ({ ...sandboxConnector(options, identity)(config), ...details })),
  });
}
