// "Paid means paid" (docs/contract.md, section 3) on the sandbox: services of the tests' own that take the
// payment and then fail, hang or break off, or never take it; a person who closes the tab
// mid-delivery; the same approval twice at once; a service asking for a year-long window; and
// the sweep that finishes what a request could not. Real anvil, USDC and facilitator; the
// chain is the judge of what moved.
import { createPublicClient, createTestClient, http, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createChatTools } from "@/lib/chat/tools";
import { findPayment, reservePayment, countedSince, type PaymentRecord } from "@/lib/payments/ledger";
import { sweepIfDue, sweepUnfinishedPayments } from "@/lib/payments/sweep";
import type { PaymentStatus, StreamLine } from "@/lib/protocol/lines";
import { transferWithAuthorizationTypes } from "@/lib/chain/typed-data";
import { MAX_AUTHORIZATION_SECONDS } from "@/lib/payments/rails/rail";
import { typedDataMessage, type TypedDataForWallet } from "@/lib/chain/typed-data";
import { startSandbox, type Sandbox, type SandboxServiceInfo, type ServiceDefinition } from "@/sandbox";
import { collectLines, createTestChat, type TestChat } from "@/tests/helpers/chat";
import { startStallingRpc } from "@/tests/helpers/stalling-rpc";
import {
  finishOf,
  generousLimits,
  historyPaymentsOf,
  newPayer,
  payingModel,
  paymentsOf,
  requestQuote,
  sandboxEnv,
  sandboxService,
  sendApproval,
  signQuote,
  typedDataOf,
  usdcBalance,
  eventually,
  collectOnChain,
  fortuneOracle,
  steps,
  expectNextQuoteRefused,
} from "@/tests/helpers/paid-chat";

const ONE_YEAR_SECONDS = 365 * 24 * 60 * 60;
const PRICE = 4_000n; // 0.004 USDC
/** Room for one payment of PRICE in a day, not two: the next quote shows whether the first counted. */
const roomForOne = { ...generousLimits, daily: "0.006" };

const oracle = (name: string, extra: Partial<ServiceDefinition> = {}) => fortuneOracle(name, PRICE, extra);

describe("paid means paid", () => {
  let sandbox: Sandbox;
  let flaky: SandboxServiceInfo;
  let slow: SandboxServiceInfo;
  let slower: SandboxServiceInfo;
  let balanceOf: ReturnType<typeof usdcBalance>;
  const chain = () => createPublicClient({ transport: http(sandbox.info.rpcUrl) });

  beforeAll(async () => {
    sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
    balanceOf = usdcBalance(sandbox);
    flaky = await sandbox.addService(oracle("flaky-oracle"), { listed: false });
    // Slow enough to leave the person's connection mid-call, and asking for a year-long window.
    slow = await sandbox.addService(oracle("slow-oracle", { latencyMs: 1_500, maxTimeoutSeconds: ONE_YEAR_SECONDS }), { listed: false });
    // Slower than a short deadline, well within the paid call's own timeout.
    slower = await sandbox.addService(oracle("slower-oracle", { latencyMs: 9_000 }), { listed: false });
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  async function chatFor(service: SandboxServiceInfo, options: { paidCallTimeoutMs?: number } = {}) {
    return createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox), model: payingModel(service.url), ...options });
  }

  /** Asserts `confirmed` then `failed not-delivered` with one transaction that really moved the price. */
  async function expectPaidNotDelivered(lines: StreamLine[], payer: `0x${string}`, before: bigint): Promise<Hex> {
    expect(steps(lines)).toEqual([
      ["submitted", undefined],
      ["confirmed", undefined],
      ["failed", "not-delivered"],
    ]);
    const [, confirmed, failed] = paymentsOf(lines) as [PaymentStatus, PaymentStatus, PaymentStatus];
    const txHash = confirmed.txHash as Hex;
    expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(failed.txHash).toBe(txHash);
    expect(failed.explorerUrl).toContain(txHash);
    expect(failed.reason?.message).toContain(txHash);
    expect(finishOf(lines)).toMatchObject({ finishReason: "payment-failed", txHash });
    expect((await chain().getTransactionReceipt({ hash: txHash })).status).toBe("success");
    expect(await balanceOf(payer)).toBe(before - PRICE);
    return txHash;
  }

  async function expectSettled(target: TestChat, paymentId: string, txHash: Hex): Promise<PaymentRecord | undefined> {
    const record = await findPayment(target.db, paymentId);
    expect(record).toMatchObject({ status: "settled", txHash });
    return record;
  }

  for (const [mode, title, options] of [
    ["fail", "settles on chain and then answers 500", {}],
    ["hang", "settles on chain and then never answers, past the paid call's timeout", { paidCallTimeoutMs: 2_000 }],
    ["break", "settles on chain and then breaks off mid-answer", {}],
  ] as const) {
    test(`a service that ${title}: paid, not delivered, with its transaction, counted against the limits`, async () => {
      const payer = await newPayer(sandbox);
      const target = await chatFor(flaky, options);
      const quoted = await requestQuote(target, payer, "My fortune, please", roomForOne);
      const before = await balanceOf(payer.address);
      sandbox.setServiceAfterSettlement(flaky.name, mode);
      let lines: StreamLine[];
      try {
        lines = await collectLines(await sendApproval(target, quoted, await signQuote(payer, quoted.status)));
      } finally {
        sandbox.setServiceAfterSettlement(flaky.name, undefined);
      }
      const txHash = await expectPaidNotDelivered(lines, payer.address, before);
      await expectSettled(target, quoted.status.paymentId, txHash);
      await expectNextQuoteRefused(target, quoted);
      // Told again, the same approval says the same: paid, not delivered, not paid twice.
      const again = await collectLines(await sendApproval(target, quoted, await signQuote(payer, quoted.status)));
      expect(steps(again)).toEqual([
        ["confirmed", undefined],
        ["failed", "not-delivered"],
      ]);
      expect(finishOf(again)).toMatchObject({ finishReason: "payment-failed", txHash });
      expect(await balanceOf(payer.address)).toBe(before - PRICE);
      await target.close();
    });
  }

  /** A payment whose service took the signed authorization, answered 500, and collected nothing. */
  async function pendingPayment() {
    const payer = await newPayer(sandbox);
    const target = await chatFor(flaky);
    const quoted = await requestQuote(target, payer, "My fortune, please", roomForOne);
    const signature = await signQuote(payer, quoted.status);
    const before = await balanceOf(payer.address);
    sandbox.setServiceFailing(flaky.name, true);
    let lines: StreamLine[];
    try {
      lines = await collectLines(await sendApproval(target, quoted, signature));
    } finally {
      sandbox.setServiceFailing(flaky.name, false);
    }
    return { payer, target, quoted, signature, before, lines };
  }

  test("a service that never collects and answers 500: pending until validBefore, still reserved, nothing moved", async () => {
    const { payer, target, quoted, before, lines } = await pendingPayment();
    expect(steps(lines)).toEqual([
      ["submitted", undefined],
      ["failed", "payment-pending"],
    ]);
    const pending = paymentsOf(lines).at(-1) as PaymentStatus;
    expect(pending.txHash).toBeUndefined();
    const validBefore = Number(typedDataOf(quoted.status).message.validBefore);
    expect(pending.collectableUntil).toBe(new Date(validBefore * 1000).toISOString());
    expect(pending.reason?.message).toMatch(/HTTP 500/);
    expect(pending.reason?.message).toContain(`could still collect it until ${pending.collectableUntil?.slice(0, 16).replace("T", " ")} UTC`);
    expect(finishOf(lines)?.finishReason).toBe("service-unavailable");
    expect(await balanceOf(payer.address)).toBe(before);

    const record = await findPayment(target.db, quoted.status.paymentId);
    expect(record).toMatchObject({ status: "pending", txHash: null });
    expect(record?.validBefore?.getTime()).toBe(validBefore * 1000);
    await expectNextQuoteRefused(target, quoted);
    // The sweep asks the chain and leaves it as it is: still collectable.
    const report = await sweepUnfinishedPayments({ db: target.db, env: target.env });
    expect(report).toMatchObject({ checked: 1, pending: 1, settled: 0, released: 0 });
    expect((await findPayment(target.db, quoted.status.paymentId))?.status).toBe("pending");
    await target.close();
  });

  test("a pending payment the service collects later is settled by the sweep with that transaction", async () => {
    const { payer, target, quoted, signature, before } = await pendingPayment();
    const txHash = await collectOnChain(sandbox, typedDataOf(quoted.status), signature);
    expect(await balanceOf(payer.address)).toBe(before - PRICE);
    const report = await sweepUnfinishedPayments({ db: target.db, env: target.env });
    expect(report).toMatchObject({ settled: 1 });
    const record = await expectSettled(target, quoted.status.paymentId, txHash);
    expect(record?.settledAt).toBeInstanceOf(Date);
    expect((record?.outcome as PaymentStatus | undefined)?.reason?.code).toBe("not-delivered");
    // The person was told it was pending; their history now lists it, with why it is there.
    expect(await historyPaymentsOf(target, payer.address)).toEqual([
      expect.objectContaining({ txHash, amountUsd: "0.004", collectedLate: { note: expect.stringMatching(/answer failed .* collected it on chain later, without delivering its data/) } }),
    ]);
    await target.close();
  });

  test("the same approval again, after the service collected a pending payment, reports it paid with that transaction", async () => {
    const { payer, target, quoted, signature, before } = await pendingPayment();
    const txHash = await collectOnChain(sandbox, typedDataOf(quoted.status), signature);
    const again = await collectLines(await sendApproval(target, quoted, signature));
    expect(steps(again)).toEqual([
      ["confirmed", undefined],
      ["failed", "not-delivered"],
    ]);
    expect(paymentsOf(again).map((status) => status.txHash)).toEqual([txHash, txHash]);
    expect(finishOf(again)).toMatchObject({ finishReason: "payment-failed", txHash });
    await expectSettled(target, quoted.status.paymentId, txHash);
    expect(await balanceOf(payer.address)).toBe(before - PRICE);
    await target.close();
  });

  test("a person who closes the tab during delivery: the settlement is still recorded, with its transaction", async () => {
    const payer = await newPayer(sandbox);
    const target = await chatFor(slow);
    const quoted = await requestQuote(target, payer, "My fortune, please");
    const before = await balanceOf(payer.address);
    const tab = new AbortController();
    const sent = sendApproval(target, quoted, await signQuote(payer, quoted.status), { signal: tab.signal });
    // The service takes 1.5 s before it settles: the tab goes away while it works.
    setTimeout(() => tab.abort(), 300);
    const response = await sent;
    await response.body?.cancel().catch(() => undefined);
    const record = await eventually(
      () => findPayment(target.db, quoted.status.paymentId),
      (found) => found?.status === "settled",
    );
    expect(record?.status).toBe("settled");
    const txHash = record?.txHash as Hex;
    const receipt = await chain().getTransactionReceipt({ hash: txHash });
    expect(receipt.status).toBe("success");
    expect(await balanceOf(payer.address)).toBe(before - PRICE);
    await target.close();
  });

  test("the same approval sent twice at once: one payment, and both say paid with its transaction", async () => {
    const payer = await newPayer(sandbox);
    const target = await chatFor(slow);
    const quoted = await requestQuote(target, payer, "My fortune, please");
    const signature = await signQuote(payer, quoted.status);
    const before = await balanceOf(payer.address);
    const [first, second] = await Promise.all([
      sendApproval(target, quoted, signature).then(collectLines),
      sendApproval(target, quoted, signature).then(collectLines),
    ]);
    const done = [finishOf(first), finishOf(second)];
    expect(done.map((finish) => finish?.finishReason)).toEqual(["payment-complete", "payment-complete"]);
    const txHash = done[0]?.txHash as Hex;
    expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(done[1]?.txHash).toBe(txHash);
    for (const lines of [first, second]) {
      expect(paymentsOf(lines).at(-1)).toMatchObject({ status: "delivered", txHash });
    }
    expect(await balanceOf(payer.address)).toBe(before - PRICE);
    await target.close();
  });

  test("a repeated approval that outlasts its wait asks the chain: both say paid with the same transaction", async () => {
    const payer = await newPayer(sandbox);
    // The first request's paid call outlives the second's wait for it.
    const target = await chatFor(flaky, { paidCallTimeoutMs: 9_000 });
    const quoted = await requestQuote(target, payer, "My fortune, please");
    const signature = await signQuote(payer, quoted.status);
    const before = await balanceOf(payer.address);
    sandbox.setServiceAfterSettlement(flaky.name, "hang");
    let first: StreamLine[];
    let second: StreamLine[];
    try {
      const firstLines = sendApproval(target, quoted, signature).then(collectLines);
      await eventually(
        () => findPayment(target.db, quoted.status.paymentId),
        (found) => found !== undefined,
      );
      second = await collectLines(await sendApproval(target, quoted, signature));
      first = await firstLines;
    } finally {
      sandbox.setServiceAfterSettlement(flaky.name, undefined);
    }
    const txHash = await expectPaidNotDelivered(first, payer.address, before);
    expect(steps(second)).toEqual([["confirmed", undefined]]);
    expect(paymentsOf(second)[0]?.txHash).toBe(txHash);
    expect(finishOf(second)).toMatchObject({ finishReason: "payment-complete", txHash });
    expect(await balanceOf(payer.address)).toBe(before - PRICE);
    await target.close();
  }, 30_000);

  test("a service asking for a one-year window gets an authorization valid for at most 10 minutes, and is paid", async () => {
    const payer = await newPayer(sandbox);
    const target = await chatFor(slow);
    const askedAt = Math.floor(Date.now() / 1000);
    const quoted = await requestQuote(target, payer, "My fortune, please");
    const validBefore = Number(typedDataOf(quoted.status).message.validBefore);
    expect(validBefore).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + MAX_AUTHORIZATION_SECONDS);
    expect(validBefore).toBeGreaterThanOrEqual(askedAt + MAX_AUTHORIZATION_SECONDS);
    // The deadline shown and the one the token binds are the signed one.
    expect(quoted.status.approval?.expiresAt).toBe(new Date(validBefore * 1000).toISOString());
    const [body] = (quoted.status.approval?.token ?? "").split(".");
    expect(JSON.parse(Buffer.from(body ?? "", "base64url").toString("utf8"))).toMatchObject({ expiresAt: validBefore });
    // The service still recognises its own (year-long) requirements in the payment.
    const lines = await collectLines(await sendApproval(target, quoted, await signQuote(payer, quoted.status)));
    expect(finishOf(lines)?.finishReason).toBe("payment-complete");
    await target.close();
  });

  test("a service that cannot be reached at all after the quote: 503, and nothing stays reserved", async () => {
    const doomed = await sandbox.addService(oracle("doomed-oracle"), { listed: false });
    const payer = await newPayer(sandbox);
    const target = await chatFor(doomed);
    const quoted = await requestQuote(target, payer, "My fortune, please");
    await sandbox.stopService(doomed.name);
    const response = await sendApproval(target, quoted, await signQuote(payer, quoted.status));
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("service-unavailable");
    expect((await findPayment(target.db, quoted.status.paymentId))?.status).toBe("failed");
    expect(await countedSince(target.db, payer.address, new Date(0))).toBe(0n);
    await target.close();
  });

  test("a pre-flight held up by a stalled RPC node: the stream ends at the deadline with one final d:, nothing reserved or paid", async () => {
    const rpc = await startStallingRpc(sandbox.info.rpcUrl);
    const payer = await newPayer(sandbox);
    const quoting = await chatFor(flaky);
    const quoted = await requestQuote(quoting, payer, "My fortune, please");
    await quoting.close();
    // The approval goes to an instance of the app whose RPC node has stopped answering.
    const model = payingModel(flaky.url);
    const target = await createTestChat({
      tools: createChatTools,
      env: sandboxEnv(sandbox, { [`RPC_URL_${sandbox.info.chainId}`]: rpc.url }),
      model,
      deadlineMs: 1_500,
    });
    try {
      const signature = await signQuote(payer, quoted.status);
      const before = await balanceOf(payer.address);
      const modelRuns = model.doStreamCalls.length;
      rpc.stall(true);
      const started = Date.now();
      const response = await sendApproval(target, quoted, signature);
      expect(response.status).toBe(200);
      const lines = await collectLines(response);
      expect(Date.now() - started).toBeLessThan(6_000);
      expect(rpc.stalledCalls).toBeGreaterThan(0);
      expect(paymentsOf(lines)).toEqual([]);
      expect(lines.filter((line) => line.type === "error")).toEqual([
        { type: "error", error: { code: "timeout", message: expect.stringContaining("Nothing was paid") } },
      ]);
      expect(finishOf(lines)).toMatchObject({ finishReason: "stop" });
      expect(model.doStreamCalls).toHaveLength(modelRuns);
      expect(await findPayment(target.db, quoted.status.paymentId)).toBeUndefined();
      expect(await balanceOf(payer.address)).toBe(before);
    } finally {
      await rpc.close();
      await target.close();
    }
  }, 60_000);

  test("a paid call that outlasts the deadline: submitted, not known yet, one final d:; the payment is still recorded", async () => {
    const payer = await newPayer(sandbox);
    const quoting = await chatFor(slower);
    const quoted = await requestQuote(quoting, payer, "My fortune, please");
    await quoting.close();
    const model = payingModel(slower.url);
    const target = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox), model, deadlineMs: 4_000 });
    const signature = await signQuote(payer, quoted.status);
    const before = await balanceOf(payer.address);
    const modelRuns = model.doStreamCalls.length;
    const lines = await collectLines(await sendApproval(target, quoted, signature));
    // The service settles only after the deadline: what is known for sure is that it was sent.
    expect(steps(lines)).toEqual([["submitted", undefined]]);
    expect(lines.filter((line) => line.type === "error")).toEqual([
      { type: "error", error: { code: "timeout", message: expect.stringContaining("not known yet") } },
    ]);
    expect(finishOf(lines)).toMatchObject({ finishReason: "stop", paymentId: quoted.status.paymentId });
    expect(model.doStreamCalls).toHaveLength(modelRuns);

    // The delivery went on by itself and recorded the settlement.
    const record = await eventually(
      () => findPayment(target.db, quoted.status.paymentId),
      (found) => found?.status === "settled",
    );
    expect(record?.status).toBe("settled");
    const txHash = record?.txHash as Hex;
    expect((await chain().getTransactionReceipt({ hash: txHash })).status).toBe("success");
    expect(await balanceOf(payer.address)).toBe(before - PRICE);
    // The same approval again tells the outcome.
    const again = await collectLines(await sendApproval(target, quoted, signature));
    expect(finishOf(again)).toMatchObject({ finishReason: "payment-complete", txHash });
    await target.close();
  }, 60_000);

  test("reservations left by a request that died are finished by the sweep: settled if used, released once expired", async () => {
    const target = await chatFor(flaky);
    const news = sandboxService(sandbox, "news-headlines");
    const payer = privateKeyToAccount(generatePrivateKey());
    await sandbox.fund({ to: payer.address, usdc: 1_000_000n });
    const limits = { daily: 1_000_000n, weekly: 1_000_000n, monthly: 1_000_000n, perPayment: 1_000_000n };
    const longAgo = new Date(Date.now() - 5 * 60_000);
    const now = Math.floor(Date.now() / 1000);
    const authorization = (validBefore: number) => {
      const nonce = generatePrivateKey();
      const typedData: TypedDataForWallet = {
        domain: { name: sandbox.info.usdc.name, version: sandbox.info.usdc.version, chainId: sandbox.info.chainId, verifyingContract: sandbox.info.usdc.address },
        types: {
          TransferWithAuthorization: [...transferWithAuthorizationTypes.TransferWithAuthorization],
        },
        primaryType: "TransferWithAuthorization",
        message: { from: payer.address, to: news.payTo, value: news.priceAtomic, validAfter: "0", validBefore: String(validBefore), nonce },
      };
      return { nonce, typedData };
    };
    const reserve = async (paymentId: string, nonce: Hex, validBefore: number) => {
      const reserved = await reservePayment(target.db, {
        payment: {
          paymentId,
          wallet: payer.address,
          network: sandbox.info.network,
          asset: sandbox.info.usdc.address,
          payTo: news.payTo,
          amount: BigInt(news.priceAtomic),
          nonce,
          serviceName: news.serviceName,
          serviceUrl: news.url,
          validBefore: new Date(validBefore * 1000),
          fromBlock: await chain().getBlockNumber(),
        },
        limits,
        now: longAgo,
      });
      expect(reserved.kind).toBe("reserved");
    };
    // Paid on chain, then the process died before recording it.
    const used = authorization(now + 300);
    await reserve("pay_died_after_paying", used.nonce, now + 300);
    const txHash = await collectOnChain(sandbox, used.typedData, await payer.signTypedData({ ...used.typedData, message: typedDataMessage(used.typedData) }));
    // Never used, and its window is over by the chain's clock.
    const expired = authorization(now - 60);
    await reserve("pay_died_unused", expired.nonce, now - 60);
    await createTestClient({ mode: "anvil", transport: http(sandbox.info.rpcUrl) }).mine({ blocks: 1 });
    // A reservation still within its request's life is left to that request.
    const fresh = authorization(now + 300);
    await reservePayment(target.db, {
      payment: { paymentId: "pay_in_flight", wallet: payer.address, network: sandbox.info.network, asset: sandbox.info.usdc.address, payTo: news.payTo, amount: 1n, nonce: fresh.nonce, serviceName: "x", serviceUrl: news.url },
      limits,
    });

    expect(await sweepUnfinishedPayments({ db: target.db, env: target.env })).toMatchObject({ checked: 2, settled: 1, released: 1 });
    expect(await findPayment(target.db, "pay_died_after_paying")).toMatchObject({ status: "settled", txHash });
    expect(await findPayment(target.db, "pay_died_unused")).toMatchObject({ status: "failed", failureCode: "expired" });
    expect((await findPayment(target.db, "pay_in_flight"))?.status).toBe("reserved");
    expect(await countedSince(target.db, payer.address, new Date(0))).toBe(BigInt(news.priceAtomic) + 1n);
    await target.close();
  });
});

describe("paid means paid, once the authorization has expired", () => {
  // Its own chain: the clock is moved forward here, which would break later signatures elsewhere.
  let sandbox: Sandbox;
  let flaky: SandboxServiceInfo;

  beforeAll(async () => {
    sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
    flaky = await sandbox.addService(oracle("flaky-oracle"), { listed: false });
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  test("a pending payment never collected is released by the sweep a request triggers after its validBefore", async () => {
    const payer = await newPayer(sandbox);
    // The handler's clock: the wall clock, moved on when the test pretends time has passed.
    let later = 0;
    const now = () => new Date(Date.now() + later);
    const target = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox), model: payingModel(flaky.url), now });
    const quoted = await requestQuote(target, payer, "My fortune, please", roomForOne);
    sandbox.setServiceFailing(flaky.name, true);
    let lines: StreamLine[];
    try {
      lines = await collectLines(await sendApproval(target, quoted, await signQuote(payer, quoted.status)));
    } finally {
      sandbox.setServiceFailing(flaky.name, false);
    }
    expect(paymentsOf(lines).at(-1)?.reason?.code).toBe("payment-pending");
    const validBefore = Number(typedDataOf(quoted.status).message.validBefore);
    // Before it expires, the amount stays counted.
    expect(await countedSince(target.db, payer.address, new Date(0))).toBe(PRICE);

    const testClient = createTestClient({ mode: "anvil", transport: http(sandbox.info.rpcUrl) });
    await testClient.increaseTime({ seconds: validBefore - Math.floor(Date.now() / 1000) + 60 });
    await testClient.mine({ blocks: 1 });
    // A sweep ran on this database's first use; pretend the minute since has passed.
    expect(await sweepIfDue({ db: target.db, env: target.env })).toBeUndefined();
    later = 2 * 60_000;

    // Any request triggers the sweep, in the background.
    await collectLines(await target.post({ messages: [{ role: "user", content: "Hello" }], walletAddress: payer.address, spendingLimits: roomForOne }));
    const record = await eventually(
      () => findPayment(target.db, quoted.status.paymentId),
      (found) => found?.status === "failed",
    );
    expect(record).toMatchObject({ status: "failed", failureCode: "expired", txHash: null });
    expect((record?.outcome as PaymentStatus | undefined)?.reason?.message).toMatch(/Nothing was charged/);
    expect(await countedSince(target.db, payer.address, new Date(0))).toBe(0n);
    // The same approval again now says what the chain says: nothing moved, nothing can.
    const again = await collectLines(await sendApproval(target, quoted, await signQuote(payer, quoted.status)));
    expect(steps(again)).toEqual([["failed", "expired"]]);
    expect(paymentsOf(again)[0]?.txHash).toBeUndefined();
    await target.close();
  });
});
