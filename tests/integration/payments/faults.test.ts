// Faults around a payment, on the sandbox with its real parts broken on purpose: the chain's
// JSON-RPC down or silent during pre-flight, the facilitator down or losing its answer at
// settlement, the person's connection gone while the payment settles, and the ledger refusing
// to record a settlement that happened. A loopback proxy stands in front of the anvil RPC and
// in front of the facilitator (tests/helpers/fault-proxy.ts); the chain is the judge of what
// moved. (Paid services that misbehave themselves are covered in paid-means-paid.test.ts.)
import { createPublicClient, createTestClient, http, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { RPC_TIMEOUT_MS } from "@/lib/chain/clients";
import { createChatTools } from "@/lib/chat/tools";
import { findPayment, countedSince } from "@/lib/payments/ledger";
import { sweepUnfinishedPayments } from "@/lib/payments/sweep";
import type { PaymentStatus, StreamLine } from "@/lib/protocol/lines";
import { startSandbox, type Sandbox } from "@/sandbox";
import { freePort } from "@/sandbox/ports";
import { startService, type RunningService } from "@/sandbox/services/x402-service";
import { collectLines, createTestChat, type TestChat } from "@/tests/helpers/chat";
import { startFaultProxy, type FaultProxy, type ProxiedRequest } from "@/tests/helpers/fault-proxy";
import {
  finishOf,
  newPayer,
  payingModel,
  paymentsOf,
  requestQuote,
  sandboxEnv,
  sendApproval,
  signQuote,
  typedDataOf,
  usdcBalance,
  eventually,
  fortuneOracle,
  type Quoted,
} from "@/tests/helpers/paid-chat";

const PRICE = 3_000n; // 0.003 USDC

const oracle = fortuneOracle("fault-oracle", PRICE);

const steps = (lines: StreamLine[]) => paymentsOf(lines).map((status) => [status.status, status.reason?.code]);
const isSettle = (request: ProxiedRequest) => request.path === "/settle";
const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string } }).error;


describe("faults around a payment", () => {
  let sandbox: Sandbox;
  /** In front of anvil: the app's RPC for the sandbox chain goes through it. */
  let rpc: FaultProxy;
  /** In front of the facilitator: the test service verifies and settles through it. */
  let facilitator: FaultProxy;
  let service: RunningService;
  let balanceOf: ReturnType<typeof usdcBalance>;
  const chain = () => createPublicClient({ transport: http(sandbox.info.rpcUrl) });

  beforeAll(async () => {
    sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
    balanceOf = usdcBalance(sandbox);
    rpc = await startFaultProxy(sandbox.info.rpcUrl);
    facilitator = await startFaultProxy(sandbox.info.facilitatorUrl);
    service = await startService({
      definition: oracle,
      port: await freePort(),
      facilitatorUrl: facilitator.url,
      usdcAddress: sandbox.info.usdc.address,
      payTo: privateKeyToAccount(generatePrivateKey()).address,
    });
  });
  afterAll(async () => {
    await service?.close();
    await facilitator?.close();
    await rpc?.close();
    await sandbox?.stop();
  });

  async function chat(): Promise<TestChat> {
    return createTestChat({
      tools: createChatTools,
      env: sandboxEnv(sandbox, { [`RPC_URL_${sandbox.info.chainId}`]: rpc.url }),
      model: payingModel(service.resourceUrl),
    });
  }

  /** A funded payer, a chat, and a quote for the oracle, with every part working. */
  async function quoted() {
    rpc.setFault(undefined);
    facilitator.setFault(undefined);
    const payer = await newPayer(sandbox);
    const target = await chat();
    const quote = await requestQuote(target, payer, "My fortune, please");
    return { payer, target, quote, signature: await signQuote(payer, quote.status), before: await balanceOf(payer.address) };
  }

  async function expectNothingHappened(target: TestChat, quote: Quoted, payer: `0x${string}`, before: bigint) {
    expect(await findPayment(target.db, quote.status.paymentId)).toBeUndefined();
    expect(await countedSince(target.db, payer, new Date(0))).toBe(0n);
    expect(await balanceOf(payer)).toBe(before);
  }

  describe("the chain's RPC during pre-flight", () => {
    test("down at request A: the quote fails at checking, says the balance could not be read, and reserves nothing", async () => {
      rpc.setFault(undefined);
      const payer = await newPayer(sandbox);
      const target = await chat();
      await rpc.down();
      let lines: StreamLine[];
      try {
        lines = await collectLines(
          await target.post({ messages: [{ role: "user", content: "My fortune, please" }], walletAddress: payer.address }),
        );
      } finally {
        await rpc.up();
      }
      expect(steps(lines).map(([status]) => status)).toEqual(["checking", "failed"]);
      const failed = paymentsOf(lines)[1] as PaymentStatus;
      expect(failed.reason?.message).toMatch(/Could not read your USDC balance/);
      expect(failed.approval).toBeUndefined();
      expect(finishOf(lines)?.finishReason).toBe("payment-failed");
      expect(await countedSince(target.db, payer.address, new Date(0))).toBe(0n);
      await target.close();
    });

    test("down at request B: 500 blockchain-error, nothing reserved or sent, and the same approval pays once it is back", async () => {
      const { payer, target, quote, signature, before } = await quoted();
      const settlesBefore = facilitator.seen.length;
      await rpc.down();
      let response: Response;
      try {
        response = await sendApproval(target, quote, signature);
      } finally {
        await rpc.up();
      }
      expect(response.status).toBe(500);
      const error = await errorOf(response);
      expect(error.code).toBe("blockchain-error");
      expect(error.message).toMatch(/Could not read your USDC balance on .+ Nothing was paid\./);
      // The signed payment never left the server.
      expect(facilitator.seen.length).toBe(settlesBefore);
      await expectNothingHappened(target, quote, payer.address, before);

      const again = await collectLines(await sendApproval(target, quote, signature));
      expect(finishOf(again)?.finishReason).toBe("payment-complete");
      expect(await balanceOf(payer.address)).toBe(before - PRICE);
      await target.close();
    });

    test("silent at request B: the same clear 500 blockchain-error within the RPC's bound, nothing reserved", async () => {
      const { payer, target, quote, signature, before } = await quoted();
      rpc.setFault(() => ({ kind: "stall" }));
      const started = Date.now();
      let response: Response;
      try {
        response = await sendApproval(target, quote, signature);
      } finally {
        rpc.setFault(undefined);
      }
      // One attempt and one retry, each cut off at RPC_TIMEOUT_MS, and nothing waits longer.
      expect(Date.now() - started).toBeLessThan(2 * RPC_TIMEOUT_MS + 3_000);
      expect(response.status).toBe(500);
      expect((await errorOf(response)).code).toBe("blockchain-error");
      await expectNothingHappened(target, quote, payer.address, before);
      await target.close();
    }, 45_000);
  });

  test("the facilitator settles but its answer is lost: the person is told it was paid, with the chain's transaction, and it counts", async () => {
    const { payer, target, quote, signature, before } = await quoted();
    facilitator.setFault((request) => (isSettle(request) ? { kind: "lose-answer" } : { kind: "pass" }));
    let lines: StreamLine[];
    try {
      lines = await collectLines(await sendApproval(target, quote, signature));
    } finally {
      facilitator.setFault(undefined);
    }
    expect(steps(lines)).toEqual([
      ["submitted", undefined],
      ["confirmed", undefined],
      ["failed", "not-delivered"],
    ]);
    const txHash = paymentsOf(lines)[1]?.txHash as Hex;
    expect((await chain().getTransactionReceipt({ hash: txHash })).status).toBe("success");
    expect(finishOf(lines)).toMatchObject({ finishReason: "payment-failed", txHash });
    expect(await balanceOf(payer.address)).toBe(before - PRICE);
    expect(await findPayment(target.db, quote.status.paymentId)).toMatchObject({ status: "settled", txHash });
    expect(await countedSince(target.db, payer.address, new Date(0))).toBe(PRICE);
    await target.close();
  });

  test("the person's connection goes while the facilitator settles: the ledger still records the settlement with its transaction", async () => {
    const { payer, target, quote, signature, before } = await quoted();
    facilitator.setFault((request) => (isSettle(request) ? { kind: "hold", ms: 1_500 } : { kind: "pass" }));
    const tab = new AbortController();
    try {
      const settling = facilitator.waitFor(isSettle);
      const sent = sendApproval(target, quote, signature, { signal: tab.signal });
      await settling;
      tab.abort();
      const response = await sent;
      await response.body?.cancel().catch(() => undefined);
      const record = await eventually(
        () => findPayment(target.db, quote.status.paymentId),
        (found) => found?.status === "settled",
      );
      expect(record?.txHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect((await chain().getTransactionReceipt({ hash: record?.txHash as Hex })).status).toBe("success");
    } finally {
      facilitator.setFault(undefined);
    }
    expect(await balanceOf(payer.address)).toBe(before - PRICE);
    // Coming back, the same approval is told what happened, and nothing is paid twice.
    const again = await collectLines(await sendApproval(target, quote, signature));
    const record = await findPayment(target.db, quote.status.paymentId);
    expect(finishOf(again)).toMatchObject({ finishReason: "payment-complete", txHash: record?.txHash });
    expect(await balanceOf(payer.address)).toBe(before - PRICE);
    await target.close();
  });

  /** A payment made while the ledger refuses every write that would mark a payment settled. */
  async function paidWhileTheLedgerFails() {
    const { payer, target, quote, signature, before } = await quoted();
    // A real database refusal, from inside Postgres.
    await target.db.query(`CREATE OR REPLACE FUNCTION refuse_settlement() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'the disk is full'; END $$`);
    await target.db.query(`CREATE TRIGGER refuse_settlement BEFORE UPDATE ON payments
      FOR EACH ROW WHEN (NEW.status = 'settled') EXECUTE FUNCTION refuse_settlement()`);
    const lines = await collectLines(await sendApproval(target, quote, signature));
    expect(steps(lines)).toEqual([
      ["submitted", undefined],
      ["confirmed", undefined],
      ["delivered", undefined],
    ]);
    const txHash = paymentsOf(lines)[2]?.txHash as Hex;
    expect(finishOf(lines)).toMatchObject({ finishReason: "payment-complete", txHash });
    expect(await balanceOf(payer.address)).toBe(before - PRICE);
    // Not recorded, but still counted: the reservation holds the amount.
    expect(await findPayment(target.db, quote.status.paymentId)).toMatchObject({ status: "reserved", txHash: null });
    expect(await countedSince(target.db, payer.address, new Date(0))).toBe(PRICE);
    await target.db.query("DROP TRIGGER refuse_settlement ON payments");
    return { payer, target, quote, signature, before, txHash };
  }

  test("the ledger fails between settlement and record: the person is told the truth, and the sweep records it settled from the chain", async () => {
    const { payer, target, quote, txHash } = await paidWhileTheLedgerFails();
    // Once the request is long over, the sweep asks the chain and records what it says.
    const later = new Date(Date.now() + 5 * 60_000);
    expect(await sweepUnfinishedPayments({ db: target.db, env: target.env, now: later })).toMatchObject({ settled: 1 });
    expect(await findPayment(target.db, quote.status.paymentId)).toMatchObject({ status: "settled", txHash });
    expect(await countedSince(target.db, payer.address, new Date(0))).toBe(PRICE);
    await target.close();
  });

  test("the ledger failed to record a settlement: the same approval sent again later is told it was paid, and records it", async () => {
    const { payer, target, quote, signature, before, txHash } = await paidWhileTheLedgerFails();
    // Minutes later: the request that paid is long over.
    await target.db.query("UPDATE payments SET created_at = created_at - interval '5 minutes', updated_at = updated_at - interval '5 minutes'");
    const again = await collectLines(await sendApproval(target, quote, signature));
    expect(paymentsOf(again).at(-1)).toMatchObject({ txHash });
    expect(finishOf(again)).toMatchObject({ finishReason: "payment-complete", txHash });
    expect(await findPayment(target.db, quote.status.paymentId)).toMatchObject({ status: "settled", txHash });
    expect(await balanceOf(payer.address)).toBe(before - PRICE);
    await target.close();
  });

  // Last: it moves the chain's clock past the authorization's window, which would make later
  // quotes on this chain expire as soon as they are signed.
  test("the facilitator is down at settlement: nothing moved, the amount stays reserved while the service could still collect, released once it cannot", async () => {
    const { payer, target, quote, signature, before } = await quoted();
    facilitator.setFault((request) => (isSettle(request) ? { kind: "cut" } : { kind: "pass" }));
    let lines: StreamLine[];
    try {
      lines = await collectLines(await sendApproval(target, quote, signature));
    } finally {
      facilitator.setFault(undefined);
    }
    expect(steps(lines)).toEqual([
      ["submitted", undefined],
      ["failed", "payment-pending"],
    ]);
    const pending = paymentsOf(lines)[1] as PaymentStatus;
    expect(pending.txHash).toBeUndefined();
    const validBefore = Number(typedDataOf(quote.status).message.validBefore);
    expect(pending.collectableUntil).toBe(new Date(validBefore * 1000).toISOString());
    expect(pending.reason?.message).toMatch(/could still collect it until/);
    expect(await balanceOf(payer.address)).toBe(before);
    // Kept while the signed authorization can still be used.
    expect(await findPayment(target.db, quote.status.paymentId)).toMatchObject({ status: "pending", txHash: null });
    expect(await countedSince(target.db, payer.address, new Date(0))).toBe(PRICE);
    expect(await sweepUnfinishedPayments({ db: target.db, env: target.env })).toMatchObject({ pending: 1, released: 0 });
    expect(await countedSince(target.db, payer.address, new Date(0))).toBe(PRICE);

    // Released once the chain is past its validBefore, unused.
    const testClient = createTestClient({ mode: "anvil", transport: http(sandbox.info.rpcUrl) });
    await testClient.increaseTime({ seconds: validBefore - Math.floor(Date.now() / 1000) + 60 });
    await testClient.mine({ blocks: 1 });
    expect(await sweepUnfinishedPayments({ db: target.db, env: target.env })).toMatchObject({ released: 1 });
    expect(await findPayment(target.db, quote.status.paymentId)).toMatchObject({ status: "failed", failureCode: "expired", txHash: null });
    expect(await countedSince(target.db, payer.address, new Date(0))).toBe(0n);
    expect(await balanceOf(payer.address)).toBe(before);
    await target.close();
  });
});
