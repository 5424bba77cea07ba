// A browser wallet for the end-to-end tests: an EIP-1193 provider injected into the page before
// any script runs and announced through EIP-6963, so the page's real RainbowKit and wagmi code
// finds and connects it like an extension. Requests are answered here in Node: accounts and
// chain state, EIP-712 signatures from a viem account holding a fresh sandbox key, and everything
// else forwarded to the sandbox chain. The test can switch the wallet's chain or account, count
// signature prompts and reject the next one.
import { readFileSync } from "node:fs";
import { test as base, expect, type Page } from "@playwright/test";
import { numberToHex, type Hex, type TypedDataDefinition } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { createFunder } from "@/sandbox/funder";
import { infoFilePath, type SandboxInfo } from "@/sandbox/info";

const WALLET_NAME = "Test Wallet";
const ICON =
  "data:image/svg+xml;base64," +
  Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#6b4fd8"/></svg>').toString("base64");

type RpcError = { code: number; message: string };

export type TestWallet = {
  readonly address: Hex;
  readonly chainId: number;
  /** How many signature prompts the page opened. */
  readonly signRequests: number;
  setChain: (chainId: number) => Promise<void>;
  switchAccount: (privateKey: Hex) => Promise<void>;
  /** The next signature request is refused as a person clicking Reject in the wallet would. */
  rejectNext: () => void;
};

export function sandboxInfo(): SandboxInfo {
  return JSON.parse(readFileSync(infoFilePath(), "utf8")) as SandboxInfo;
}

export async function installTestWallet(page: Page, { privateKey, rpcUrl, chainId }: { privateKey: Hex; rpcUrl: string; chainId: number }): Promise<TestWallet> {
  let account: PrivateKeyAccount = privateKeyToAccount(privateKey);
  let connected = false;
  let currentChain = chainId;
  const knownChains = new Set([1, chainId]);
  let signRequests = 0;
  let rejectNext = false;

  const emit = (event: string, payload: unknown) =>
    page.evaluate(([name, value]) => (window as unknown as { __testWalletEmit?: (n: string, v: unknown) => void }).__testWalletEmit?.(name, value), [event, payload] as const);

  const forward = async (method: string, params: unknown[]): Promise<unknown> => {
    const response = await fetch(rpcUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    const body = (await response.json()) as { result?: unknown; error?: RpcError };
    if (body.error) throw body.error;
    return body.result;
  };

  const handle = async (method: string, params: unknown[]): Promise<unknown> => {
    switch (method) {
      case "eth_accounts":
        return connected ? [account.address] : [];
      case "eth_requestAccounts":
      case "wallet_requestPermissions":
        connected = true;
        return method === "eth_requestAccounts" ? [account.address] : [{ parentCapability: "eth_accounts" }];
      case "wallet_getPermissions":
        return connected ? [{ parentCapability: "eth_accounts" }] : [];
      case "wallet_revokePermissions":
        connected = false;
        return null;
      case "eth_chainId":
        return numberToHex(currentChain);
      case "net_version":
        return String(currentChain);
      case "wallet_switchEthereumChain": {
        const target = Number((params[0] as { chainId: string }).chainId);
        if (!knownChains.has(target)) throw { code: 4902, message: "Unrecognized chain ID. Try adding the chain first." } satisfies RpcError;
        currentChain = target;
        await emit("chainChanged", numberToHex(target));
        return null;
      }
      case "wallet_addEthereumChain":
        knownChains.add(Number((params[0] as { chainId: string }).chainId));
        return null;
      case "eth_signTypedData_v4": {
        signRequests += 1;
        const [from, json] = params as [string, string];
        if (from.toLowerCase() !== account.address.toLowerCase()) throw { code: 4100, message: "Not this wallet's account." } satisfies RpcError;
        if (rejectNext) {
          rejectNext = false;
          throw { code: 4001, message: "User rejected the request." } satisfies RpcError;
        }
        const typed = JSON.parse(json) as { domain: Record<string, unknown>; types: Record<string, { name: string; type: string }[]>; primaryType: string; message: Record<string, unknown> };
        if (Number(typed.domain.chainId) !== currentChain) {
          throw { code: -32603, message: `Provided chainId "${String(typed.domain.chainId)}" must match the active chainId "${currentChain}"` } satisfies RpcError;
        }
        const { EIP712Domain: _domain, ...types } = typed.types;
        const fields = types[typed.primaryType] ?? [];
        const message = Object.fromEntries(
          Object.entries(typed.message).map(([key, value]) => {
            const type = fields.find((field) => field.name === key)?.type ?? "";
            return [key, /^u?int\d*$/.test(type) ? BigInt(value as string) : value];
          }),
        );
        return account.signTypedData({ domain: typed.domain, types, primaryType: typed.primaryType, message } as unknown as TypedDataDefinition);
      }
      case "personal_sign": {
        signRequests += 1;
        return account.signMessage({ message: { raw: params[0] as Hex } });
      }
      default:
        return forward(method, params);
    }
  };

  await page.exposeFunction("__testWalletRequest", async (request: string) => {
    const { method, params } = JSON.parse(request) as { method: string; params?: unknown[] };
    try {
      return JSON.stringify({ result: (await handle(method, params ?? [])) ?? null });
    } catch (error) {
      const rpc = error as Partial<RpcError>;
      return JSON.stringify({ error: { code: rpc.code ?? -32603, message: rpc.message ?? String(error) } });
    }
  });

  await page.addInitScript(
    ({ name, icon }) => {
      const listeners: Record<string, Set<(value: unknown) => void>> = {};
      const call = (window as unknown as { __testWalletRequest: (request: string) => Promise<string> }).__testWalletRequest;
      const provider = {
        isTestWallet: true,
        async request({ method, params }: { method: string; params?: unknown[] }) {
          const answer = JSON.parse(await call(JSON.stringify({ method, params }))) as { result?: unknown; error?: { code: number; message: string } };
          if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
          return answer.result;
        },
        on(event: string, listener: (value: unknown) => void) {
          (listeners[event] ??= new Set()).add(listener);
          return provider;
        },
        removeListener(event: string, listener: (value: unknown) => void) {
          listeners[event]?.delete(listener);
          return provider;
        },
      };
      (window as unknown as { __testWalletEmit: (event: string, value: unknown) => void }).__testWalletEmit = (event, value) => {
        for (const listener of listeners[event] ?? []) listener(value);
      };
      const info = { uuid: "6f1c7a52-3f59-4d8e-9a53-7d6d4e5f0a11", name, icon, rdns: "dev.test.wallet" };
      const announce = () => window.dispatchEvent(new CustomEvent("eip6963:announceProvider", { detail: Object.freeze({ info, provider }) }));
      window.addEventListener("eip6963:requestProvider", announce);
      announce();
    },
    { name: WALLET_NAME, icon: ICON },
  );

  return {
    get address() {
      return account.address;
    },
    get chainId() {
      return currentChain;
    },
    get signRequests() {
      return signRequests;
    },
    async setChain(target) {
      knownChains.add(target);
      currentChain = target;
      await emit("chainChanged", numberToHex(target));
    },
    async switchAccount(key) {
      account = privateKeyToAccount(key);
      await emit("accountsChanged", connected ? [account.address] : []);
    },
    rejectNext() {
      rejectNext = true;
    },
  };
}

/** A fresh wallet with sandbox USDC (and a little ETH), or none, injected into the test's page. */
export const test = base.extend<{ wallet: TestWallet; unfundedWallet: TestWallet }>({
  wallet: async ({ page }, use) => {
    const info = sandboxInfo();
    const privateKey = generatePrivateKey();
    const fund = createFunder({ rpcUrl: info.rpcUrl, funder: info.funder, usdcAddress: info.usdc.address });
    await fund({ to: privateKeyToAccount(privateKey).address, usdc: 5_000_000n });
    await use(await installTestWallet(page, { privateKey, rpcUrl: info.rpcUrl, chainId: info.chainId }));
  },
  unfundedWallet: async ({ page }, use) => {
    const info = sandboxInfo();
    await use(await installTestWallet(page, { privateKey: generatePrivateKey(), rpcUrl: info.rpcUrl, chainId: info.chainId }));
  },
});

export { expect };
