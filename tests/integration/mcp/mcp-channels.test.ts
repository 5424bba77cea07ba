// An AI app's calls on a pay-as-you-go channel (docs/contract.md, sections 11 and 15): while the
// person's page is open with its channel key (it says so, with the wallet's session), the app's
// first call to a channel service is a deposit the person approves through the link (the wallet
// signs the deposit, the page's channel key the first voucher); the app's next calls are signed by
// the open page's channel key without a prompt, from the same deposit, in the same ledger as the
// chat's. Without the page, the same service is quoted per call with exact. Real anvil, USDC, the
// sandbox's channel contract, facilitator and services.
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createBudgetWatchRateLimit, handleBudgetWatchRequest } from "@/lib/remote/budget-request";
import { channelsOf } from "@/lib/payments/ledger/channels";
import type { WalletRequest } from "@/lib/payments/payment";
import type { PaymentStatus } from "@/lib/protocol/lines";
import { startSandbox, type Sandbox } from "@/sandbox";
import { callTool, connectClient, createTestMcp, issueGrant, newGrant, ORIGIN, signIn, type TestMcp } from "@/tests/helpers/mcp";
import { newPayer, sandboxEnv, sandboxService, signChannelRequest, usdcBalance } from "@/tests/helpers/paid-chat";

let sandbox: Sandbox;
let mcp: TestMcp;
let balanceOf: ReturnType<typeof usdcBalance>;

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  balanceOf = usdcBalance(sandbox);
  mcp = await createTestMcp({ env: sandboxEnv(sandbox) });
});
afterAll(async () => {
  await mcp?.close();
  await sandbox?.stop();
});

const ticks = () => sandboxService(sandbox, "market-ticks");
const limits = { daily: 1_000_000n, weekly: 5_000_000n, monthly: 20_000_000n, perPayment: 500_000n };
const rateLimit = createBudgetWatchRateLimit();

const sign = signChannelRequest;

async function pageChecksIn(cookie: string, channelKey: string) {
  const response = await handleBudgetWatchRequest(
    new Request(`${ORIGIN}/api/mcp/budget`, { method: "POST", headers: { "content-type": "application/json", cookie }, body: JSON.stringify({ channelKey }) }),
    { env: () => mcp.env, database: async () => mcp.db, rateLimit },
  );
  return { status: response.status, body: (await response.json()) as { quotes?: Array<{ paymentId: string; quote: PaymentStatus; app: string }> } };
}

const approve = (paymentId: string, signed: string[]) =>
  mcp.fetch(`${ORIGIN}/api/mcp/payments/${paymentId}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ signed }) });

describe("an app's calls on a channel, with the person's page open", () => {
  test("a deposit approved once through the link, then calls signed by the page's channel key without a prompt", async () => {
    const wallet = await newPayer(sandbox);
    const channelKey = privateKeyToAccount(generatePrivateKey());
    const keys = { wallet, channelKey };
    const { body: grant } = await issueGrant(mcp, wallet, newGrant(wallet.address, limits, { label: "Cursor" }), sandbox.info.chainId);
    const cookie = await signIn(mcp, wallet, sandbox.info.chainId);
    const client = await connectClient(mcp, grant.token ?? "");

    // Without the page, the same service is quoted per call with exact.
    const plain = await callTool(client, "payForService", { url: ticks().url, query: { symbol: "MSFT" } });
    expect(plain).toMatchObject({ status: "awaiting-approval", approvalUrl: expect.stringContaining("/approve/") });
    expect(JSON.stringify(plain)).not.toContain("deposit");

    expect((await pageChecksIn(cookie, channelKey.address)).status).toBe(200);
    const before = await balanceOf(wallet.address);
    const opening = await callTool(client, "payForService", { url: ticks().url, query: { symbol: "MSFT" } });
    expect(opening).toMatchObject({ status: "awaiting-approval", approvalUrl: expect.stringContaining("/approve/") });
    expect(opening.summary).toContain("It is a deposit");
    // The approval link's page reads the quote, and the person signs it with the wallet and the page's channel key.
    const page = (await (await mcp.fetch(`${ORIGIN}/api/mcp/payments/${String(opening.paymentId)}`)).json()) as { quote: PaymentStatus };
    const requests = page.quote.approval?.toSign ?? [];
    expect(requests.map((request) => request.signer ?? "wallet")).toEqual(["wallet", "channel-key"]);
    expect((await approve(String(opening.paymentId), await Promise.all(requests.map((request) => sign(request, keys))))).status).toBe(200);
    expect(await callTool(client, "getPayment", { paymentId: opening.paymentId, waitSeconds: 10 })).toMatchObject({ status: "delivered", data: { symbol: "MSFT" } });
    expect(await balanceOf(wallet.address)).toBe(before - 50_000n);

    // The next call: no link; the open page finds it among the quotes it signs, and signs it with the channel key.
    await new Promise((resolve) => setTimeout(resolve, Number(mcp.env.CHAT_COOLDOWN_SECONDS) * 1000));
    const call = await callTool(client, "payForService", { url: ticks().url, query: { symbol: "MSFT" } });
    expect(call).toMatchObject({ status: "awaiting-approval", paidFrom: "deposit" });
    expect(call.approvalUrl).toBeUndefined();
    const { body } = await pageChecksIn(cookie, channelKey.address);
    const waiting = body.quotes?.find((entry) => entry.paymentId === call.paymentId);
    if (!waiting) throw new Error("the page was not given the call to sign");
    expect(waiting.quote.channel).toMatchObject({ opening: false, price: "0.001" });
    const approved = await approve(waiting.paymentId, [await sign(waiting.quote.approval?.toSign?.[0] as WalletRequest, keys)]);
    expect(approved.status).toBe(200);
    // The channel key speaks for nobody: no session of the wallet's.
    expect(approved.headers.get("set-cookie")).toBeNull();
    expect(await callTool(client, "getPayment", { paymentId: waiting.paymentId, waitSeconds: 10 })).toMatchObject({ status: "delivered", data: { symbol: "MSFT" } });
    expect(await balanceOf(wallet.address)).toBe(before - 50_000n);
    const [channel] = await channelsOf(mcp.db, wallet.address);
    expect(channel).toMatchObject({ state: "open", deposit: 50_000n, vouched: 2_000n, calls: 2 });
    await client.close();
  }, 60_000);

  test("an app's draws are held to its own grant's limits and to the bound of payments without a prompt", async () => {
    const wallet = await newPayer(sandbox);
    const channelKey = privateKeyToAccount(generatePrivateKey());
    const keys = { wallet, channelKey };
    let clock = Date.now();
    const tick = (seconds: number) => {
      clock += seconds * 1000;
      mcp.setNow(new Date(clock));
    };
    const checkIn = async (cookie: string) => {
      const response = await handleBudgetWatchRequest(
        new Request(`${ORIGIN}/api/mcp/budget`, { method: "POST", headers: { "content-type": "application/json", cookie }, body: JSON.stringify({ channelKey: channelKey.address }) }),
        { env: () => mcp.env, database: async () => mcp.db, rateLimit, now: () => new Date(clock) },
      );
      return ((await response.json()) as { quotes?: Array<{ paymentId: string; quote: PaymentStatus }> }).quotes ?? [];
    };
    try {
      tick(0);
      const cookie = await signIn(mcp, wallet, sandbox.info.chainId);
      await checkIn(cookie);
      // One app opens the deposit, under generous limits.
      const { body: opener } = await issueGrant(mcp, wallet, newGrant(wallet.address, limits, { label: "Opener" }), sandbox.info.chainId);
      const openerClient = await connectClient(mcp, opener.token ?? "");
      const opening = await callTool(openerClient, "payForService", { url: ticks().url, query: { symbol: "AAPL" } });
      const page = (await (await mcp.fetch(`${ORIGIN}/api/mcp/payments/${String(opening.paymentId)}`)).json()) as { quote: PaymentStatus };
      const requests = page.quote.approval?.toSign ?? [];
      expect((await approve(String(opening.paymentId), await Promise.all(requests.map((request) => sign(request, keys))))).status).toBe(200);
      await openerClient.close();

      // Another app, whose grant allows $0.006 a day over the wallet's ledger, which has spent the first call's $0.001.
      const small = { daily: 6_000n, weekly: 5_000_000n, monthly: 20_000_000n, perPayment: 1_000n };
      const { body: grant } = await issueGrant(mcp, wallet, newGrant(wallet.address, small, { label: "Small" }), sandbox.info.chainId);
      const client = await connectClient(mcp, grant.token ?? "");
      // Within the spacing of payments without a prompt (one every 10 s), a second draw asks the person.
      tick(11);
      expect(await callTool(client, "payForService", { url: ticks().url, query: { symbol: "AAPL" } })).toMatchObject({ status: "awaiting-approval", paidFrom: "deposit" });
      tick(1);
      const asks = await callTool(client, "payForService", { url: ticks().url, query: { symbol: "AAPL" } });
      expect(asks).toMatchObject({ status: "awaiting-approval", approvalUrl: expect.stringContaining("/approve/") });
      expect(asks.summary).toContain("at most once every 10 s");
      const offered = await checkIn(cookie);
      expect(offered.map((entry) => entry.paymentId)).not.toContain(asks.paymentId);
      // The page signs the draws it is offered: the first one, then four more, each 11 s apart.
      const delivered: string[] = [];
      for (let call = 1; call <= 5; call += 1) {
        if (call > 1) {
          tick(11);
          expect(await callTool(client, "payForService", { url: ticks().url, query: { symbol: "AAPL" } })).toMatchObject({ status: "awaiting-approval", paidFrom: "deposit" });
        }
        for (const { paymentId, quote } of await checkIn(cookie)) {
          expect((await approve(paymentId, [await sign(quote.approval?.toSign?.[0] as WalletRequest, keys)])).status).toBe(200);
          delivered.push(paymentId);
        }
      }
      expect(delivered).toHaveLength(5);
      // The sixth would pass the grant's day: refused, nothing taken from the deposit.
      tick(11);
      expect(await callTool(client, "payForService", { url: ticks().url, query: { symbol: "AAPL" } })).toMatchObject({ status: "failed", reason: "limit-exceeded" });
      const [channel] = await channelsOf(mcp.db, wallet.address);
      expect(channel).toMatchObject({ deposit: 50_000n, vouched: 6_000n });
      expect(await callTool(client, "getSpending", { period: "day" })).toMatchObject({ summary: expect.stringContaining("$0.006") });
      await client.close();
    } finally {
      mcp.setNow(undefined);
    }
  }, 90_000);
});
