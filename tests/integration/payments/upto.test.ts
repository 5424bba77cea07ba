// Usage-priced payments (x402 `upto`) through the chat on the sandbox: the wallet signs a Permit2
// witness transfer of at most the service's maximum, the limits reserve that maximum, and once the
// chain shows the settlement exactly the Transfer's amount is counted and the rest released; a
// service that used nothing settles nothing and nothing is charged. Real anvil, Circle's USDC,
// Permit2 and the sandbox's upto proxy, the real @x402 packages.
import { createPublicClient, createTestClient, createWalletClient, erc20Abi, getAddress, http, maxUint256, parseEther, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PERMIT2_ADDRESS } from "@/lib/chain/permit2";
import { nestedTypedDataMessage, typedDataMessage, type NestedTypedDataForWallet, type TypedDataForWallet } from "@/lib/chain/typed-data";
import { formatUsd } from "@/lib/money";
import { HTTPFacilitatorClient } from "@x402/core/server";
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { parseServerEnv } from "@/lib/env";
import { createQuote } from "@/lib/payments/quote";
import { readPaymentRequired } from "@/lib/x402/payment-required";
import { countedSince, findPayment, recentPayments } from "@/lib/payments/ledger";
import { getSpendingReport } from "@/lib/payments/spending-report";
import { sweepUnfinishedPayments } from "@/lib/payments/sweep";
import { handleHistoryRequest, type HistoryPage } from "@/lib/account/payment-history";
import { createRateLimiter } from "@/lib/rate-limit";
import { sessionCookie } from "@/lib/session";
import { spendingAnswer } from "@/lib/tools/spending";
import type { PaymentStatus } from "@/lib/protocol/lines";
import { createChatTools } from "@/lib/chat/tools";
import { startSandbox, type Sandbox } from "@/sandbox";
import { sandboxAccounts } from "@/sandbox/accounts";
import { startFacilitator } from "@/sandbox/facilitator";
import { freePort } from "@/sandbox/ports";
import { collectLines, createTestChat, type TestChat } from "@/tests/helpers/chat";
import {
  finishOf,
  generousLimits,
  historyPaymentsOf,
  modelCallingPayForService,
  newPayer,
  requestQuote,
  sandboxEnv,
  sandboxService,
  sendApproval,
  steps,
  usdcBalance,
  type Quoted,
  type PayForServiceInput,
} from "@/tests/helpers/paid-chat";

let sandbox: Sandbox;
let balanceOf: (owner: Hex) => Promise<bigint>;
const TEXT = "The ledger was balanced. Every payment matched its invoice. Nobody was surprised.";

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  balanceOf = usdcBalance(sandbox);
}, 60_000);
afterAll(async () => {
  await sandbox?.stop();
});

/** A funded payer that has approved Permit2 once, with its own gas. */
async function payerWithPermit2(usdc = 1_000_000n): Promise<PrivateKeyAccount> {
  const payer = await newPayer(sandbox, usdc);
  await sandbox.fund({ to: payer.address, eth: parseEther("0.1") });
  const wallet = createWalletClient({ account: payer, chain: foundry, transport: http(sandbox.info.rpcUrl) });
  await wallet.writeContract({ address: sandbox.info.usdc.address, abi: erc20Abi, functionName: "approve", args: [PERMIT2_ADDRESS, maxUint256] });
  return payer;
}

function permitOf(status: PaymentStatus): TypedDataForWallet {
  const requests = status.approval?.toSign ?? [];
  const first = requests.length > 1 ? requests[0] : undefined;
  const permit = (first?.kind === "typed-data" ? first.typedData : undefined) as TypedDataForWallet | undefined;
  if (!permit) throw new Error(`the quote asks for no permit: ${JSON.stringify(status.approval)}`);
  return permit;
}

/** The payer's signature of the quote's USDC EIP-2612 permit for Permit2. */
function signUsdcPermit(payer: PrivateKeyAccount, status: PaymentStatus, change: (typedData: TypedDataForWallet) => TypedDataForWallet = (same) => same): Promise<Hex> {
  const typedData = change(permitOf(status));
  return payer.signTypedData({
    domain: typedData.domain,
    types: typedData.types,
    primaryType: typedData.primaryType,
    message: typedDataMessage(typedData),
  } as Parameters<PrivateKeyAccount["signTypedData"]>[0]);
}

function allowanceOf(owner: Hex): Promise<bigint> {
  return createPublicClient({ transport: http(sandbox.info.rpcUrl) }).readContract({ address: sandbox.info.usdc.address, abi: erc20Abi, functionName: "allowance", args: [owner, PERMIT2_ADDRESS] });
}

function ethOf(owner: Hex): Promise<bigint> {
  return createPublicClient({ transport: http(sandbox.info.rpcUrl) }).getBalance({ address: owner });
}

function chatPaying(input: PayForServiceInput): Promise<TestChat> {
  return createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox), model: modelCallingPayForService(input) });
}

function signPermit(payer: PrivateKeyAccount, status: PaymentStatus, change: (typedData: NestedTypedDataForWallet) => NestedTypedDataForWallet = (same) => same): Promise<Hex> {
  const typedData = change(status.approval?.typedData as NestedTypedDataForWallet);
  return payer.signTypedData({
    domain: typedData.domain,
    types: typedData.types,
    primaryType: typedData.primaryType,
    message: nestedTypedDataMessage(typedData),
  } as Parameters<PrivateKeyAccount["signTypedData"]>[0]);
}

describe("paying an upto service through the chat", () => {
  test("less than the maximum: the wallet signs for the maximum, the chain's Transfer is what is counted", async () => {
    const summarize = sandboxService(sandbox, "summarize");
    const chat = await chatPaying({ url: summarize.url, method: "POST", body: { text: TEXT, sentences: 1 } });
    const payer = await payerWithPermit2();
    const quoted = await requestQuote(chat, payer, "Summarize this");
    const typedData = quoted.status.approval?.typedData as NestedTypedDataForWallet;
    expect(typedData.primaryType).toBe("PermitWitnessTransferFrom");
    expect(typedData.message).toMatchObject({ permitted: { amount: "20000" }, witness: { to: summarize.payTo } });

    const lines = await collectLines(await sendApproval(chat, quoted, await signPermit(payer, quoted.status)));
    expect(steps(lines)).toEqual([
      ["submitted", undefined],
      ["confirmed", undefined],
      ["delivered", undefined],
    ]);
    expect(finishOf(lines)?.finishReason).toBe("payment-complete");
    const charged = BigInt(TEXT.length) * 5n;
    expect(await balanceOf(payer.address)).toBe(1_000_000n - charged);
    expect(await findPayment(chat.db, quoted.status.paymentId)).toMatchObject({ status: "settled", scheme: "upto", amount: charged, maxAmount: 20_000n });
    // The card: "up to $0.02" when quoted, then what was charged.
    // What the service says a usual request costs, from its 402 as its listing says it.
    expect(quoted.status.amount).toMatchObject({ total: "0.02", usd: "0.02", upTo: true, typical: "0.0025" });
    expect(quoted.status.amount.charged).toBeUndefined();
    const delivered = lines.flatMap((line) => (line.type === "payment" ? [line.payment] : [])).at(-1);
    expect(delivered?.amount).toMatchObject({ usd: "0.02", upTo: true, charged: formatUsd(charged) });
    const words = `up to $0.02, charged $${formatUsd(charged)}`;

    // getSpending, for the wallet that proved itself.
    const spending = await spendingAnswer({ db: chat.db, env: chat.env, wallets: [payer.address], proven: [payer.address], limits: { daily: 1_000_000n, weekly: 5_000_000n, monthly: 20_000_000n, perPayment: 500_000n } });
    expect((spending as { recentPayments: unknown[] }).recentPayments).toEqual([expect.objectContaining({ amountUsd: formatUsd(charged), upTo: words, status: "settled" })]);

    // The history, as JSON and as CSV.
    const history = async (format: "json" | "csv") => {
      const url = `http://localhost/api/spending/history?wallet=${payer.address}&format=${format}`;
      const cookie = sessionCookie(new Request(url), payer.address, chat.env).split(";")[0] ?? "";
      return handleHistoryRequest(new Request(url, { headers: { cookie } }), {
        env: () => chat.env,
        database: async () => chat.db,
        rateLimit: createRateLimiter({ limit: 100, windowMs: 60_000 }),
      });
    };
    const page = (await (await history("json")).json()) as HistoryPage;
    expect(page.payments).toEqual([expect.objectContaining({ amountUsd: formatUsd(charged), upToUsd: "0.02", upTo: words })]);
    const csv = (await (await history("csv")).text()).trimEnd().split("\r\n");
    expect(csv[0]?.endsWith(",up_to_usdc,collected_late,deposit_usdc,deposit_calls,deposit_returned_usdc,deposit_return_transaction")).toBe(true);
    expect(csv[1]?.endsWith(",0.02,,,,,")).toBe(true);
    expect(csv[1]).toContain(`,${formatUsd(charged)},0,${formatUsd(charged)},`);
    await chat.close();
  });

  test("a service that says it settled nothing and then collects the maximum: held meanwhile, then counted and listed; a second maximum under a daily limit of one is refused until then", async () => {
    const search = sandboxService(sandbox, "doc-search");
    const maximum = BigInt(search.priceAtomic);
    const chat = await chatPaying({ url: search.url, query: { q: "unicorns" } });
    const payer = await payerWithPermit2();
    // Room for one maximum a day, not two: $0.02 against $0.015 each.
    const limits = { ...generousLimits, daily: "0.02" };
    const quoted = await requestQuote(chat, payer, "Search for unicorns", limits);
    const signature = await signPermit(payer, quoted.status);
    const lines = await collectLines(await sendApproval(chat, quoted, signature));
    // Delivered, charged nothing so far, and the maximum held until the permit's deadline.
    expect(steps(lines)).toEqual([
      ["submitted", undefined],
      ["delivered", undefined],
    ]);
    expect(finishOf(lines)?.finishReason).toBe("payment-complete");
    const typedData = quoted.status.approval?.typedData as NestedTypedDataForWallet;
    const deadline = new Date(Number((typedData.message as { deadline: string }).deadline) * 1000);
    const delivered = lines.flatMap((line) => (line.type === "payment" ? [line.payment] : [])).at(-1);
    expect(delivered?.amount).toMatchObject({ upTo: true, charged: "0" });
    expect(delivered?.collectableUntil).toBe(deadline.toISOString());
    expect(await balanceOf(payer.address)).toBe(1_000_000n);
    expect(await findPayment(chat.db, quoted.status.paymentId)).toMatchObject({ status: "pending", amount: maximum, maxAmount: maximum, txHash: null });
    // The model is told the maximum is held, not released.
    expect(JSON.stringify(lines)).not.toMatch(/released/);

    // The budget panel's report says what is held and until when; the meter leaves it out of what is left.
    const report = await getSpendingReport({ db: chat.db, env: chat.env, wallet: payer.address, history: true });
    expect(report.held).toEqual([expect.objectContaining({ paymentId: quoted.status.paymentId, amountUsd: formatUsd(maximum), delivered: true, until: deadline.toISOString() })]);
    expect(report.periods.find((period) => period.period === "day")).toMatchObject({ spentUsd: "0", heldUsd: formatUsd(maximum) });
    // The agent's answer to "how much have I spent" says it as the panel does: spent, and held apart.
    const answer = await spendingAnswer({ db: chat.db, env: chat.env, wallets: [payer.address], proven: [payer.address], limits: { daily: 20_000n, weekly: 5_000_000n, monthly: 20_000_000n, perPayment: 500_000n }, period: "day" });
    expect(answer.summary).toContain(`Last 24 hours: spent $0.00 and $${formatUsd(maximum)} held (not settled; it may still move) of $0.02, $0.005 left.`);
    expect((answer as { periods: unknown[] }).periods).toEqual([expect.objectContaining({ spentUsd: "0", heldUsd: formatUsd(maximum) })]);

    // A second maximum does not fit beside the one held: refused at the quote, nothing signed.
    const second = await collectLines(await chat.post({ messages: [{ role: "user", content: "Search for unicorns again" }], walletAddress: payer.address, spendingLimits: limits }));
    expect(steps(second)).toEqual([
      ["checking", undefined],
      ["failed", "limit-exceeded"],
    ]);
    // In the words the panel uses: what is held is said as held, not as spent.
    const refusal = second.flatMap((line) => (line.type === "payment" && line.payment.status === "failed" ? [line.payment.reason?.message ?? ""] : []));
    expect(refusal).toEqual([expect.stringContaining(`$0.00 is spent and $${formatUsd(maximum)} is held (not settled yet), $0.005 is left.`)]);

    // The facilitator the service named collects the whole maximum with the permit, later.
    const message = typedData.message as { witness: { facilitator: string } };
    const requirements: PaymentRequirements = {
      scheme: "upto",
      network: sandbox.info.network,
      amount: maximum.toString(),
      asset: sandbox.info.usdc.address,
      payTo: search.payTo,
      maxTimeoutSeconds: 300,
      extra: { name: sandbox.info.usdc.name, version: sandbox.info.usdc.version, facilitatorAddress: message.witness.facilitator },
    };
    // The sandbox's shared facilitator remembers the settle of nothing and refuses the permit
    // again, as a careful one would; nothing obliges the one a service names to be careful. Here:
    // the same key (the address the witness names), without that memory.
    const own = await startFacilitator({ port: await freePort(), rpcUrl: sandbox.info.rpcUrl, account: sandboxAccounts().facilitator });
    let collected: Awaited<ReturnType<HTTPFacilitatorClient["settle"]>>;
    try {
      collected = await new HTTPFacilitatorClient({ url: own.url }).settle(
        { x402Version: 2, accepted: requirements, payload: { signature, permit2Authorization: { from: payer.address, ...typedData.message } } },
        requirements,
      );
    } finally {
      await own.close();
    }
    expect(collected, JSON.stringify(collected)).toMatchObject({ success: true, amount: maximum.toString() });
    expect(await balanceOf(payer.address)).toBe(1_000_000n - maximum);

    // The sweep finds it on chain: counted, listed with the chain's transaction and amount, and
    // the history says it was collected after the service said it charged nothing.
    expect(await sweepUnfinishedPayments({ db: chat.db, env: chat.env })).toMatchObject({ settled: 1 });
    expect(await findPayment(chat.db, quoted.status.paymentId)).toMatchObject({ status: "settled", amount: maximum, txHash: collected.transaction });
    expect(await historyPaymentsOf(chat, payer.address)).toEqual([
      expect.objectContaining({
        paymentId: quoted.status.paymentId,
        amountUsd: formatUsd(maximum),
        txHash: collected.transaction,
        collectedLate: { note: expect.stringMatching(/said it had charged nothing, then collected this on chain later/) },
      }),
    ]);
    const after = await getSpendingReport({ db: chat.db, env: chat.env, wallet: payer.address, history: true });
    expect(after.held).toEqual([]);
    expect(after.periods.find((period) => period.period === "day")).toMatchObject({ spentUsd: formatUsd(maximum), heldUsd: "0" });
    await chat.close();
  });

  test("a maximum above the per-payment limit gets no quote, and nothing is reserved", async () => {
    const summarize = sandboxService(sandbox, "summarize");
    const chat = await chatPaying({ url: summarize.url, method: "POST", body: { text: TEXT } });
    const payer = await payerWithPermit2();
    const lines = await collectLines(
      await chat.post({ messages: [{ role: "user", content: "Summarize" }], walletAddress: payer.address, spendingLimits: { ...generousLimits, perPayment: "0.01" } }),
    );
    expect(steps(lines)).toEqual([
      ["checking", undefined],
      ["failed", "limit-exceeded"],
    ]);
    await chat.close();
  });

  test("ten approvals at once against a limit for three maxima pay at most three; the released remainders are spendable again at once", async () => {
    const summarize = sandboxService(sandbox, "summarize");
    const maximum = BigInt(summarize.priceAtomic);
    const charged = BigInt(TEXT.length) * 5n;
    const chat = await chatPaying({ url: summarize.url, method: "POST", body: { text: TEXT } });
    const payer = await payerWithPermit2();
    const limits = { ...generousLimits, daily: formatUsd(maximum * 3n) };
    const quotes: Quoted[] = [];
    for (let i = 0; i < 10; i += 1) quotes.push(await requestQuote(chat, payer, "Summarize this", limits));
    const responses = await Promise.all(quotes.map(async (quoted) => sendApproval(chat, quoted, await signPermit(payer, quoted.status))));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(3);
    expect(statuses.filter((status) => status === 403)).toHaveLength(7);
    const completed = await Promise.all(responses.filter((response) => response.status === 200).map((response) => collectLines(response)));
    expect(completed.map((lines) => finishOf(lines)?.finishReason)).toEqual(["payment-complete", "payment-complete", "payment-complete"]);
    expect(await balanceOf(payer.address)).toBe(1_000_000n - 3n * charged);

    // Each settled for less than its maximum: the rest was released, and pays the next one now.
    const next = await requestQuote(chat, payer, "Summarize this", limits);
    const lines = await collectLines(await sendApproval(chat, next, await signPermit(payer, next.status)));
    expect(finishOf(lines)?.finishReason).toBe("payment-complete");
    expect(await balanceOf(payer.address)).toBe(1_000_000n - 4n * charged);
    const counted = (await recentPayments(chat.db, payer.address, 20)).filter((payment) => payment.status === "settled");
    expect(counted.map((payment) => payment.amount)).toEqual([charged, charged, charged, charged]);
    await chat.close();
  });

  test("a permit whose payee, facilitator, maximum or signer was changed is refused, and nothing is reserved or paid", async () => {
    const summarize = sandboxService(sandbox, "summarize");
    const chat = await chatPaying({ url: summarize.url, method: "POST", body: { text: TEXT } });
    const payer = await payerWithPermit2();
    const quoted = await requestQuote(chat, payer, "Summarize this");
    const stranger = getAddress(privateKeyToAccount(generatePrivateKey()).address);
    const changed = (change: (message: Record<string, unknown>) => Record<string, unknown>) => (typedData: NestedTypedDataForWallet) =>
      ({ ...typedData, message: change(typedData.message) }) as NestedTypedDataForWallet;
    const witness = (message: Record<string, unknown>) => message.witness as Record<string, string>;
    const tampered = [
      await signPermit(payer, quoted.status, changed((message) => ({ ...message, witness: { ...witness(message), to: stranger } }))),
      await signPermit(payer, quoted.status, changed((message) => ({ ...message, witness: { ...witness(message), facilitator: stranger } }))),
      await signPermit(payer, quoted.status, changed((message) => ({ ...message, permitted: { ...(message.permitted as object), amount: "20001" } }))),
      await signPermit(privateKeyToAccount(generatePrivateKey()), quoted.status),
    ];
    for (const signature of tampered) {
      const response = await sendApproval(chat, quoted, signature);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("bad-request");
    }
    expect(await findPayment(chat.db, quoted.status.paymentId)).toBeUndefined();
    expect(await balanceOf(payer.address)).toBe(1_000_000n);
    await chat.close();
  });

  test("paid means paid: an answer lost after settlement is reconciled from Permit2's nonce bitmap and the Transfer, for what was charged", async () => {
    const summarize = sandboxService(sandbox, "summarize");
    const chat = await chatPaying({ url: summarize.url, method: "POST", body: { text: TEXT } });
    const payer = await payerWithPermit2();
    const quoted = await requestQuote(chat, payer, "Summarize this");
    sandbox.setServiceAfterSettlement("summarize", "fail");
    let lines: Awaited<ReturnType<typeof collectLines>>;
    try {
      lines = await collectLines(await sendApproval(chat, quoted, await signPermit(payer, quoted.status)));
    } finally {
      sandbox.setServiceAfterSettlement("summarize", undefined);
    }
    expect(steps(lines)).toEqual([
      ["submitted", undefined],
      ["confirmed", undefined],
      ["failed", "not-delivered"],
    ]);
    const charged = BigInt(TEXT.length) * 5n;
    expect(await balanceOf(payer.address)).toBe(1_000_000n - charged);
    const record = await findPayment(chat.db, quoted.status.paymentId);
    expect(record).toMatchObject({ status: "settled", amount: charged, maxAmount: 20_000n, txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    // The same approval again pays nothing more, and says the same.
    const again = await collectLines(await sendApproval(chat, quoted, await signPermit(payer, quoted.status)));
    expect(steps(again)).toEqual([
      ["confirmed", undefined],
      ["failed", "not-delivered"],
    ]);
    expect(await balanceOf(payer.address)).toBe(1_000_000n - charged);
    expect(await findPayment(chat.db, quoted.status.paymentId)).toMatchObject({ status: "settled", amount: charged });
    await chat.close();
  });

  test("a wallet without a Permit2 allowance or any ETH signs a gasless USDC permit for Permit2 first; the facilitator submits it with the settlement", async () => {
    const summarize = sandboxService(sandbox, "summarize");
    const chat = await chatPaying({ url: summarize.url, method: "POST", body: { text: TEXT, sentences: 1 } });
    const payer = await newPayer(sandbox);
    expect(await allowanceOf(payer.address)).toBe(0n);
    expect(await ethOf(payer.address)).toBe(0n);
    const quoted = await requestQuote(chat, payer, "Summarize this");
    const permit = permitOf(quoted.status);
    expect(permit.primaryType).toBe("Permit");
    expect(permit.domain).toEqual({ name: sandbox.info.usdc.name, version: sandbox.info.usdc.version, chainId: 31337, verifyingContract: getAddress(sandbox.info.usdc.address) });
    const transfer = quoted.status.approval?.typedData as NestedTypedDataForWallet;
    expect(permit.message).toEqual({
      owner: getAddress(payer.address),
      spender: getAddress(PERMIT2_ADDRESS),
      value: "20000",
      nonce: "0",
      deadline: (transfer.message as { deadline: string }).deadline,
    });

    const lines = await collectLines(await sendApproval(chat, quoted, await signPermit(payer, quoted.status), { permitSignature: await signUsdcPermit(payer, quoted.status) }));
    expect(steps(lines)).toEqual([
      ["submitted", undefined],
      ["confirmed", undefined],
      ["delivered", undefined],
    ]);
    const charged = BigInt(TEXT.length) * 5n;
    expect(charged).toBeLessThan(20_000n);
    expect(await balanceOf(payer.address)).toBe(1_000_000n - charged);
    expect(await findPayment(chat.db, quoted.status.paymentId)).toMatchObject({ status: "settled", scheme: "upto", amount: charged, maxAmount: 20_000n });
    // The permit set the allowance (the maximum), of which the settlement used what it charged.
    expect(await allowanceOf(payer.address)).toBe(20_000n - charged);
    expect(await ethOf(payer.address)).toBe(0n);
    await chat.close();
  });

  test("a permit signature missing, tampered with or not the payer's is refused before anything is reserved; without one the wallet is told to approve Permit2", async () => {
    const summarize = sandboxService(sandbox, "summarize");
    const chat = await chatPaying({ url: summarize.url, method: "POST", body: { text: TEXT } });
    const payer = await newPayer(sandbox);
    const quoted = await requestQuote(chat, payer, "Summarize this");
    const signature = await signPermit(payer, quoted.status);

    const missing = await sendApproval(chat, quoted, signature);
    expect(missing.status).toBe(400);
    const refusal = ((await missing.json()) as { error: { code: string; message: string; details: { fields: Array<{ path: string }> } } }).error;
    expect(refusal.code).toBe("bad-request");
    expect(refusal.message).toMatch(/has not approved yet\. Approve Permit2 once/);
    expect(refusal.details.fields[0]?.path).toBe("payment.permitSignature");

    const changed = (change: Partial<Record<string, string>>) => (typedData: TypedDataForWallet) => ({ ...typedData, message: { ...typedData.message, ...change } }) as TypedDataForWallet;
    const tampered = [
      await signUsdcPermit(payer, quoted.status, changed({ value: "1" })),
      await signUsdcPermit(payer, quoted.status, changed({ spender: getAddress(privateKeyToAccount(generatePrivateKey()).address) })),
      await signUsdcPermit(payer, quoted.status, changed({ nonce: "1" })),
      await signUsdcPermit(privateKeyToAccount(generatePrivateKey()), quoted.status),
    ];
    for (const permitSignature of tampered) {
      const response = await sendApproval(chat, quoted, signature, { permitSignature });
      expect(response.status).toBe(400);
      const error = ((await response.json()) as { error: { code: string; details: { fields: Array<{ path: string }> } } }).error;
      expect(error.code).toBe("bad-request");
      expect(error.details.fields[0]?.path).toBe("payment.permitSignature");
    }
    expect(await findPayment(chat.db, quoted.status.paymentId)).toBeUndefined();
    expect(await recentPayments(chat.db, payer.address)).toEqual([]);
    expect(await balanceOf(payer.address)).toBe(1_000_000n);
    expect(await allowanceOf(payer.address)).toBe(0n);

    // The wallet approves Permit2 itself instead (the page's "Approve Permit2"): the same quote,
    // answered with its one signature, is paid, and the permit is left out.
    await sandbox.fund({ to: payer.address, eth: parseEther("0.1") });
    const wallet = createWalletClient({ account: payer, chain: foundry, transport: http(sandbox.info.rpcUrl) });
    await wallet.writeContract({ address: sandbox.info.usdc.address, abi: erc20Abi, functionName: "approve", args: [PERMIT2_ADDRESS, maxUint256] });
    const lines = await collectLines(await sendApproval(chat, quoted, signature));
    expect(steps(lines).at(-1)).toEqual(["delivered", undefined]);
    expect(await allowanceOf(payer.address)).toBe(maxUint256 - BigInt(TEXT.length) * 5n);
    await chat.close();
  });

  test("the wallet's answers as a list, in the order of toSign: both signatures, or the payment's alone (null for the permit) once Permit2 is approved; a list of the wrong length is refused", async () => {
    const summarize = sandboxService(sandbox, "summarize");
    const chat = await chatPaying({ url: summarize.url, method: "POST", body: { text: TEXT } });
    const payer = await newPayer(sandbox);
    const quoted = await requestQuote(chat, payer, "Summarize this");
    expect(quoted.status.approval?.toSign?.map((request) => [request.purpose, request.instead?.label])).toEqual([
      ["a gasless USDC permit for Permit2", "approve Permit2"],
      ["the payment", undefined],
    ]);
    const post = (signed: unknown[]) => chat.post({ ...quoted.body, payment: { paymentId: quoted.status.paymentId, token: quoted.status.approval?.token, signed } });
    const signature = await signPermit(payer, quoted.status);
    const short = await post([signature]);
    expect(short.status).toBe(400);
    expect(((await short.json()) as { error: { details: { fields: Array<{ path: string }> } } }).error.details.fields[0]?.path).toBe("payment.signed");
    // Without the permit, and without Permit2 approved: the missing answer is named by its place in the list.
    const declined = await post([null, signature]);
    expect(declined.status).toBe(400);
    expect(((await declined.json()) as { error: { details: { fields: Array<{ path: string }> } } }).error.details.fields[0]?.path).toBe("payment.signed[0]");
    const lines = await collectLines(await post([await signUsdcPermit(payer, quoted.status), signature]));
    expect(steps(lines).at(-1)).toEqual(["delivered", undefined]);
    await chat.close();
  });

  test("a service whose 402 does not declare eip2612GasSponsoring: the quote asks for no permit, and the wallet is told to approve Permit2 once", async () => {
    const summarize = sandboxService(sandbox, "summarize");
    const response = await fetch(summarize.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text: TEXT }) });
    expect(response.status).toBe(402);
    const paymentRequired = readPaymentRequired(response, await response.json().catch(() => undefined));
    if (!paymentRequired) throw new Error("no PAYMENT-REQUIRED");
    expect(paymentRequired.extensions?.eip2612GasSponsoring).toBeDefined();
    const { eip2612GasSponsoring: _declared, ...others } = paymentRequired.extensions ?? {};
    const env = parseServerEnv(sandboxEnv(sandbox));
    const payer = await newPayer(sandbox);
    const quoteOf = async (required: PaymentRequired) => {
      const quote = await createQuote({ paymentRequired: required, wallet: payer.address, perPaymentLimit: 1_000_000n, defaultChain: undefined, env });
      if (!("scheme" in quote)) throw new Error(quote.message);
      return { quote, notReady: await quote.scheme.readiness?.({ network: quote.network, payer: payer.address, amount: quote.amount, prepared: quote }) };
    };
    const without = await quoteOf({ ...paymentRequired, extensions: others });
    expect(without.quote.toSign).toHaveLength(1);
    expect(without.quote.unsignedPayload.extensions?.eip2612GasSponsoring).toBeUndefined();
    expect(without.notReady?.message).toMatch(/has not approved yet\. Approve Permit2 once .* Nothing was reserved or paid\.$/);
    // What the card offers to do about it: the wallet's one-time approval of Permit2 for USDC.
    expect(without.notReady?.remedy).toEqual({ kind: "token-approval", token: getAddress(sandbox.info.usdc.address), spender: PERMIT2_ADDRESS, label: "approve Permit2", note: expect.any(String) });
    const declared = await quoteOf(paymentRequired);
    expect(declared.quote.toSign).toHaveLength(2);
    expect(declared.notReady).toBeUndefined();
  });

  test("a service that claims a settlement the chain does not show: the maximum stays reserved; once collected, the sweep counts what moved", async () => {
    const summarize = sandboxService(sandbox, "summarize");
    const chat = await chatPaying({ url: summarize.url, method: "POST", body: { text: TEXT } });
    const payer = await payerWithPermit2();
    const quoted = await requestQuote(chat, payer, "Summarize this");
    const signature = await signPermit(payer, quoted.status);
    const madeUp = `0x${"ab".repeat(32)}`;
    sandbox.setServiceClaimedSettlement("summarize", { transaction: madeUp });
    let lines: Awaited<ReturnType<typeof collectLines>>;
    try {
      lines = await collectLines(await sendApproval(chat, quoted, signature));
    } finally {
      sandbox.setServiceClaimedSettlement("summarize", undefined);
    }
    expect(steps(lines)).toEqual([
      ["submitted", undefined],
      ["failed", "payment-pending"],
    ]);
    expect(JSON.stringify(lines)).not.toContain(madeUp);
    expect(await findPayment(chat.db, quoted.status.paymentId)).toMatchObject({ status: "pending", amount: 20_000n, txHash: null });

    // The facilitator the permit names collects part of it later; the sweep finds the settlement
    // from Permit2's nonce bitmap and the Transfer, and counts exactly that.
    const typedData = quoted.status.approval?.typedData as NestedTypedDataForWallet;
    const message = typedData.message as { witness: { facilitator: string } };
    const requirements: PaymentRequirements = {
      scheme: "upto",
      network: sandbox.info.network,
      amount: "20000",
      asset: sandbox.info.usdc.address,
      payTo: summarize.payTo,
      maxTimeoutSeconds: 300,
      extra: { name: sandbox.info.usdc.name, version: sandbox.info.usdc.version, facilitatorAddress: message.witness.facilitator },
    };
    const facilitator = new HTTPFacilitatorClient({ url: sandbox.info.facilitatorUrl });
    const collected = await facilitator.settle(
      { x402Version: 2, accepted: requirements, payload: { signature, permit2Authorization: { from: payer.address, ...typedData.message } } },
      { ...requirements, amount: "1234" },
    );
    expect(collected).toMatchObject({ success: true, amount: "1234" });
    const report = await sweepUnfinishedPayments({ db: chat.db, env: chat.env });
    expect(report).toMatchObject({ settled: 1 });
    expect(await findPayment(chat.db, quoted.status.paymentId)).toMatchObject({ status: "settled", amount: 1_234n, maxAmount: 20_000n, txHash: collected.transaction });
    expect(await balanceOf(payer.address)).toBe(1_000_000n - 1_234n);
    await chat.close();
  });
});

describe("a usage-priced maximum held until its permit's deadline", () => {
  // Its own chain: the clock is moved to the permit's deadline and past it here, which would make
  // later signatures elsewhere expire.
  let own: Sandbox;
  beforeAll(async () => {
    own = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  }, 60_000);
  afterAll(async () => {
    await own?.stop();
  });

  test("a service that truly used nothing: the maximum is released after the deadline with the nonce unused, not before, and not at the deadline itself", async () => {
    const search = sandboxService(own, "doc-search");
    const maximum = BigInt(search.priceAtomic);
    const chat = await createTestChat({ tools: createChatTools, env: sandboxEnv(own), model: modelCallingPayForService({ url: search.url, query: { q: "unicorns" } }) });
    const payer = await newPayer(own, 1_000_000n);
    await own.fund({ to: payer.address, eth: parseEther("0.1") });
    await createWalletClient({ account: payer, chain: foundry, transport: http(own.info.rpcUrl) }).writeContract({
      address: own.info.usdc.address,
      abi: erc20Abi,
      functionName: "approve",
      args: [PERMIT2_ADDRESS, maxUint256],
    });
    const quoted = await requestQuote(chat, payer, "Search for unicorns");
    const lines = await collectLines(await sendApproval(chat, quoted, await signPermit(payer, quoted.status)));
    expect(steps(lines)).toEqual([
      ["submitted", undefined],
      ["delivered", undefined],
    ]);
    const permit = quoted.status.approval?.typedData as NestedTypedDataForWallet | undefined;
    const deadline = Number((permit?.message as { deadline?: string } | undefined)?.deadline);
    const chain = createTestClient({ mode: "anvil", transport: http(own.info.rpcUrl) });
    const sweep = () => sweepUnfinishedPayments({ db: chat.db, env: chat.env });

    // Before the deadline: held.
    expect(await sweep()).toMatchObject({ pending: 1, released: 0 });
    expect(await countedSince(chat.db, payer.address, new Date(0))).toBe(maximum);
    // At the deadline itself Permit2 still takes the permit (`block.timestamp <= deadline`): held.
    await chain.setNextBlockTimestamp({ timestamp: BigInt(deadline) });
    await chain.mine({ blocks: 1 });
    expect(await sweep()).toMatchObject({ pending: 1, released: 0 });
    expect(await findPayment(chat.db, quoted.status.paymentId)).toMatchObject({ status: "pending", amount: maximum });
    // One second past it, with the nonce unused, nothing can move any more: released, nothing charged.
    await chain.setNextBlockTimestamp({ timestamp: BigInt(deadline + 1) });
    await chain.mine({ blocks: 1 });
    expect(await sweep()).toMatchObject({ released: 1 });
    expect(await findPayment(chat.db, quoted.status.paymentId)).toMatchObject({ status: "settled", amount: 0n, maxAmount: maximum, txHash: null });
    expect(await countedSince(chat.db, payer.address, new Date(0))).toBe(0n);
    expect(await usdcBalance(own)(payer.address)).toBe(1_000_000n);
    await chat.close();
  });
});
