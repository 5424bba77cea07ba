// Pay-as-you-go channels (x402 `batch-settlement`) through the chat on the sandbox: the first call
// to TickStream opens a channel (the wallet signs the deposit, the page's channel key the first
// voucher), the next calls are paid by the channel key's vouchers alone, with no wallet prompt and
// no transaction, and the close returns what was not claimed: the ledger counts the deposit in
// full until the chain shows the refund, then only what was claimed. Real anvil, Circle's USDC,
// the sandbox's channel contract and facilitator, the real x402 packages and headers.
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { countedSince, findPayment } from "@/lib/payments/ledger";
import { channelsOf, findChannel } from "@/lib/payments/ledger/channels";
import { closeChannelCooperatively, prepareChannelClose } from "@/lib/payments/channels";
import { getSpendingReport } from "@/lib/payments/spending-report";
import { spendingAnswer } from "@/lib/tools/spending";
import type { WalletRequest } from "@/lib/payments/payment";
import type { PaymentStatus } from "@/lib/protocol/lines";
import { createChatTools } from "@/lib/chat/tools";
import { batchSettlementAbi, CHANNEL_WITHDRAW_DELAY_SECONDS, startSandbox, type Sandbox } from "@/sandbox";
import { BATCH_SETTLEMENT_ADDRESS } from "@x402/evm";
import { createPublicClient, createTestClient, createWalletClient, http } from "viem";
import { foundry } from "viem/chains";
import { channelWithdrawAbi } from "@/lib/chain/channel-address";
import { createChannelsRateLimit, handleChannelsRequest } from "@/lib/account/channels-request";
import { sessionCookie } from "@/lib/session";
import { collectLines, createTestChat, type TestChat } from "@/tests/helpers/chat";
import { eventually, finishOf, generousLimits, historyOf, historyPaymentsOf, signChannelRequest, typedDataForSigning, modelCallingPayForService, newPayer, paymentsOf, sandboxEnv, sandboxService, usdcBalance } from "@/tests/helpers/paid-chat";

let sandbox: Sandbox;
let chat: TestChat;
let balanceOf: (owner: Hex) => Promise<bigint>;

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false, includeTestOnly: true });
  balanceOf = usdcBalance(sandbox);
  const ticks = sandboxService(sandbox, "market-ticks");
  chat = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox), model: modelCallingPayForService({ url: ticks.url, query: { symbol: "NVDA" } }) });
}, 90_000);
afterAll(async () => {
  await chat?.close();
  await sandbox?.stop();
});

const sign = signChannelRequest;
const walletForm = typedDataForSigning;

async function quote(body: Record<string, unknown>): Promise<PaymentStatus> {
  const response = await chat.post(body);
  if (!response.ok) throw new Error(`request A answered ${response.status}: ${await response.text()}`);
  const lines = await collectLines(response);
  const quoted = paymentsOf(lines).find((status) => status.status === "awaiting-signature");
  if (!quoted) throw new Error(`no quote: ${JSON.stringify(lines)}`);
  return quoted;
}

async function approve(body: Record<string, unknown>, quoted: PaymentStatus, signed: Hex[]) {
  const response = await chat.post({ ...body, payment: { paymentId: quoted.paymentId, token: quoted.approval?.token, signed } });
  if (!response.ok) throw new Error(`request B answered ${response.status}: ${await response.text()}`);
  const lines = await collectLines(response);
  return { lines, statuses: paymentsOf(lines), finish: finishOf(lines) };
}

describe("a channel through the chat", () => {
  test("one deposit signed by the wallet, ten calls signed by the channel key alone, a close that returns the rest", async () => {
    const wallet = await newPayer(sandbox, 1_000_000n);
    const channelKey = privateKeyToAccount(generatePrivateKey());
    const keys = { wallet, channelKey };
    const body = { messages: [{ role: "user", content: "NVDA tick please" }], walletAddress: wallet.address, channelKeys: { eip155: channelKey.address }, spendingLimits: generousLimits };
    const before = await balanceOf(wallet.address);

    // The first call opens the channel: a deposit card.
    const opening = await quote(body);
    expect(opening.channel).toMatchObject({ opening: true, price: "0.001", deposit: "0.05", left: "0.049" });
    expect(opening.amount.total).toBe("0.05");
    const toSign = opening.approval?.toSign ?? [];
    expect(toSign.map((request) => request.signer ?? "wallet")).toEqual(["wallet", "channel-key"]);
    const opened = await approve(body, opening, await Promise.all(toSign.map((request) => sign(request, keys))));
    expect(opened.statuses.map((status) => status.status)).toEqual(["submitted", "confirmed", "delivered"]);
    expect(opened.finish?.finishReason).toBe("payment-complete");
    expect(await balanceOf(wallet.address)).toBe(before - 50_000n);
    const [channel] = await channelsOf(chat.db, wallet.address);
    expect(channel).toMatchObject({ state: "open", deposit: 50_000n, vouched: 1_000n, charged: 1_000n });
    // The whole deposit counts against the limits while the channel can be claimed.
    expect(await countedSince(chat.db, wallet.address, new Date(0))).toBe(50_000n);

    // Nine more calls: each a voucher the channel key signs, nothing asked of the wallet, no
    // transaction. Halfway, the server starts again on the same ledger: nothing is lost.
    for (let call = 2; call <= 10; call += 1) {
      if (call === 6) chat = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox), model: modelCallingPayForService({ url: sandboxService(sandbox, "market-ticks").url, query: { symbol: "NVDA" } }), database: chat.db });
      const next = await quote(body);
      expect(next.channel).toMatchObject({ opening: false, price: "0.001", left: ((50 - call) / 1000).toString() });
      const requests = next.approval?.toSign ?? [];
      expect(requests.map((request) => request.signer)).toEqual(["channel-key"]);
      const paid = await approve(body, next, [await sign(requests[0] as WalletRequest, keys)]);
      expect(paid.statuses.map((status) => status.status)).toEqual(["submitted", "delivered"]);
      expect(paid.statuses.at(-1)?.txHash).toBeUndefined();
    }
    expect(await balanceOf(wallet.address)).toBe(before - 50_000n);
    // What the service said it charged is written beside its answer.
    expect(await eventually(() => findChannel(chat.db, channel?.channelId ?? ""), (found) => found?.charged === 10_000n)).toMatchObject({ vouched: 10_000n, charged: 10_000n });
    expect(await countedSince(chat.db, wallet.address, new Date(0))).toBe(50_000n);

    // What a person reads meanwhile: ten calls spent ($0.01), the rest of the deposit held until it
    // comes back, in the budget and in the agent's answer alike; the limits count the whole deposit.
    const report = await getSpendingReport({ db: chat.db, env: chat.env, wallet: wallet.address, history: true });
    expect(report.periods.find((entry) => entry.period === "day")).toMatchObject({ spentUsd: "0.01", heldUsd: "0.04" });
    expect(report.held).toContainEqual(expect.objectContaining({ service: expect.objectContaining({ name: "TickStream" }), amountUsd: "0.04", deposit: true }));
    const answer = await spendingAnswer({ db: chat.db, env: chat.env, wallets: [wallet.address], proven: [wallet.address], limits: { daily: 1_000_000n, weekly: 5_000_000n, monthly: 20_000_000n, perPayment: 500_000n }, period: "day" });
    expect(answer.summary).toContain("spent $0.01 and $0.04 held");

    // A voucher for a call the ledger did not quote, signed by the wallet rather than the channel key: refused.
    const forged = await quote(body);
    const refused = await chat.post({ ...body, payment: { paymentId: forged.paymentId, token: forged.approval?.token, signed: [await wallet.signTypedData(walletForm(forged.approval?.toSign?.[0]))] } });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { code: "bad-request", message: expect.stringContaining("not signed by this channel's key") } });
    expect(await findChannel(chat.db, channel?.channelId ?? "")).toMatchObject({ vouched: 10_000n });

    // The close: a refund voucher the channel key signs; the chain returns what was not claimed.
    const close = await prepareChannelClose({ db: chat.db, env: chat.env, wallet: wallet.address, channelId: channel?.channelId ?? "" });
    const closed = await closeChannelCooperatively({ db: chat.db, env: chat.env, wallet: wallet.address, channelId: channel?.channelId ?? "", signed: await sign(close.toSign[0] as WalletRequest, keys) });
    expect(closed).toMatchObject({ state: "closed", closeTx: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await balanceOf(wallet.address)).toBe(before - 10_000n);
    const onChain = await createPublicClient({ transport: http(sandbox.info.rpcUrl) }).readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: "channels", args: [channel?.channelId as Hex] });
    expect(onChain).toEqual([10_000n, 10_000n]);
    // The ledger now counts what the service claimed, and the deposit's payment says so.
    expect(await countedSince(chat.db, wallet.address, new Date(0))).toBe(10_000n);
    expect(await findPayment(chat.db, channel?.depositPaymentId ?? "")).toMatchObject({ status: "settled", amount: 10_000n });
    // The history lists the deposit with its transaction, each call with its voucher's amount, and the refund with its own.
    const deposit = (await historyPaymentsOf(chat, wallet.address)).find((entry) => entry.paymentId === channel?.depositPaymentId);
    expect(deposit).toMatchObject({ amountUsd: "0.01", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/), channel: { depositUsd: "0.05", state: "closed", returned: { usd: "0.04", txHash: closed.closeTx } } });
    expect(deposit?.channel?.calls.map((call) => call.amountUsd)).toEqual(Array(10).fill("0.001"));
    // A deposit is not a usage-priced maximum: no "up to" in its row.
    expect(deposit?.upToUsd).toBeUndefined();
    expect(deposit?.upTo).toBeUndefined();
    const csv = await (await historyOf(chat, wallet.address, "csv")).text();
    const [header, ...csvRows] = csv.trim().split("\r\n");
    const column = (name: string) => (header ?? "").split(",").indexOf(name);
    const depositRow = csvRows.map((row) => row.split(",")).find((cells) => cells[column("payment_id")] === channel?.depositPaymentId);
    expect([column("deposit_usdc"), column("deposit_calls"), column("deposit_returned_usdc"), column("deposit_return_transaction")].map((index) => depositRow?.[index])).toEqual(["0.05", "10", "0.04", closed.closeTx]);
    expect(depositRow?.[column("up_to_usdc")]).toBe("");
    const closedReport = await getSpendingReport({ db: chat.db, env: chat.env, wallet: wallet.address, history: true });
    expect(closedReport.periods.find((entry) => entry.period === "day")).toMatchObject({ spentUsd: "0.01", heldUsd: "0" });

    // A closed channel takes no more calls: the next one opens a new deposit.
    expect((await quote(body)).channel?.opening).toBe(true);
  }, 120_000);

  test("a call the service fails is not charged, and the next call on the channel goes through", async () => {
    const wallet = await newPayer(sandbox, 1_000_000n);
    const channelKey = privateKeyToAccount(generatePrivateKey());
    const keys = { wallet, channelKey };
    const body = { messages: [{ role: "user", content: "NVDA tick please" }], walletAddress: wallet.address, channelKeys: { eip155: channelKey.address }, spendingLimits: generousLimits };
    const opening = await quote(body);
    await approve(body, opening, await Promise.all((opening.approval?.toSign ?? []).map((request) => sign(request, keys))));
    const [channel] = await channelsOf(chat.db, wallet.address);

    // The service verifies the voucher, then its handler fails: nothing is charged, by its own rule.
    sandbox.setServiceFailing("market-ticks", true);
    try {
      const failing = await quote(body);
      const failed = await approve(body, failing, [await sign(failing.approval?.toSign?.[0] as WalletRequest, keys)]);
      expect(failed.statuses.at(-1)).toMatchObject({ status: "failed" });
    } finally {
      sandbox.setServiceFailing("market-ticks", false);
    }
    // The ledger takes the failed call back: the next voucher is built on what the service charged.
    expect(await findChannel(chat.db, channel?.channelId ?? "")).toMatchObject({ vouched: 1_000n });
    const next = await quote(body);
    expect(next.channel).toMatchObject({ opening: false, left: "0.048" });
    const paid = await approve(body, next, [await sign(next.approval?.toSign?.[0] as WalletRequest, keys)]);
    expect(paid.statuses.at(-1)).toMatchObject({ status: "delivered" });
    expect(await findChannel(chat.db, channel?.channelId ?? "")).toMatchObject({ vouched: 2_000n });
  }, 60_000);

  // Moves the chain's clock past the withdrawal delay: last in this file.
  test("a service that never claims: the wallet asks for its deposit back, waits the delay, takes it; the ledger then counts nothing", async () => {
    const silent = sandboxService(sandbox, "quotes-silent");
    const silentChat = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox), model: modelCallingPayForService({ url: silent.url, query: { topic: "time" } }) });
    try {
      const wallet = await newPayer(sandbox, 1_000_000n);
      await sandbox.fund({ to: wallet.address, eth: 10n ** 17n });
      const channelKey = privateKeyToAccount(generatePrivateKey());
      const body = { messages: [{ role: "user", content: "a quote about time" }], walletAddress: wallet.address, channelKeys: { eip155: channelKey.address }, spendingLimits: generousLimits };
      const before = await balanceOf(wallet.address);
      const response = await silentChat.post(body);
      const opening = paymentsOf(await collectLines(response)).find((status) => status.status === "awaiting-signature");
      if (!opening?.channel) throw new Error("no channel quote");
      const signed = await Promise.all((opening.approval?.toSign ?? []).map((request) => sign(request, { wallet, channelKey })));
      const paid = paymentsOf(await collectLines(await silentChat.post({ ...body, payment: { paymentId: opening.paymentId, token: opening.approval?.token, signed } })));
      expect(paid.at(-1)?.status).toBe("delivered");
      const deposit = before - (await balanceOf(wallet.address));
      expect(deposit).toBeGreaterThan(0n);
      const [channel] = await channelsOf(silentChat.db, wallet.address);
      if (!channel) throw new Error("no channel recorded");

      // The page's Channels list: POST /api/channels, from the wallet's own session.
      const session = sessionCookie(new Request("http://localhost/api/channels"), wallet.address, silentChat.env).split(";")[0] ?? "";
      const channels = (payload: Record<string, unknown>) =>
        handleChannelsRequest(new Request("http://localhost/api/channels", { method: "POST", headers: { "content-type": "application/json", cookie: session }, body: JSON.stringify({ wallet: wallet.address, channelId: channel.channelId, ...payload }) }), {
          env: () => silentChat.env,
          database: async () => silentChat.db,
          rateLimit: createChannelsRateLimit(),
        });
      const walletClient = createWalletClient({ account: wallet, chain: foundry, transport: http(sandbox.info.rpcUrl) });
      const reader = createPublicClient({ chain: foundry, transport: http(sandbox.info.rpcUrl) });
      const send = async (call: { contract: string; functionName: string; args: unknown[] }) =>
        reader.waitForTransactionReceipt({ hash: await walletClient.writeContract({ address: call.contract as Hex, abi: channelWithdrawAbi, functionName: call.functionName as "initiateWithdraw", args: call.args as never }) });

      const first = (await (await channels({ action: "withdraw" })).json()) as { call: { contract: string; functionName: string; args: unknown[] } };
      expect(first.call).toMatchObject({ contract: BATCH_SETTLEMENT_ADDRESS, functionName: "initiateWithdraw", args: [expect.anything(), deposit.toString()] });
      await send(first.call);
      const waiting = (await (await channels({ action: "withdraw" })).json()) as { waitUntil: string; channel: { state: string } };
      expect(waiting.channel.state).toBe("withdrawing");
      expect(new Date(waiting.waitUntil).getTime()).toBeGreaterThan(Date.now());
      // Still counted in full while the service could claim it.
      expect(await countedSince(silentChat.db, wallet.address, new Date(0))).toBe(deposit);

      const testClient = createTestClient({ chain: foundry, mode: "anvil", transport: http(sandbox.info.rpcUrl) });
      await testClient.increaseTime({ seconds: CHANNEL_WITHDRAW_DELAY_SECONDS });
      await testClient.mine({ blocks: 1 });
      const ready = (await (await channels({ action: "withdraw", })).json()) as { call: { contract: string; functionName: string; args: unknown[] } };
      expect(ready.call.functionName).toBe("finalizeWithdraw");
      await send(ready.call);
      const refreshed = (await (await channels({ action: "refresh" })).json()) as { channel: { state: string; closeTx: string; closeExplorerUrl: string } };
      expect(refreshed.channel).toMatchObject({ state: "closed", closeTx: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      // The page links the transaction that returned the deposit.
      expect(refreshed.channel.closeExplorerUrl).toContain(refreshed.channel.closeTx);
      expect(await balanceOf(wallet.address)).toBe(before);
      expect(await countedSince(silentChat.db, wallet.address, new Date(0))).toBe(0n);
    } finally {
      await silentChat.close();
    }
  }, 120_000);

  test("without the page's channel key, the same service is paid by exact, as before", async () => {
    const wallet = await newPayer(sandbox, 1_000_000n);
    const quoted = await quote({ messages: [{ role: "user", content: "NVDA tick please" }], walletAddress: wallet.address, spendingLimits: generousLimits });
    expect(quoted.channel).toBeUndefined();
    expect(quoted.approval?.toSign).toHaveLength(1);
    expect(walletForm(quoted.approval?.toSign?.[0]).primaryType).toBe("TransferWithAuthorization");
  });
});
