// Services made the way people deploy them, with the x402 middlewares (@x402/express,
// @x402/hono, a Next route handler wrapped by @x402/next): each is listed by the registry from
// its own 402, found by discovery, quoted and paid through the chat, and its data delivered;
// the price moves on chain to its payee, and the service received the payment's id
// (payment-identifier). A request its handler refuses is not settled.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createChatTools } from "@/lib/chat/tools";
import { discoveryEnvOf } from "@/lib/tools/discovery-env";
import { clearDiscoveryCache, findServices } from "@/lib/x402/discovery";
import { startSandbox, type Sandbox } from "@/sandbox";
import { newSolanaKey } from "@/sandbox/solana";
import { collectLines, createTestChat, type TestChat } from "@/tests/helpers/chat";
import {
  finishOf,
  generousLimits,
  modelCallingPayForService,
  newPayer,
  paymentsOf,
  sandboxEnv,
  sandboxService,
  signQuote,
  usdcBalance,
  type PayForServiceInput,
} from "@/tests/helpers/paid-chat";

let sandbox: Sandbox;
let chat: TestChat;
let nextCall: PayForServiceInput = { url: "http://127.0.0.1" };
let lastResult: unknown;

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  clearDiscoveryCache();
  chat = await createTestChat({
    tools: createChatTools,
    env: sandboxEnv(sandbox),
    model: modelCallingPayForService(() => nextCall, { onToolResult: (content) => (lastResult = content) }),
  });
});
afterAll(async () => {
  await chat?.close();
  await sandbox?.stop();
});

const cases = [
  { name: "holidays", madeWith: "@x402/express", words: "holidays calendar", query: { country: "PT" }, says: "Freedom Day" },
  { name: "air-quality", madeWith: "@x402/hono", words: "air quality", query: { city: "Lisbon" }, says: "aqi" },
  { name: "quotations", madeWith: "@x402/next", words: "quotation", query: { topic: "money" }, says: "Benjamin Franklin" },
] as const;

describe("services made with the x402 middlewares", () => {
  for (const { name, madeWith, words, query, says } of cases) {
    test(`${madeWith}: found by its words, quoted, paid on chain, and its data delivered`, async () => {
      const entry = sandboxService(sandbox, name);
      expect(entry.madeWith).toBe(madeWith);
      const found = await findServices(discoveryEnvOf(chat.env), { query: words });
      expect(found.services.map((listing) => listing.url)).toContain(entry.url);

      const payer = await newPayer(sandbox);
      const balance = usdcBalance(sandbox);
      const [before, payeeBefore] = await Promise.all([balance(payer.address), balance(entry.payTo)]);
      nextCall = { url: entry.url, query };
      const body = { messages: [{ role: "user", content: `Use ${entry.serviceName}` }], walletAddress: payer.address, spendingLimits: generousLimits };
      const quote = paymentsOf(await collectLines(await chat.post(body))).find((status) => status.status === "awaiting-signature");
      expect(quote).toMatchObject({ payTo: entry.payTo, amount: { serviceFee: entry.price } });
      if (!quote) return;

      const lines = await collectLines(await chat.post({ ...body, payment: { paymentId: quote.paymentId, token: quote.approval?.token, signature: await signQuote(payer, quote) } }));
      expect(paymentsOf(lines).map((status) => status.status)).toEqual(["submitted", "confirmed", "delivered"]);
      expect(finishOf(lines)?.txHash).toMatch(/^0x[0-9a-f]{64}$/);
      // What the model was handed: the service's own data.
      expect(JSON.stringify(lastResult)).toContain(says);
      const price = BigInt(entry.priceAtomic);
      expect(await balance(payer.address)).toBe(before - price);
      expect(await balance(entry.payTo)).toBe(payeeBefore + price);
      // The payment carried its id (payment-identifier), so the service knows a retried call for the same payment.
      expect(sandbox.paymentIdentifiers(name)).toEqual([quote.paymentId]);
    });
  }

  test("@x402/express: a request the service's own declaration refuses (an unknown country) is not quoted, and nothing moves", async () => {
    const entry = sandboxService(sandbox, "holidays");
    const payer = await newPayer(sandbox);
    const balance = usdcBalance(sandbox);
    const before = await balance(payer.address);
    nextCall = { url: entry.url, query: { country: "XX" } };
    const body = { messages: [{ role: "user", content: "Holidays in XX" }], walletAddress: payer.address, spendingLimits: generousLimits };
    const lines = await collectLines(await chat.post(body));
    expect(paymentsOf(lines)).toEqual([]);
    expect(JSON.stringify(lastResult)).toContain('Holiday Calendar has nothing for country \\"XX\\": it takes PT, US or JP.');
    // Said once, by the agent: no `e:` alert repeats it.
    expect(lines.filter((line) => line.type === "error")).toEqual([]);
    expect(await balance(payer.address)).toBe(before);
  });

  test("@x402/hono: the same service takes Solana too, and a Solana wallet pays it", async () => {
    const entry = sandboxService(sandbox, "air-quality");
    expect(entry.networks).toEqual([sandbox.info.network, sandbox.info.solana.network]);
    const key = newSolanaKey();
    await sandbox.solana.fund({ to: key.address, usdc: 100_000n });
    nextCall = { url: entry.url, query: { city: "Tokyo" } };
    const body = { messages: [{ role: "user", content: "Air in Tokyo" }], solanaAddress: key.address, spendingLimits: generousLimits };
    const quote = paymentsOf(await collectLines(await chat.post(body))).find((status) => status.status === "awaiting-signature");
    expect(quote?.network).toBe(sandbox.info.solana.network);
    const transaction = sandbox.solana.signAs(key, quote?.approval?.transaction ?? "");
    const lines = await collectLines(await chat.post({ ...body, payment: { paymentId: quote?.paymentId, token: quote?.approval?.token, transaction } }));
    expect(paymentsOf(lines).at(-1)?.status).toBe("delivered");
    expect(sandbox.solana.usdcBalance(key.address)).toBe(100_000n - BigInt(entry.priceAtomic));
    expect(sandbox.solana.usdcBalance(entry.solanaPayTo ?? "")).toBe(BigInt(entry.priceAtomic));
  });
});
