// A deposit serves the service it was opened for, at the price it was opened at (docs/contract.md,
// section 15, "Calls"): a service elsewhere that copies TickStream's 402 (its receiver, its
// channel terms) at twenty times the price draws nothing from the person's TickStream deposit, and
// a service whose price rose since its deposit was opened gets a call the person confirms, never
// one the page's channel key signs by itself. Real anvil, USDC, the sandbox's channel contract,
// facilitator and TickStream, behind a loopback proxy that can rewrite its 402.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { decodePaymentRequiredHeader, encodePaymentRequiredHeader } from "@x402/core/http";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Database } from "@/lib/db";
import { channelsOf, findChannel } from "@/lib/payments/ledger/channels";
import type { PaymentStatus } from "@/lib/protocol/lines";
import { createChatTools } from "@/lib/chat/tools";
import { startSandbox, type Sandbox } from "@/sandbox";
import { collectLines, createTestChat, type TestChat } from "@/tests/helpers/chat";
import { generousLimits, modelCallingPayForService, newPayer, paymentsOf, sandboxEnv, sandboxService, signChannelRequest } from "@/tests/helpers/paid-chat";

/** A proxy in front of TickStream: passes everything through, and while `raise` is above 1, multiplies the prices its 402 asks. */
type PriceProxy = { url: string; raise: bigint; close(): Promise<void> };

async function startPriceProxy(upstream: string, raise = 1n): Promise<PriceProxy> {
  const target = new URL(upstream);
  const proxy: PriceProxy = { url: "", raise, close: async () => undefined };
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) if (typeof value === "string" && name !== "host") headers.set(name, value);
    const answer = await fetch(new URL(request.url ?? "/", target.origin), {
      method: request.method ?? "GET",
      headers,
      ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
    });
    const out: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (name !== "content-length" && name !== "content-encoding" && name !== "transfer-encoding") out[name] = value;
    });
    const required = answer.headers.get("payment-required");
    if (answer.status === 402 && required && proxy.raise > 1n) {
      const asked = decodePaymentRequiredHeader(required);
      out["payment-required"] = encodePaymentRequiredHeader({
        ...asked,
        accepts: asked.accepts.map((option) => ({ ...option, amount: (BigInt(option.amount) * proxy.raise).toString() })),
      });
    }
    response.writeHead(answer.status, out);
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  proxy.url = `http://127.0.0.1:${port}${target.pathname}`;
  proxy.close = () => new Promise((resolve) => server.close(() => resolve()));
  return proxy;
}

let sandbox: Sandbox;
let db: Database;
const chats: TestChat[] = [];
const proxies: PriceProxy[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
}, 90_000);
afterAll(async () => {
  // The chats share the first one's ledger, which its close closes.
  await chats[0]?.close();
  for (const proxy of proxies) await proxy.close();
  await sandbox?.stop();
});

/** A chat whose model asks for a tick from `url`, on the same ledger as the others. */
async function chatFor(url: string): Promise<TestChat> {
  const chat = await createTestChat({
    tools: createChatTools,
    env: sandboxEnv(sandbox),
    model: modelCallingPayForService({ url, query: { symbol: "TSLA" } }),
    ...(db ? { database: db } : {}),
  });
  db = chat.db;
  chats.push(chat);
  return chat;
}

async function quote(chat: TestChat, body: Record<string, unknown>): Promise<PaymentStatus> {
  const lines = await collectLines(await chat.post(body));
  const quoted = paymentsOf(lines).find((status) => status.status === "awaiting-signature");
  if (!quoted) throw new Error(`no quote: ${JSON.stringify(lines)}`);
  return quoted;
}

async function approve(chat: TestChat, body: Record<string, unknown>, quoted: PaymentStatus, signed: Hex[]) {
  const response = await chat.post({ ...body, payment: { paymentId: quoted.paymentId, token: quoted.approval?.token, signed } });
  if (!response.ok) throw new Error(`request B answered ${response.status}: ${await response.text()}`);
  return paymentsOf(await collectLines(response));
}

async function openDeposit(chat: TestChat) {
  const wallet = await newPayer(sandbox, 1_000_000n);
  const channelKey = privateKeyToAccount(generatePrivateKey());
  const keys = { wallet, channelKey };
  const body = { messages: [{ role: "user", content: "TSLA tick please" }], walletAddress: wallet.address, channelKeys: { eip155: channelKey.address }, spendingLimits: generousLimits };
  const opening = await quote(chat, body);
  expect(opening.channel).toMatchObject({ opening: true, price: "0.001" });
  const statuses = await approve(chat, body, opening, await Promise.all((opening.approval?.toSign ?? []).map((request) => signChannelRequest(request, keys))));
  expect(statuses.at(-1)?.status).toBe("delivered");
  const [channel] = await channelsOf(db, wallet.address);
  expect(channel).toMatchObject({ state: "open", vouched: 1_000n });
  return { wallet, keys, body, channelId: channel?.channelId ?? "" };
}

describe("a deposit serves its own service, at its own price", () => {
  test("a service elsewhere that copies TickStream's receiver at 20x the price is quoted a deposit of its own, nothing from TickStream's", async () => {
    const ticks = await chatFor(sandboxService(sandbox, "market-ticks").url);
    const { body, channelId } = await openDeposit(ticks);
    const impostor = await startPriceProxy(sandboxService(sandbox, "market-ticks").url, 20n);
    proxies.push(impostor);
    const elsewhere = await chatFor(impostor.url);
    const asked = await quote(elsewhere, body);
    // Not a call on the person's channel, signed by the page's key without a prompt: a deposit the wallet would sign.
    expect(asked.channel).toMatchObject({ opening: true, price: "0.02" });
    expect((asked.approval?.toSign ?? []).map((request) => request.signer ?? "wallet")).toEqual(["wallet", "channel-key"]);
    expect(await findChannel(db, channelId)).toMatchObject({ vouched: 1_000n });
  }, 60_000);

  test("a call priced above the deposit's opening price is for the person to confirm", async () => {
    const proxy = await startPriceProxy(sandboxService(sandbox, "market-ticks").url);
    proxies.push(proxy);
    const chat = await chatFor(proxy.url);
    const { body, channelId } = await openDeposit(chat);
    // At the price it was opened at, a call the page's key signs by itself.
    expect((await quote(chat, body)).channel).toMatchObject({ opening: false, price: "0.001" });
    expect((await quote(chat, body)).channel?.confirm).toBeUndefined();
    proxy.raise = 20n;
    const raised = await quote(chat, body);
    expect(raised.channel).toMatchObject({ opening: false, price: "0.02", confirm: true });
    expect(raised.warnings?.join(" ")).toContain("more than the $0.001 a call cost when you opened this deposit");
    expect(await findChannel(db, channelId)).toMatchObject({ vouched: 1_000n });
  }, 60_000);
});
