// Smart accounts pay through the chat on the sandbox: contract accounts whose owner key signs
// (ERC-1271), and accounts not deployed yet whose signature says how to deploy them (ERC-6492),
// on a real anvil chain with Circle's USDC, the local facilitator and x402 services. The paying
// address, not its owner key, is what pays, what the limits count and what the ledger records.
import { createPublicClient, createTestClient, getAddress, http, toHex, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { createServer } from "node:http";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { eip6492FactoriesOf, findNetwork } from "@/lib/chain/networks";
import { SignatureCheckUnavailableError, verifyPaymentSignature } from "@/lib/chain/signature";
import { createChatTools } from "@/lib/chat/tools";
import { findPayment } from "@/lib/payments/ledger";
import { formatUsd } from "@/lib/money";
import { CREATE2_FACTORY, smartAccount, smartAccountSigner, startSandbox, type Sandbox, type SmartAccount } from "@/sandbox";
import { freePort } from "@/sandbox/ports";
import { collectLines, createTestChat, textOf, type TestChat } from "@/tests/helpers/chat";
import {
  finishOf as finish,
  generousLimits as generous,
  payingModel,
  paymentsOf as payments,
  requestQuote as quote,
  sandboxEnv,
  sandboxService,
  sendApproval as approve,
  signQuote as sign,
  usdcBalance,
  type Payer,
  type Quoted,
} from "@/tests/helpers/paid-chat";

let sandbox: Sandbox;
let chat: TestChat;
let chain: ReturnType<typeof createPublicClient>;
let balanceOf: ReturnType<typeof usdcBalance>;

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  chain = createPublicClient({ transport: http(sandbox.info.rpcUrl) });
  balanceOf = usdcBalance(sandbox);
  chat = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox) });
});
afterAll(async () => {
  await chat?.close();
  await sandbox?.stop();
});

const isDeployed = async (address: Hex) => {
  const code = await chain.getCode({ address });
  return code !== undefined && code !== "0x";
};

/** A fresh owner key and its smart account, holding `usdc`; deployed unless `counterfactual`. */
async function newSmartAccount({
  usdc = 1_000_000n,
  counterfactual = false,
  factory,
}: { usdc?: bigint; counterfactual?: boolean; factory?: Hex } = {}) {
  const owner = privateKeyToAccount(generatePrivateKey());
  const account: SmartAccount = smartAccount({ owner: owner.address, salt: toHex(crypto.getRandomValues(new Uint8Array(32))), ...(factory ? { factory } : {}) });
  if (!counterfactual) await sandbox.deploySmartAccount(account);
  if (usdc > 0n) await sandbox.fund({ to: account.address, usdc });
  const payer: Payer = smartAccountSigner(account, owner, { deployed: !counterfactual });
  return { owner, account, payer };
}

const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string } }).error;

describe("smart accounts pay", () => {
  test("the sandbox's own smart account is deployed, owned by the demo wallet's key and funded", async () => {
    const { smartAccount: demo, demoWallet } = sandbox.info;
    expect(demo.owner).toBe(demoWallet.address);
    expect(await isDeployed(demo.address)).toBe(true);
    expect(await balanceOf(demo.address)).toBe(25_000_000n);
    // The app allows the factory the sandbox's facilitator deploys counterfactual accounts with.
    const network = findNetwork(sandbox.info.network, { X402_NETWORKS: [], rpcUrls: {}, usdcAddresses: { 31337: sandbox.info.usdc.address } });
    expect(network && eip6492FactoriesOf(network)).toEqual(sandbox.info.eip6492Factories);
  });

  test("a deployed ERC-1271 account pays end to end: its USDC moves, its owner's does not, and its ledger counts it", async () => {
    const { owner, account, payer } = await newSmartAccount();
    await sandbox.fund({ to: owner.address, usdc: 1_000_000n });
    const budget = sandboxService(sandbox, "weather-budget");
    const quoted = await quote(chat, payer, "What's the weather in Lisbon?");
    expect(quoted.status.service.url).toBe(budget.url);
    const price = BigInt(budget.priceAtomic);
    const [before, ownerBefore, payeeBefore] = await Promise.all([balanceOf(account.address), balanceOf(owner.address), balanceOf(budget.payTo)]);

    const response = await approve(chat, quoted, await sign(payer, quoted.status));
    expect(response.status).toBe(200);
    const lines = await collectLines(response);
    expect(payments(lines).map((status) => status.status)).toEqual(["submitted", "confirmed", "delivered"]);
    const done = finish(lines);
    expect(done).toMatchObject({ finishReason: "payment-complete", paymentId: quoted.status.paymentId });
    expect(textOf(lines)).toContain("Lisbon");
    const receipt = await chain.getTransactionReceipt({ hash: done?.txHash as Hex });
    expect(receipt.status).toBe("success");

    expect(await balanceOf(account.address)).toBe(before - price);
    expect(await balanceOf(owner.address)).toBe(ownerBefore);
    expect(await balanceOf(budget.payTo)).toBe(payeeBefore + price);
    expect((await findPayment(chat.db, quoted.status.paymentId))?.wallet.toLowerCase()).toBe(account.address.toLowerCase());

    // The spending is the account's: asked as the account it is there, asked as the owner key it is not.
    const spentBy = async (walletAddress: Hex) =>
      textOf(await collectLines(await chat.post({ messages: [{ role: "user", content: "How much have I spent today?" }], walletAddress, spendingLimits: generous })));
    expect(await spentBy(account.address)).toContain(`Last 24 hours: spent $${budget.price} of $1`);
    expect(await spentBy(owner.address)).toContain("Last 24 hours: spent $0.00 of $1.00");
  });

  test("the same approval signed by a key that is not the account's owner is refused and nothing is paid", async () => {
    const { account, payer } = await newSmartAccount();
    const quoted = await quote(chat, payer, "What's the weather in Paris?");
    const before = await balanceOf(account.address);
    const stranger = privateKeyToAccount(generatePrivateKey());

    const refused = await approve(chat, quoted, await sign(stranger, quoted.status));
    expect(refused.status).toBe(400);
    const error = await errorOf(refused);
    expect(error.code).toBe("bad-request");
    expect(error.message).toBe(
      `The smart account ${account.address} does not accept this signature of the payment (checked by ERC-1271): it must be signed by the account's owner. Nothing was paid.`,
    );
    expect(await balanceOf(account.address)).toBe(before);
    expect(await findPayment(chat.db, quoted.status.paymentId)).toBeUndefined();

    // Nothing was reserved: the owner's signature of the same quote then pays.
    const lines = await collectLines(await approve(chat, quoted, await sign(payer, quoted.status)));
    expect(finish(lines)?.finishReason).toBe("payment-complete");
  });

  test("right after its quote, within the cooldown, a key that is not the owner's gets its own refusal, not a 429", async () => {
    const { account, payer } = await newSmartAccount();
    const cooled = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox, { CHAT_COOLDOWN_SECONDS: "50" }) });
    const quoted = await quote(cooled, payer, "What's the weather in Paris?");
    const refused = await approve(cooled, quoted, await sign(privateKeyToAccount(generatePrivateKey()), quoted.status));
    expect(refused.status).toBe(400);
    expect((await errorOf(refused)).message).toContain(`The smart account ${account.address} does not accept this signature`);
    // It counted as a message: the next one waits; the owner's approval of the live quote does not.
    expect((await cooled.post({ messages: [{ role: "user", content: "hello" }], walletAddress: account.address })).status).toBe(429);
    const lines = await collectLines(await approve(cooled, quoted, await sign(payer, quoted.status)));
    expect(finish(lines)?.finishReason).toBe("payment-complete");
    await cooled.close();
  });

  test("an ERC-6492 account not deployed yet pays with the allowed factory, and is deployed by its payment", async () => {
    const { account, payer } = await newSmartAccount({ counterfactual: true });
    expect(account.factory).toBe(CREATE2_FACTORY);
    expect(await isDeployed(account.address)).toBe(false);
    const budget = sandboxService(sandbox, "weather-budget");
    // Pre-flight reads the account's balance: funded, it is quoted, though nothing is deployed there.
    const quoted = await quote(chat, payer, "What's the weather in Tokyo?");
    const before = await balanceOf(account.address);

    const lines = await collectLines(await approve(chat, quoted, await sign(payer, quoted.status)));
    expect(payments(lines).map((status) => status.status)).toEqual(["submitted", "confirmed", "delivered"]);
    expect(finish(lines)?.finishReason).toBe("payment-complete");
    expect(await isDeployed(account.address)).toBe(true);
    expect(await balanceOf(account.address)).toBe(before - BigInt(budget.priceAtomic));
  });

  test("an ERC-6492 account whose factory is not allowed is refused before anything is reserved", async () => {
    // Another generic factory: the same CREATE2 deployer's code at an address nobody allowed.
    const otherFactory = getAddress("0x000000000000000000000000000000000000fac7");
    const testClient = createTestClient({ chain: foundry, mode: "anvil", transport: http(sandbox.info.rpcUrl) });
    await testClient.setCode({ address: otherFactory, bytecode: (await chain.getCode({ address: CREATE2_FACTORY })) as Hex });
    const { account, payer } = await newSmartAccount({ counterfactual: true, factory: otherFactory });
    const quoted = await quote(chat, payer, "What's the weather in Berlin?");
    const before = await balanceOf(account.address);

    const refused = await approve(chat, quoted, await sign(payer, quoted.status));
    expect(refused.status).toBe(400);
    const error = await errorOf(refused);
    expect(error.code).toBe("bad-request");
    expect(error.message).toBe(
      `The account ${account.address} is not deployed yet, and payments on Sandbox may not deploy it with its factory ${otherFactory} (ERC-6492). Deploy the account first, then approve again. Nothing was paid.`,
    );
    expect(await findPayment(chat.db, quoted.status.paymentId)).toBeUndefined();
    expect(await isDeployed(account.address)).toBe(false);
    expect(await balanceOf(account.address)).toBe(before);
  });

  test("ten approvals at once from one smart account against a limit for three pay exactly three", async () => {
    const news = sandboxService(sandbox, "news-headlines");
    const price = BigInt(news.priceAtomic);
    const { account, payer } = await newSmartAccount();
    const limits = { ...generous, daily: formatUsd(price * 3n) };
    const target = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox), model: payingModel(news.url, { topic: "technology" }) });
    try {
      const quotes: Quoted[] = [];
      for (let i = 0; i < 10; i += 1) quotes.push(await quote(target, payer, "Headlines please", limits));
      const before = await balanceOf(account.address);
      const responses = await Promise.all(quotes.map(async (quoted) => approve(target, quoted, await sign(payer, quoted.status))));
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(3);
      expect(statuses.filter((status) => status === 403)).toHaveLength(7);
      const completed = await Promise.all(responses.filter((response) => response.status === 200).map(collectLines));
      expect(completed.map((lines) => finish(lines)?.finishReason)).toEqual(["payment-complete", "payment-complete", "payment-complete"]);
      expect(await balanceOf(account.address)).toBe(before - 3n * price);
    } finally {
      await target.close();
    }
  });

  test("a chain that does not answer the signature check is a blockchain-error, not a refused signature", async () => {
    const { account, payer } = await newSmartAccount();
    const quoted = await quote(chat, payer, "What's the weather in London?");
    // The same server secret, but its RPC is a port nobody listens on.
    const silentRpc = `http://127.0.0.1:${await freePort()}`;
    const cut = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox, { [`RPC_URL_${sandbox.info.chainId}`]: silentRpc }) });
    try {
      const response = await approve(cut, quoted, await sign(payer, quoted.status));
      expect(response.status).toBe(500);
      const error = await errorOf(response);
      expect(error.code).toBe("blockchain-error");
      expect(error.message).toBe("Could not check the payment's signature on Sandbox: its RPC did not answer. Nothing was paid; please try again.");
      expect(await findPayment(cut.db, quoted.status.paymentId)).toBeUndefined();
    } finally {
      await cut.close();
    }
    expect(await balanceOf(account.address)).toBe(1_000_000n);
  });
});

describe("the sandbox facilitator and ERC-6492", () => {
  /** Pays a service directly with the real x402 client, signing as the smart account. */
  async function payDirectly(payer: Payer, url: string) {
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: payer });
    client.setSpendControls({ allowedAssets: [{ network: sandbox.info.network, asset: sandbox.info.usdc.address }] });
    const response = await wrapFetchWithPayment(fetch, client)(url);
    const body: unknown = await response.json().catch(() => undefined);
    const refusal = response.status === 402 ? new x402HTTPClient(client).getPaymentRequiredResponse((name) => response.headers.get(name), body).error : undefined;
    return { status: response.status, refusal };
  }

  test("deploys a counterfactual account whose factory it allows, and refuses one whose factory it does not", async () => {
    const url = `${sandboxService(sandbox, "currency-convert").url}?from=USD&to=EUR&amount=10`;
    const allowed = await newSmartAccount({ counterfactual: true });
    expect(await payDirectly(allowed.payer, url)).toEqual({ status: 200, refusal: undefined });
    expect(await isDeployed(allowed.account.address)).toBe(true);

    const otherFactory = getAddress("0x000000000000000000000000000000000000fac8");
    const testClient = createTestClient({ chain: foundry, mode: "anvil", transport: http(sandbox.info.rpcUrl) });
    await testClient.setCode({ address: otherFactory, bytecode: (await chain.getCode({ address: CREATE2_FACTORY })) as Hex });
    const other = await newSmartAccount({ counterfactual: true, factory: otherFactory });
    const before = await balanceOf(other.account.address);
    expect(await payDirectly(other.payer, url)).toEqual({ status: 402, refusal: "eip6492_factory_not_allowed" });
    expect(await isDeployed(other.account.address)).toBe(false);
    expect(await balanceOf(other.account.address)).toBe(before);
  });
});

describe("the signature check's time bound", () => {
  test("a node that takes the request and never answers fails the check as unavailable", async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as { port: number };
    try {
      const network = findNetwork(sandbox.info.network, {
        X402_NETWORKS: [sandbox.info.network],
        rpcUrls: { 31337: `http://127.0.0.1:${port}` },
        usdcAddresses: { 31337: sandbox.info.usdc.address },
      });
      if (!network) throw new Error("no sandbox network");
      const { account, payer } = await newSmartAccount({ usdc: 0n });
      const typedData = {
        domain: { name: "USD Coin", version: "2", chainId: 31337, verifyingContract: sandbox.info.usdc.address },
        types: { Note: [{ name: "text", type: "string" }] },
        primaryType: "Note",
        message: { text: "hello" },
      };
      const signature = await payer.signTypedData({ ...typedData, primaryType: "Note" });
      await expect(verifyPaymentSignature({ network, address: account.address, typedData, signature, timeoutMs: 300 })).rejects.toThrow(
        SignatureCheckUnavailableError,
      );
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
