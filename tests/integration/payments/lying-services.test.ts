// A service's PAYMENT-RESPONSE is a claim, not a proof (docs/contract.md, section 4, item 4a): services of the
// tests' own that take the signed payment without settling it and say they did, with a made-up
// transaction, with a real transaction that moved something else, or with a transaction that is
// not even a string. The person is never told "confirmed" on a service's word, the ledger keeps
// the payment pending (counted, not settled), and once the service really collects it the chain's
// own transaction is what is recorded. Real anvil, USDC and facilitator.
import { createPublicClient, http, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createChatTools } from "@/lib/chat/tools";
import { findPayment } from "@/lib/payments/ledger";
import { sweepUnfinishedPayments } from "@/lib/payments/sweep";
import type { PaymentStatus, StreamLine } from "@/lib/protocol/lines";
import { startSandbox, type Sandbox, type SandboxServiceInfo } from "@/sandbox";
import { collectLines, createTestChat } from "@/tests/helpers/chat";
import {
  collectOnChain,
  finishOf,
  fortuneOracle,
  generousLimits,
  modelCallingPayForService,
  newPayer,
  paymentsOf,
  requestQuote,
  sandboxEnv,
  sendApproval,
  signQuote,
  typedDataOf,
  usdcBalance,
} from "@/tests/helpers/paid-chat";

const PRICE = 3_000n;
const steps = (lines: StreamLine[]) => paymentsOf(lines).map((status) => [status.status, status.reason?.code]);

describe("a service that claims a settlement the chain does not show", () => {
  let sandbox: Sandbox;
  let liar: SandboxServiceInfo;
  let balanceOf: ReturnType<typeof usdcBalance>;

  beforeAll(async () => {
    sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
    balanceOf = usdcBalance(sandbox);
    liar = await sandbox.addService(fortuneOracle("lying-oracle", PRICE), { listed: false });
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  /** Quotes, signs and approves one payment while the service claims `transaction`. */
  async function payTheLiar(transaction: unknown) {
    const payer = await newPayer(sandbox);
    const results: unknown[] = [];
    const target = await createTestChat({
      tools: createChatTools,
      env: sandboxEnv(sandbox),
      model: modelCallingPayForService({ url: liar.url }, { onToolResult: (content) => results.push(content) }),
    });
    const quoted = await requestQuote(target, payer, "My fortune, please");
    const signature = await signQuote(payer, quoted.status);
    const before = await balanceOf(payer.address);
    sandbox.setServiceClaimedSettlement(liar.name, { transaction });
    let lines: StreamLine[];
    try {
      lines = await collectLines(await sendApproval(target, quoted, signature));
    } finally {
      sandbox.setServiceClaimedSettlement(liar.name, undefined);
    }
    return { payer, target, quoted, signature, before, lines, results };
  }

  test("a made-up transaction: pending, never confirmed, counted but not settled; once collected, the chain's own transaction is recorded", async () => {
    const madeUp = `0x${"ab".repeat(32)}`;
    const { payer, target, quoted, signature, before, lines, results } = await payTheLiar(madeUp);

    expect(steps(lines)).toEqual([
      ["submitted", undefined],
      ["failed", "payment-pending"],
    ]);
    const pending = paymentsOf(lines).at(-1) as PaymentStatus;
    expect(pending.txHash).toBeUndefined();
    expect(pending.explorerUrl).toBeUndefined();
    expect(pending.reason?.message).toMatch(/said the payment was settled .* but the chain does not show this payment/);
    expect(pending.collectableUntil).toBeDefined();
    expect(JSON.stringify(lines)).not.toContain(madeUp);
    expect(finishOf(lines)).toMatchObject({ finishReason: "payment-failed" });
    expect(finishOf(lines)?.txHash).toBeUndefined();
    // The model is told the payment may still move, not that it was paid.
    expect(JSON.stringify(results)).toContain("payment-pending");
    expect(await balanceOf(payer.address)).toBe(before);
    expect(await findPayment(target.db, quoted.status.paymentId)).toMatchObject({ status: "pending", txHash: null });

    // The service collects the authorization it kept: the sweep records the transaction the chain shows.
    const collected = await collectOnChain(sandbox, typedDataOf(quoted.status), signature);
    const report = await sweepUnfinishedPayments({ db: target.db, env: target.env });
    expect(report).toMatchObject({ settled: 1 });
    expect(await findPayment(target.db, quoted.status.paymentId)).toMatchObject({ status: "settled", txHash: collected });
    expect(await balanceOf(payer.address)).toBe(before - PRICE);
    // The same approval again: paid with the chain's transaction, not the one the service named.
    const again = await collectLines(await sendApproval(target, quoted, signature));
    expect(finishOf(again)).toMatchObject({ txHash: collected });
    expect(JSON.stringify(again)).not.toContain(madeUp);
    await target.close();
  });

  test("a real transaction that moved something else is no proof of this payment", async () => {
    const other = await newPayer(sandbox);
    // Any successful USDC transaction of the chain: the funding of another payer.
    const chain = createPublicClient({ transport: http(sandbox.info.rpcUrl) });
    const block = await chain.getBlock({ blockTag: "latest" });
    const unrelated = block.transactions[0] as Hex;
    expect((await chain.getTransactionReceipt({ hash: unrelated })).status).toBe("success");
    expect(other.address).toBeDefined();

    const { payer, target, quoted, before, lines } = await payTheLiar(unrelated);
    expect(steps(lines)).toEqual([
      ["submitted", undefined],
      ["failed", "payment-pending"],
    ]);
    expect(JSON.stringify(paymentsOf(lines))).not.toContain(unrelated.slice(2));
    expect(await balanceOf(payer.address)).toBe(before);
    expect(await findPayment(target.db, quoted.status.paymentId)).toMatchObject({ status: "pending", txHash: null });
    await target.close();
  });

  for (const [title, transaction] of [
    ["an object", { $$typeof: "react.element", props: { children: "boom" } }],
    ["a number", 42],
    ["text that is no transaction id", "<img src=x onerror=alert(1)>"],
  ] as const) {
    test(`a transaction that is ${title}: the stream stays well formed, and nothing of it reaches the page`, async () => {
      const { payer, target, before, lines } = await payTheLiar(transaction);
      expect(steps(lines)).toEqual([
        ["submitted", undefined],
        ["failed", "payment-pending"],
      ]);
      for (const status of paymentsOf(lines)) {
        expect(status.txHash).toBeUndefined();
        expect(typeof status.reason?.message === "string" || status.reason === undefined).toBe(true);
      }
      expect(JSON.stringify(lines)).not.toContain("onerror");
      expect(JSON.stringify(lines)).not.toContain("react.element");
      expect(finishOf(lines)).toMatchObject({ finishReason: "payment-failed" });
      expect(await balanceOf(payer.address)).toBe(before);
      await target.close();
    });
  }

  test("an honest settlement is still confirmed with the transaction the chain shows", async () => {
    const payer = await newPayer(sandbox);
    const target = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox), model: modelCallingPayForService({ url: liar.url }) });
    const quoted = await requestQuote(target, payer, "My fortune, please", generousLimits);
    const lines = await collectLines(await sendApproval(target, quoted, await signQuote(payer, quoted.status)));
    expect(steps(lines)).toEqual([
      ["submitted", undefined],
      ["confirmed", undefined],
      ["delivered", undefined],
    ]);
    const txHash = paymentsOf(lines).at(-1)?.txHash as Hex;
    const receipt = await createPublicClient({ transport: http(sandbox.info.rpcUrl) }).getTransactionReceipt({ hash: txHash });
    expect(receipt.status).toBe("success");
    expect(await findPayment(target.db, quoted.status.paymentId)).toMatchObject({ status: "settled", txHash });
    await target.close();
  });
});
