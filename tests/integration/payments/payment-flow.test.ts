// The whole payment path through POST /api/chat on the sandbox: a real anvil chain, Circle's
// USDC, the local facilitator and x402 services, a real PGlite ledger, and a test key signing
// as the person's wallet would. The model is the offline model or a scripted mock.
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { createPublicClient, erc20Abi, http, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createChatTools } from "@/lib/chat/tools";
import { clearDiscoveryCache } from "@/lib/x402/discovery";
import { typedDataMessage } from "@/lib/x402/typed-data";
import { formatUsd } from "@/lib/payments/money";
import { isFinishLine, type PaymentStatus, type StreamLine } from "@/lib/protocol/lines";
import { startSandbox, type Sandbox } from "@/sandbox";
import { collectLines, createTestChat, textOf, type TestChat } from "@/tests/helpers/chat";

let sandbox: Sandbox;
let chat: TestChat;
let chain: ReturnType<typeof createPublicClient>;

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, includeTestOnly: true, writeInfoFile: false });
  chain = createPublicClient({ transport: http(sandbox.info.rpcUrl) });
  chat = await createTestChat({ tools: createChatTools, env: sandboxEnv() });
});
afterAll(async () => {
  await chat?.close();
  await sandbox?.stop();
});

function sandboxEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    X402_DISCOVERY_URLS: sandbox.info.registryUrl,
    X402_NETWORKS: sandbox.info.network,
    [`RPC_URL_${sandbox.info.chainId}`]: sandbox.info.rpcUrl,
    [`USDC_ADDRESS_${sandbox.info.chainId}`]: sandbox.info.usdc.address,
    PAYMENT_TOKEN_SECRET: "test-secret-that-is-at-least-32-characters",
    ...extra,
  };
}

const service = (name: string) => {
  const found = sandbox.info.services.find((entry) => entry.name === name);
  if (!found) throw new Error(`no sandbox service ${name}`);
  return found;
};

async function newPayer(usdc = 1_000_000n): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  if (usdc > 0n) await sandbox.fund({ to: account.address, usdc });
  return account;
}

const balanceOf = (owner: `0x${string}`) =>
  chain.readContract({ address: sandbox.info.usdc.address, abi: erc20Abi, functionName: "balanceOf", args: [owner] });

const generous = { daily: "1", weekly: "5", monthly: "20", perPayment: "0.5" };

/** A model that asks for one paid call, then answers with plain text from the result. */
function payingModel(url: string, query: Record<string, string> = {}) {
  const finish = (unified: "stop" | "tool-calls"): LanguageModelV4StreamPart => ({
    type: "finish",
    finishReason: { unified, raw: undefined },
    usage: {
      inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 1, text: 1, reasoning: undefined },
    },
  });
  return new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      const last = prompt.at(-1);
      if (last?.role === "tool") {
        return {
          stream: convertArrayToReadableStream<LanguageModelV4StreamPart>([
            { type: "text-start", id: "1" },
            { type: "text-delta", id: "1", delta: "Done." },
            { type: "text-end", id: "1" },
            finish("stop"),
          ]),
        };
      }
      return {
        stream: convertArrayToReadableStream<LanguageModelV4StreamPart>([
          { type: "tool-call", toolCallId: `c${prompt.length}`, toolName: "payForService", input: JSON.stringify({ url, query }) },
          finish("tool-calls"),
        ]),
      };
    },
  });
}

const payments = (lines: StreamLine[]): PaymentStatus[] =>
  lines.flatMap((line) => (line.type === "payment" ? [line.payment] : []));
const finish = (lines: StreamLine[]) => {
  const finals = lines.filter(isFinishLine);
  expect(finals).toHaveLength(1);
  expect(isFinishLine(lines.at(-1) as StreamLine)).toBe(true);
  return finals[0]?.data;
};

type Quoted = { status: PaymentStatus; body: Record<string, unknown> };

/** Request A: ask, and get the quote that awaits the wallet's signature. */
async function quote(target: TestChat, payer: PrivateKeyAccount, content: string, limits = generous): Promise<Quoted> {
  const body = { messages: [{ role: "user", content }], walletAddress: payer.address, spendingLimits: limits };
  const lines = await collectLines(await target.post(body));
  const awaiting = payments(lines).find((status) => status.status === "awaiting-signature");
  if (!awaiting) throw new Error(`no quote: ${JSON.stringify(lines)}`);
  expect(finish(lines)?.finishReason).toBe("stop");
  return { status: awaiting, body };
}

async function sign(payer: PrivateKeyAccount, status: PaymentStatus): Promise<Hex> {
  const typedData = status.approval?.typedData as Parameters<typeof typedDataMessage>[0];
  return payer.signTypedData({
    domain: typedData.domain,
    types: typedData.types,
    primaryType: typedData.primaryType,
    message: typedDataMessage(typedData),
  });
}

/** Request B: the same messages plus the signed approval. */
async function approve(target: TestChat, quoted: Quoted, signature: Hex, token = quoted.status.approval?.token ?? "") {
  return target.post({ ...quoted.body, payment: { paymentId: quoted.status.paymentId, token, signature } });
}

describe("paying through the chat", () => {
  test("a person asks for the weather, approves in their wallet, and the payment settles on chain", async () => {
    clearDiscoveryCache();
    const payer = await newPayer();
    const quoted = await quote(chat, payer, "What's the weather in Lisbon?");
    // The offline model compared the two weather services and picked the cheaper one.
    const budget = service("weather-budget");
    expect(quoted.status).toMatchObject({
      service: { url: budget.url },
      network: sandbox.info.network,
      amount: { serviceFee: budget.price, gasFee: "0", total: budget.price, currency: "USDC", usd: budget.price },
      asset: { symbol: "USDC", address: sandbox.info.usdc.address, decimals: 6 },
    });
    expect(Date.parse(quoted.status.approval?.expiresAt ?? "")).toBeGreaterThan(Date.now());
    const before = await balanceOf(payer.address);
    const payeeBefore = await balanceOf(budget.payTo);

    const response = await approve(chat, quoted, await sign(payer, quoted.status));
    expect(response.status).toBe(200);
    const lines = await collectLines(response);
    expect(payments(lines).map((status) => status.status)).toEqual(["submitted", "confirmed", "delivered"]);
    const done = finish(lines);
    expect(done).toMatchObject({ finishReason: "payment-complete", paymentId: quoted.status.paymentId, network: sandbox.info.network });
    const txHash = done?.txHash as Hex;
    expect(done?.explorerUrl).toContain(txHash);
    expect(textOf(lines)).toContain("Lisbon");

    const receipt = await chain.getTransactionReceipt({ hash: txHash });
    expect(receipt.status).toBe("success");
    const atomic = BigInt(budget.priceAtomic);
    expect(await balanceOf(payer.address)).toBe(before - atomic);
    expect(await balanceOf(budget.payTo)).toBe(payeeBefore + atomic);

    // The ledger knows it: getSpending reports it.
    const spending = await collectLines(
      await chat.post({ messages: [{ role: "user", content: "How much have I spent today?" }], walletAddress: payer.address, spendingLimits: generous }),
    );
    expect(textOf(spending)).toContain(`Last 24 hours: spent $${budget.price} of $1`);

    // The same approval sent again pays nothing more and gets the first outcome.
    const again = await collectLines(await approve(chat, quoted, await sign(payer, quoted.status)));
    expect(finish(again)).toMatchObject({ finishReason: "payment-complete", txHash });
    expect(await balanceOf(payer.address)).toBe(before - atomic);
  });

  test("ten approvals at once against a limit for three pay exactly three", async () => {
    const news = service("news-headlines");
    const price = BigInt(news.priceAtomic);
    const payer = await newPayer();
    const limits = { ...generous, daily: formatUsd(price * 3n) };
    const target = await createTestChat({ tools: createChatTools, env: sandboxEnv(), model: payingModel(news.url, { topic: "technology" }) });
    const quotes: Quoted[] = [];
    for (let i = 0; i < 10; i += 1) quotes.push(await quote(target, payer, "Headlines please", limits));
    const before = await balanceOf(payer.address);
    const responses = await Promise.all(quotes.map(async (quoted) => approve(target, quoted, await sign(payer, quoted.status))));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(3);
    expect(statuses.filter((status) => status === 403)).toHaveLength(7);
    const completed = await Promise.all(
      responses.filter((response) => response.status === 200).map(async (response) => collectLines(response)),
    );
    expect(completed.map((lines) => finish(lines)?.finishReason), JSON.stringify(completed.map(payments))).toEqual([
      "payment-complete",
      "payment-complete",
      "payment-complete",
    ]);
    const refused = (await responses.find((response) => response.status === 403)?.json()) as { error: { code: string } };
    expect(refused.error.code).toBe("limit-exceeded");
    expect(await balanceOf(payer.address)).toBe(before - 3n * price);
    await target.close();
  });

  test("a changed token, amount, recipient or signer is refused and nothing is paid", async () => {
    const payer = await newPayer();
    const quoted = await quote(chat, payer, "What's the weather in Paris?");
    const signature = await sign(payer, quoted.status);
    const token = quoted.status.approval?.token ?? "";
    const [body, mac] = token.split(".");
    const claims = JSON.parse(Buffer.from(body ?? "", "base64url").toString("utf8")) as Record<string, unknown>;
    const forged = (change: Record<string, unknown>) =>
      `${Buffer.from(JSON.stringify({ ...claims, ...change }), "utf8").toString("base64url")}.${mac}`;
    const before = await balanceOf(payer.address);

    for (const changed of [forged({ amount: "1" }), forged({ payTo: "0x000000000000000000000000000000000000dEaD" }), `${token}x`]) {
      const response = await approve(chat, quoted, signature, changed);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("bad-request");
    }
    const stranger = privateKeyToAccount(generatePrivateKey());
    const wrongSigner = await approve(chat, quoted, await sign(stranger, quoted.status));
    expect(wrongSigner.status).toBe(400);
    expect(((await wrongSigner.json()) as { error: { message: string } }).error.message).toMatch(/signature/);
    expect(await balanceOf(payer.address)).toBe(before);
  });

  test("a service that fails after verification charges nothing", async () => {
    const payer = await newPayer();
    const crypto = service("crypto-prices");
    const target = await createTestChat({ tools: createChatTools, env: sandboxEnv(), model: payingModel(crypto.url, { symbol: "BTC" }) });
    const quoted = await quote(target, payer, "BTC price");
    const before = await balanceOf(payer.address);
    sandbox.setServiceFailing(crypto.name, true);
    try {
      const lines = await collectLines(await approve(target, quoted, await sign(payer, quoted.status)));
      const failed = payments(lines).at(-1);
      expect(failed?.status).toBe("failed");
      expect(failed?.reason?.code).toBe("service-unavailable");
      expect(finish(lines)?.finishReason).toBe("service-unavailable");
    } finally {
      sandbox.setServiceFailing(crypto.name, false);
    }
    expect(await balanceOf(payer.address)).toBe(before);
    // Released: the same budget can be spent again.
    const retry = await quote(target, payer, "BTC price");
    const lines = await collectLines(await approve(target, retry, await sign(payer, retry.status)));
    expect(finish(lines)?.finishReason).toBe("payment-complete");
    await target.close();
  });

  test("a service that is down: at request A the stream says so; after approval the answer is 503", async () => {
    const payer = await newPayer();
    const currency = service("currency-convert");
    const target = await createTestChat({
      tools: createChatTools,
      env: sandboxEnv(),
      model: payingModel(currency.url, { amount: "10", from: "USD", to: "EUR" }),
    });
    const quoted = await quote(target, payer, "Convert 10 USD to EUR");
    const before = await balanceOf(payer.address);
    sandbox.setServiceOnline(currency.name, false);
    try {
      const asked = await collectLines(
        await target.post({ messages: [{ role: "user", content: "Convert 10 USD to EUR" }], walletAddress: payer.address, spendingLimits: generous }),
      );
      expect(finish(asked)?.finishReason).toBe("service-unavailable");
      const response = await approve(target, quoted, await sign(payer, quoted.status));
      expect(response.status).toBe(503);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("service-unavailable");
    } finally {
      sandbox.setServiceOnline(currency.name, true);
    }
    expect(await balanceOf(payer.address)).toBe(before);
    await target.close();
  });

  test("limits and balance are checked before asking for a signature", async () => {
    const news = service("news-headlines");
    const target = await createTestChat({ tools: createChatTools, env: sandboxEnv(), model: payingModel(news.url, { topic: "technology" }) });
    // Above the per-payment limit.
    const rich = await newPayer();
    const tooDear = await collectLines(
      await target.post({
        messages: [{ role: "user", content: "Headlines please" }],
        walletAddress: rich.address,
        spendingLimits: { ...generous, perPayment: "0.001" },
      }),
    );
    expect(finish(tooDear)?.finishReason).toBe("limit-exceeded");
    expect(payments(tooDear).some((status) => status.status === "awaiting-signature")).toBe(false);
    // A wallet without USDC.
    const poor = await newPayer(0n);
    const broke = await collectLines(
      await target.post({ messages: [{ role: "user", content: "Headlines please" }], walletAddress: poor.address, spendingLimits: generous }),
    );
    expect(payments(broke).map((status) => [status.status, status.reason?.code])).toEqual([
      ["checking", undefined],
      ["failed", "insufficient-balance"],
    ]);
    expect(finish(broke)?.finishReason).toBe("insufficient-balance");
    await target.close();
  });

  test("an approval signed too late is refused as expired and charges nothing", async () => {
    const payer = await newPayer();
    const quoted = await quote(chat, payer, "What's the weather in Berlin?");
    const expiresAt = Date.parse(quoted.status.approval?.expiresAt ?? "");
    const late = await createTestChat({ tools: createChatTools, env: sandboxEnv(), now: () => new Date(expiresAt + 1_000) });
    const before = await balanceOf(payer.address);
    const lines = await collectLines(await approve(late, quoted, await sign(payer, quoted.status)));
    expect(payments(lines).map((status) => [status.status, status.reason?.code])).toEqual([["failed", "expired"]]);
    expect(finish(lines)?.finishReason).toBe("payment-failed");
    expect(await balanceOf(payer.address)).toBe(before);
    await late.close();
  });

  test("discovery lists every sandbox service with its price and network", async () => {
    clearDiscoveryCache();
    const lines = await collectLines(await chat.post({ messages: [{ role: "user", content: "List the available services" }] }));
    const text = textOf(lines);
    for (const entry of sandbox.info.services.filter((listed) => listed.listed)) {
      expect(text).toContain(`${entry.serviceName} ($${entry.price} per call`);
    }
    expect(text).toContain(sandbox.info.network);
  });

  test("a service whose listing and answer say to pay more elsewhere gets only what was quoted", async () => {
    const hostile = sandbox.info.services.find((entry) => entry.tags.includes("test-only"));
    if (!hostile) throw new Error("no test-only service");
    const payer = await newPayer();
    const target = await createTestChat({ tools: createChatTools, env: sandboxEnv(), model: payingModel(hostile.url) });
    const quoted = await quote(target, payer, "Did I win?");
    expect(quoted.status.amount.total).toBe(hostile.price);
    const before = await balanceOf(payer.address);
    const lines = await collectLines(await approve(target, quoted, await sign(payer, quoted.status)));
    expect(finish(lines)?.finishReason).toBe("payment-complete");
    // Only the quoted price left the wallet; no further payment was quoted or sent.
    expect(await balanceOf(payer.address)).toBe(before - BigInt(hostile.priceAtomic));
    expect(payments(lines).some((status) => status.status === "awaiting-signature")).toBe(false);
    await target.close();
  });
});
