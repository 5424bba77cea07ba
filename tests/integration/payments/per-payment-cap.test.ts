// A price above the per-payment limit is refused like every other limit (docs/contract.md, section 3,
// `checking`): `p: checking`, then `p: failed` with `limit-exceeded`, the price and the limit
// that stopped it, and nothing reserved. The page's card says so in plain words.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { explainFailure, noChargeNote } from "@/components/payment/payment-failure";
import { createChatTools } from "@/lib/chat/tools";
import { findPayment, recentPayments } from "@/lib/payments/ledger";
import { startSandbox, type Sandbox } from "@/sandbox";
import { collectLines, createTestChat, textOf } from "@/tests/helpers/chat";
import { finishOf, generousLimits, newPayer, payingModel, paymentsOf, sandboxEnv, sandboxService } from "@/tests/helpers/paid-chat";

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
});
afterAll(async () => {
  await sandbox?.stop();
});

describe("the per-payment limit", () => {
  test("a price above it streams checking then failed, with the price and the limit, and reserves nothing", async () => {
    const news = sandboxService(sandbox, "news-headlines");
    const chat = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox), model: payingModel(news.url, { topic: "technology" }) });
    const payer = await newPayer(sandbox);
    const limits = { ...generousLimits, perPayment: "0.001" };
    const lines = await collectLines(
      await chat.post({ messages: [{ role: "user", content: "Headlines please" }], walletAddress: payer.address, spendingLimits: limits }),
    );

    const statuses = paymentsOf(lines);
    expect(statuses.map((status) => [status.status, status.reason?.code])).toEqual([
      ["checking", undefined],
      ["failed", "limit-exceeded"],
    ]);
    const [checking, failed] = statuses;
    expect(failed?.paymentId).toBe(checking?.paymentId);
    // The card shows the price it was asked for...
    expect(failed).toMatchObject({
      service: { url: news.url },
      network: sandbox.info.network,
      amount: { serviceFee: news.price, total: news.price, usd: news.price, currency: "USDC" },
    });
    expect(failed?.approval).toBeUndefined();
    expect(failed?.txHash).toBeUndefined();
    // ...and the limit that stopped it.
    expect(failed?.reason?.message).toBe(`This payment of $${news.price} is above your per-payment limit of $0.001.`);
    // A card, not a bare error line.
    expect(lines.some((line) => line.type === "error")).toBe(false);
    expect(finishOf(lines)).toMatchObject({ finishReason: "limit-exceeded", paymentId: failed?.paymentId });
    // The model was told, and answered.
    expect(textOf(lines)).toBe("Done.");

    // Nothing reserved.
    if (!failed) throw new Error("no failed line");
    expect(await findPayment(chat.db, failed.paymentId)).toBeUndefined();
    expect(await recentPayments(chat.db, payer.address)).toEqual([]);

    // The page's card, from the same line.
    const explained = explainFailure(failed, String);
    expect(explained.summary).toBe("Your spending limit stopped this payment before anything was sent.");
    expect(explained.stepNote).toBe("Over a limit");
    expect(explained.chargeNote).toBe(noChargeNote);
    expect(explained.paid).toBe(false);
    await chat.close();
  });
});
