// A browser wallet for the end-to-end tests: an EIP-1193 provider injected into the page before
// any script runs and announced through EIP-6963, so the page's real RainbowKit and wagmi code
// finds and connects it like an extension. Requests are answered here in Node: accounts and
// chain state, signatures from a viem account holding a fresh sandbox key, and everything else
// forwarded to the sandbox chain. The wallet may also be a smart account's, as a smart-account
// wallet is: it announces the contract account's address and signs with its owner key (ERC-1271).
// The test can switch the wallet's chain or account, count signature prompts and reject the next one.
import { createHash } from "node:crypto";
import { test as base, expect, type Page } from "@playwright/test";
import { createWalletClient, http, isAddressEqual, numberToHex, toHex, type Hex, type TypedDataDefinition } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { createFunder } from "@/sandbox/funder";
import { watchCspViolations, type CspWatch } from "./csp";
import { deploySmartAccount, smartAccount, smartAccountSigner, type SmartAccount } from "@/sandbox/smart-account";
import { sandboxInfo } from "./sandbox";
import { installSolanaTestWallet, type SolanaTestWallet } from "./solana-wallet";

export const TEST_WALLET_NAME = "Test Wallet";
export const TEST_WALLET_RDNS = "dev.test.wallet";
const ICON =
  "data:image/svg+xml;base64," +
  Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#6b4fd8"/>' +
      '<path d="M9 12h14v10H9z" fill="none" stroke="#fff" stroke-width="2"/></svg>',
  ).toString("base64");
/** What a fresh funded wallet holds: 5 USDC (atomic units, 6 decimals). */
export const TEST_WALLET_USDC = 5_000_000n;

/** EIP-1193 / EIP-1474 error codes the page may tell apart. */
const USER_REJECTED = 4001;
const UNAUTHORIZED = 4100;
const UNRECOGNIZED_CHAIN = 4902;
const INTERNAL_ERROR = -32603;

type RpcError = { code: number; message: string; data?: unknown };
type WalletEvent = "accountsChanged" | "chainChanged" | "connect" | "disconnect";

export type TestWallet = {
  /** The account the wallet signs for now (a smart account's address, when it is one). */
  readonly address: Hex;
  /** The key that signs: the account's own, or the smart account's owner. */
  readonly signer: Hex;
  /** The chain the wallet is on now. */
  readonly chainId: number;
  /** Whether the page has been given the account (eth_requestAccounts, until revoked). */
  readonly connected: boolean;
  /** How many prompts (typed data, personal_sign or a transaction) the page opened, rejected ones
   * included (a request naming another account opens none). */
  readonly signRequests: number;
  /** How many transactions the wallet sent for the page (the person paying their gas). */
  readonly transactions: number;
  /** Switches the wallet's chain from the wallet's side, as a person would in the extension. */
  setChain: (chainId: number) => Promise<void>;
  /** Switches the wallet to another account, as a person would in the extension. */
  switchAccount: (privateKey: Hex) => Promise<void>;
  /** The next signature request is refused as a person clicking Reject in the wallet would. */
  rejectNext: () => void;
};

export type InstallTestWalletParameters = {
  privateKey: Hex;
  /** Where reads (eth_call, eth_getBalance, ...) go. */
  rpcUrl: string;
  /** The chain the wallet starts on; it also knows mainnet, and any chain the page adds. */
  chainId: number;
  /** A deployed smart account owned by `privateKey`: the wallet announces it and signs for it. */
  smartAccount?: SmartAccount;
};

/** Decimal strings (or hex) in uint/int fields, as pages send them in JSON, become bigints,
 * through nested structs and arrays. */
function typedValue(type: string, value: unknown, types: Record<string, { name: string; type: string }[]>): unknown {
  const array = /^(.*)\[\d*\]$/.exec(type);
  if (array?.[1] && Array.isArray(value)) return value.map((item) => typedValue(array[1] as string, item, types));
  if (/^u?int\d*$/.test(type) && (typeof value === "string" || typeof value === "number")) return BigInt(value);
  const fields = types[type];
  if (fields && value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(fields.map((field) => [field.name, typedValue(field.type, record[field.name], types)]));
  }
  return value;
}

/**
 * The page's side of the wallet, run before any of the page's scripts: an EIP-1193 provider whose
 * requests go to `__testWalletRequest` (this module, in Node), whose events come from
 * `__testWalletEmit`, set as window.ethereum and announced through EIP-6963. Plain JavaScript
 * text rather than a function, so that no transpiler's helpers end up in the page.
 */
function providerScript(info: { uuid: string; name: string; icon: string; rdns: string }): string {
  return `(() => {
  const listeners = new Map();
  const provider = {
    isTestWallet: true,
    async request({ method, params }) {
      const list = params === undefined ? [] : Array.isArray(params) ? params : [params];
      const answer = JSON.parse(await window.__testWalletRequest(JSON.stringify({ method, params: list })));
      if (answer.error) throw Object.assign(new Error(answer.error.message), answer.error);
      return answer.result;
    },
    on(event, listener) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event).add(listener);
      return provider;
    },
    removeListener(event, listener) {
      listeners.get(event)?.delete(listener);
      return provider;
    },
    off(event, listener) {
      return provider.removeListener(event, listener);
    },
  };
  Object.defineProperty(window, "__testWalletEmit", {
    value: (event, value) => {
      for (const listener of [...(listeners.get(event) ?? [])]) {
        try {
          listener(value);
        } catch (error) {
          console.error(error);
        }
      }
    },
  });
  // A legacy injected wallet too, for code that reads window.ethereum; left writable, as
  // extensions leave it.
  window.ethereum = provider;
  const detail = Object.freeze({ info: Object.freeze(${JSON.stringify(info)}), provider });
  const announce = () => window.dispatchEvent(new CustomEvent("eip6963:announceProvider", { detail }));
  window.addEventListener("eip6963:requestProvider", announce);
  announce();
})();`;
}

export async function installTestWallet(page: Page, { privateKey, rpcUrl, chainId, smartAccount: smart }: InstallTestWalletParameters): Promise<TestWallet> {
  /** The key that signs, and the account the page sees: the key's own, or its smart account. */
  let key: PrivateKeyAccount = privateKeyToAccount(privateKey);
  let account: Pick<PrivateKeyAccount, "address" | "signTypedData"> = smart ? smartAccountSigner(smart, key, { deployed: true }) : key;
  let connected = false;
  let currentChain = chainId;
  const knownChains = new Set([1, chainId]);
  let signRequests = 0;
  let transactions = 0;
  let rejectNext = false;

  // Events reach the page's listeners through the init script's dispatcher; a page that is
  // navigating away has no listeners left to tell, and the next one asks for the state anew.
  const emit = async (event: WalletEvent, payload: unknown) => {
    await page
      .evaluate(([name, value]) => (window as unknown as { __testWalletEmit?: (n: string, v: unknown) => void }).__testWalletEmit?.(name, value), [event, payload] as const)
      .catch(() => undefined);
  };

  const switchTo = async (target: number) => {
    if (target === currentChain) return;
    currentChain = target;
    await emit("chainChanged", numberToHex(target));
  };

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

  /** A signature prompt: refused at once when the page names another account (no prompt opens),
   * else counted, then refused if the test asked for that. */
  const prompt = (from: unknown) => {
    if (typeof from !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(from) || !isAddressEqual(from as Hex, account.address)) {
      throw { code: UNAUTHORIZED, message: `The requested account ${String(from)} is not this wallet's.` } satisfies RpcError;
    }
    signRequests += 1;
    if (rejectNext) {
      rejectNext = false;
      throw { code: USER_REJECTED, message: "User rejected the request." } satisfies RpcError;
    }
  };

  const permissions = () => [
    { parentCapability: "eth_accounts", caveats: [{ type: "restrictReturnedAccounts", value: [account.address] }] },
  ];

  const handle = async (method: string, params: unknown[]): Promise<unknown> => {
    switch (method) {
      case "eth_accounts":
        return connected ? [account.address] : [];
      case "eth_requestAccounts":
      case "wallet_requestPermissions":
        // The answer itself tells the page; an accountsChanged as well would start wagmi's
        // "connected from the wallet" path alongside the connect it is already running.
        connected = true;
        return method === "eth_requestAccounts" ? [account.address] : permissions();
      case "wallet_getPermissions":
        return connected ? permissions() : [];
      case "wallet_revokePermissions":
        if (connected) {
          connected = false;
          await emit("accountsChanged", []);
        }
        return null;
      case "eth_chainId":
        return numberToHex(currentChain);
      case "net_version":
        return String(currentChain);
      case "wallet_switchEthereumChain": {
        const target = Number((params[0] as { chainId: string }).chainId);
        if (!knownChains.has(target)) {
          throw { code: UNRECOGNIZED_CHAIN, message: `Unrecognized chain ID "${numberToHex(target)}". Try adding the chain using wallet_addEthereumChain first.` } satisfies RpcError;
        }
        await switchTo(target);
        return null;
      }
      case "wallet_addEthereumChain": {
        // As a person approving both prompts in a wallet: the chain is added, then switched to.
        const target = Number((params[0] as { chainId: string }).chainId);
        knownChains.add(target);
        await switchTo(target);
        return null;
      }
      case "eth_signTypedData_v4": {
        const [from, json] = params as [unknown, string];
        prompt(from);
        const typed = JSON.parse(json) as {
          domain: Record<string, unknown>;
          types: Record<string, { name: string; type: string }[]>;
          primaryType: string;
          message: Record<string, unknown>;
        };
        if (typed.domain.chainId !== undefined && Number(typed.domain.chainId) !== currentChain) {
          throw { code: INTERNAL_ERROR, message: `Provided chainId "${String(typed.domain.chainId)}" must match the active chainId "${currentChain}"` } satisfies RpcError;
        }
        const { EIP712Domain: _domain, ...types } = typed.types;
        const domain = typedValue("EIP712Domain", typed.domain, typed.types) as Record<string, unknown>;
        const message = typedValue(typed.primaryType, typed.message, types);
        return account.signTypedData({ domain, types, primaryType: typed.primaryType, message } as unknown as TypedDataDefinition);
      }
      case "personal_sign": {
        const [data, from] = params as [string, unknown];
        prompt(from);
        return key.signMessage({ message: /^0x[0-9a-fA-F]*$/.test(data) ? { raw: data as Hex } : data });
      }
      case "eth_sendTransaction": {
        // The agent budget's grant and withdrawal: the person's own transactions, gas included.
        // A payment is never one (x402 payments are signed authorizations).
        const [request] = params as [{ from?: string; to?: Hex; data?: Hex; value?: Hex; gas?: Hex }];
        prompt(request?.from);
        if (smart) throw { code: UNAUTHORIZED, message: "The test smart-account wallet sends no transactions." } satisfies RpcError;
        transactions += 1;
        const client = createWalletClient({ account: key, transport: http(rpcUrl) });
        return client.sendTransaction({
          chain: null,
          to: request.to ?? null,
          ...(request.data ? { data: request.data } : {}),
          ...(request.value ? { value: BigInt(request.value) } : {}),
          ...(request.gas ? { gas: BigInt(request.gas) } : {}),
        });
      }
      case "eth_sign":
      case "eth_signTransaction":
        throw { code: UNAUTHORIZED, message: `The test wallet does not support ${method}.` } satisfies RpcError;
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
      return JSON.stringify({ error: { code: rpc.code ?? INTERNAL_ERROR, message: rpc.message ?? String(error), data: rpc.data } });
    }
  });

  await page.addInitScript({
    content: providerScript({ uuid: crypto.randomUUID(), name: TEST_WALLET_NAME, icon: ICON, rdns: TEST_WALLET_RDNS }),
  });

  return {
    get address() {
      return account.address;
    },
    get signer() {
      return key.address;
    },
    get chainId() {
      return currentChain;
    },
    get connected() {
      return connected;
    },
    get signRequests() {
      return signRequests;
    },
    get transactions() {
      return transactions;
    },
    async setChain(target) {
      knownChains.add(target);
      await switchTo(target);
    },
    async switchAccount(privateKey) {
      key = privateKeyToAccount(privateKey);
      account = key;
      if (connected) await emit("accountsChanged", [account.address]);
    },
    rejectNext() {
      rejectNext = true;
    },
  };
}

/** A new random account on the test sandbox, holding `usdc` (atomic units) when more than 0. */
export async function newSandboxAccount({ usdc, eth = 0n }: { usdc: bigint; eth?: bigint }): Promise<{ privateKey: Hex; address: Hex }> {
  const privateKey = generatePrivateKey();
  const { address } = privateKeyToAccount(privateKey);
  if (usdc > 0n || eth > 0n) {
    const info = sandboxInfo();
    const fund = createFunder({ rpcUrl: info.rpcUrl, funder: info.funder, usdcAddress: info.usdc.address });
    await fund({ to: address, ...(usdc > 0n ? { usdc } : {}), ...(eth > 0n ? { eth } : {}) });
  }
  return { privateKey, address };
}

/** A new smart account on the test sandbox, deployed, owned by a fresh key, holding `usdc`. */
export async function newSandboxSmartAccount({ usdc }: { usdc: bigint }): Promise<{ privateKey: Hex; account: SmartAccount }> {
  const info = sandboxInfo();
  const privateKey = generatePrivateKey();
  const account = smartAccount({ owner: privateKeyToAccount(privateKey).address, salt: toHex(crypto.getRandomValues(new Uint8Array(32))) });
  const fund = createFunder({ rpcUrl: info.rpcUrl, funder: info.funder, usdcAddress: info.usdc.address });
  await deploySmartAccount({ rpcUrl: info.rpcUrl, account, transact: fund.transact });
  if (usdc > 0n) await fund({ to: account.address, usdc });
  return { privateKey, account };
}

export type WalletFixtures = {
  /** A fresh sandbox account holding TEST_WALLET_USDC, injected into the test's page. */
  wallet: TestWallet;
  /** A fresh smart account (ERC-1271) holding TEST_WALLET_USDC, its owner key holding nothing,
   * injected into the test's page as a smart-account wallet. */
  smartWallet: TestWallet;
  /** A fresh sandbox account holding nothing, injected into the test's page. */
  unfundedWallet: TestWallet;
  /** A fresh sandbox account holding TEST_WALLET_USDC and 1 ETH for its own transactions' gas. */
  gasWallet: TestWallet;
  /** A fresh Solana key holding TEST_WALLET_USDC on the local Solana, injected as a Wallet Standard wallet. */
  solanaWallet: SolanaTestWallet;
};

export const test = base.extend<WalletFixtures & { cspViolations: CspWatch }>({
  // Every test with a wallet, connecting and paying included, runs under the app's content
  // security policy and must not meet a single violation of it.
  cspViolations: [
    async ({ page }, use) => {
      const watch = await watchCspViolations(page);
      await use(watch);
      expect(watch.violations, "content security policy violations").toEqual([]);
    },
    { auto: true },
  ],
  // Each test is a client of its own too, as the proxy the tests stand in for reports it
  // (TRUSTED_PROXY_HOPS=1 in playwright.config.ts): the cooldown counts the client as well as
  // the wallet, and one test's last message must not hold up the next test's first. Only the
  // app's own API requests carry the header, as a proxy in front of the app would add it:
  // the page's requests to the chain's RPC go elsewhere, and an extra header there would
  // turn them into CORS preflights the RPC refuses.
  page: async ({ page, baseURL }, use, testInfo) => {
    const origin = new URL(baseURL ?? "http://127.0.0.1").origin;
    const address = clientAddressOf(testInfo.testId);
    await page.route(
      (url) => url.origin === origin && url.pathname.startsWith("/api/"),
      (route) => route.continue({ headers: { ...route.request().headers(), "x-forwarded-for": address } }),
    );
    await use(page);
  },
  wallet: async ({ page }, use) => {
    const { rpcUrl, chainId } = sandboxInfo();
    const { privateKey } = await newSandboxAccount({ usdc: TEST_WALLET_USDC });
    await use(await installTestWallet(page, { privateKey, rpcUrl, chainId }));
  },
  smartWallet: async ({ page }, use) => {
    const { rpcUrl, chainId } = sandboxInfo();
    const { privateKey, account } = await newSandboxSmartAccount({ usdc: TEST_WALLET_USDC });
    await use(await installTestWallet(page, { privateKey, rpcUrl, chainId, smartAccount: account }));
  },
  gasWallet: async ({ page }, use) => {
    const { rpcUrl, chainId } = sandboxInfo();
    const { privateKey } = await newSandboxAccount({ usdc: TEST_WALLET_USDC, eth: 10n ** 18n });
    await use(await installTestWallet(page, { privateKey, rpcUrl, chainId }));
  },
  solanaWallet: async ({ page }, use) => {
    await use(await installSolanaTestWallet(page, { usdc: TEST_WALLET_USDC }));
  },
  unfundedWallet: async ({ page }, use) => {
    const { rpcUrl, chainId } = sandboxInfo();
    const { privateKey } = await newSandboxAccount({ usdc: 0n });
    await use(await installTestWallet(page, { privateKey, rpcUrl, chainId }));
  },
});

export { expect };

/** An address of the benchmarking range 198.18.0.0/15, one per test. */
function clientAddressOf(testId: string): string {
  const digest = createHash("sha256").update(testId).digest();
  return `198.18.${digest[0] ?? 0}.${digest[1] ?? 0}`;
}
