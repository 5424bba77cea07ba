// The whole payment path through POST /api/chat on the sandbox: a real anvil chain, Circle's
// USDC, the local facilitator and x402 services, a real PGlite ledger, and a test key signing
// as the person's wallet would. The model is the offline model or a scripted mock.
import { createPublicClient, http, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createChatTools } from "@/lib/chat/tools";
import { clearDiscoveryCache } from "@/lib/x402/discovery";
import { findPayment } from "@/lib/payments/ledger";
import { formatUsd } from "@/lib/money";
import { startSandbox, type Sandbox } from "@/sandbox";
import { collectLines, createTestChat, textOf, type TestChat } from "@/tests/helpers/chat";
import {
  finishOf as finish,
  generousLimits as generous,
  newPayer as fundedPayer,
  payingModel,
  paymentsOf as payments,
  requestQuote as quote,
  sandboxEnv as envOf,
  sandboxService,
  sendApproval,
  signQuote as sign,
  usdcBalance,
  type Quoted,
} from "@/tests/helpers/paid-chat";

let sandbox: Sandbox;
let chat: TestChat;
let chain: ReturnType<typeof createPublicClient>;
let balanceOf: ReturnType<typeof usdcBalance>;

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, includeTestOnly: true, writeInfoFile: false });
  chain = createPublicClient({ transport: http(sandbox.info.rpcUrl) });
  balanceOf = usdcBalance(sandbox);
  chat = await createTestChat({ tools: createChatTools, env: sandboxEnv() });
});
afterAll(async () => {
  await chat?.close();
  await sandbox?.stop();
});

const sandboxEnv = (extra: Record<string, string> = {}) => envOf(sandbox, extra);
const service = (name: string) => sandboxService(sandbox, name);
const newPayer = (usdc?: bigint) => fundedPayer(sandbox, usdc);
const approve = (target: TestChat, quoted: Quoted, signature: Hex, token?: string) =>
  sendApproval(target, quoted, signature, token === undefined ? {} : { token });

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

  test("a service that fails after verification without collecting: pending until the authorization expires, nothing moved", async () => {
    const payer = await newPayer();
    const crypto = service("crypto-prices");
    const target = await createTestChat({ tools: createChatTools, env: sandboxEnv(), model: payingModel(crypto.url, { symbol: "BTC" }) });
    const quoted = await quote(target, payer, "BTC price");
    const before = await balanceOf(payer.address);
    sandbox.setServiceFailing(crypto.name, true);
    try {
      const lines = await collectLines(await approve(target, quoted, await sign(payer, quoted.status)));
      // The service holds a signed authorization it could still use: never "nothing was charged".
      expect(payments(lines).map((status) => [status.status, status.reason?.code])).toEqual([
        ["submitted", undefined],
        ["failed", "payment-pending"],
      ]);
      const pending = payments(lines).at(-1);
      expect(pending?.txHash).toBeUndefined();
      expect(pending?.collectableUntil).toBe(quoted.status.approval?.expiresAt);
      expect(pending?.reason?.message).toMatch(/could still collect it until/);
      expect(finish(lines)?.finishReason).toBe("service-unavailable");
    } finally {
      sandbox.setServiceFailing(crypto.name, false);
    }
    expect(await balanceOf(payer.address)).toBe(before);
    expect((await findPayment(target.db, quoted.status.paymentId))?.status).toBe("pending");
    // Within the limits, another payment can still be made meanwhile.
    const retry = await quote(target, payer, "BTC price");
    const lines = await collectLines(await approve(target, retry, await sign(payer, retry.status)));
    expect(finish(lines)?.finishReason).toBe("payment-complete");
    await target.close();
  });

  test("a service that is down: at request A the stream says so; after approval it is asked of the chain", async () => {
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
      // It answered 503 after receiving the signed payment, so it could still collect it.
      const lines = await collectLines(await approve(target, quoted, await sign(payer, quoted.status)));
      expect(payments(lines).at(-1)?.reason?.code).toBe("payment-pending");
      expect(payments(lines).at(-1)?.reason?.message).toMatch(/HTTP 503/);
      expect(finish(lines)?.finishReason).toBe("service-unavailable");
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
    const model = payingModel(service("weather-budget").url);
    const late = await createTestChat({ tools: createChatTools, env: sandboxEnv(), model, now: () => new Date(expiresAt + 1_000) });
    const before = await balanceOf(payer.address);
    const lines = await collectLines(await approve(late, quoted, await sign(payer, quoted.status)));
    expect(payments(lines).map((status) => [status.status, status.reason?.code])).toEqual([["failed", "expired"]]);
    expect(finish(lines)?.finishReason).toBe("payment-failed");
    // Answered from what is known, without the model.
    expect(textOf(lines)).toMatch(/^The approval expired before it was sent\. Nothing was paid/);
    expect(model.doStreamCalls).toHaveLength(0);
    expect(await balanceOf(payer.address)).toBe(before);
    await late.close();
  });

  test("a copy of a finished approval, or a forged one, is answered without running the model", async () => {
    const news = service("news-headlines");
    const payer = await newPayer();
    const model = payingModel(news.url, { topic: "technology" });
    const target = await createTestChat({ tools: createChatTools, env: sandboxEnv(), model });
    const quoted = await quote(target, payer, "Headlines please");
    const signature = await sign(payer, quoted.status);
    const paid = await collectLines(await approve(target, quoted, signature));
    expect(finish(paid)?.finishReason).toBe("payment-complete");
    const txHash = finish(paid)?.txHash as Hex;
    const modelRuns = model.doStreamCalls.length;

    // The same approval again: its recorded outcome, a short text from it, and the final d:.
    const again = await collectLines(await approve(target, quoted, signature));
    expect(again.map((line) => line.type)).toEqual(["payment", "text", "data"]);
    expect(payments(again)).toMatchObject([{ status: "delivered", txHash }]);
    expect(textOf(again)).toContain(`This payment was already made (transaction ${txHash}); it was not paid again.`);
    expect(finish(again)).toMatchObject({ finishReason: "payment-complete", txHash });

    // A token that is not the server's own: a 400 before any model.
    const [body] = (quoted.status.approval?.token ?? "").split(".");
    const forged = await approve(target, quoted, signature, `${body}.${Buffer.alloc(32).toString("base64url")}`);
    expect(forged.status).toBe(400);
    expect(model.doStreamCalls).toHaveLength(modelRuns);
    await target.close();
  });

  test("with the cooldown on, an approval right after its quote passes; forged and stale ones count as messages, each answered with its own outcome", async () => {
    const news = service("news-headlines");
    const payer = await newPayer();
    const model = payingModel(news.url, { topic: "technology" });
    let ahead = 0;
    const target = await createTestChat({
      tools: createChatTools,
      env: sandboxEnv({ CHAT_COOLDOWN_SECONDS: "50" }),
      model,
      now: () => new Date(Date.now() + ahead),
    });
    // Request A claims the person's cooldown; request B, its approval, comes right after.
    const quoted = await quote(target, payer, "Headlines please");
    const signature = await sign(payer, quoted.status);
    const paid = await approve(target, quoted, signature);
    expect(paid.status).toBe(200);
    expect(finish(await collectLines(paid))?.finishReason).toBe("payment-complete");
    // A second copy within the quote's life is not held up either, and runs no model.
    const modelRuns = model.doStreamCalls.length;
    const copy = await approve(target, quoted, signature);
    expect(copy.status).toBe(200);
    expect(finish(await collectLines(copy))?.finishReason).toBe("payment-complete");
    expect(model.doStreamCalls).toHaveLength(modelRuns);

    // A forged approval counts as a message, but is answered with its own refusal, not a 429.
    const forged = await approve(target, quoted, signature, `${quoted.status.approval?.token ?? ""}x`);
    expect(forged.status).toBe(400);
    expect(((await forged.json()) as { error: { code: string } }).error.code).toBe("bad-request");
    // ...and the message after it waits.
    expect((await target.post({ messages: [{ role: "user", content: "Headlines please" }], walletAddress: payer.address })).status).toBe(429);

    // Past the quote's life, a copy is stale: it takes the cooldown when it is free, and is told
    // what happened every time, never held up.
    ahead = 11 * 60_000;
    for (let copy = 0; copy < 2; copy += 1) {
      const stale = await approve(target, quoted, signature);
      expect(stale.status).toBe(200);
      expect(finish(await collectLines(stale))?.finishReason).toBe("payment-complete");
    }
    expect((await target.post({ messages: [{ role: "user", content: "Headlines please" }], walletAddress: payer.address })).status).toBe(429);
    expect(model.doStreamCalls).toHaveLength(modelRuns);
    await target.close();
  });

  test("discovery lists every sandbox service with its price and network", async () => {
    clearDiscoveryCache();
    const lines = await collectLines(await chat.post({ messages: [{ role: "user", content: "List the available services" }] }));
    const text = textOf(lines);
    for (const entry of sandbox.info.services.filter((listed) => listed.listed)) {
      // A usage-priced (`upto`) one says its price is a maximum, and what a usual request costs.
      const typical = entry.typicalPrice ? `, typically $${entry.typicalPrice}` : "";
      // One table, one row a service: its name, then its price per call.
      expect(text).toContain(`| ${entry.serviceName} | ${entry.schemes.includes("upto") ? "up to " : ""}$${entry.price}${typical} |`);
    }
    // Networks by name, not by CAIP-2 id.
    expect(text).toContain("Sandbox");
    expect(text).not.toContain(sandbox.info.network);
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
