// The offline model driving the real spending and preference tools through the handler.
import { afterEach, describe, expect, test } from "vitest";
import { createChatTools } from "@/lib/chat/tools";
import { reservePayment, markSettled } from "@/lib/payments/ledger";
import { collectLines, createTestChat, textOf, type TestChat } from "@/tests/helpers/chat";

const wallet = "0x000000000000000000000000000000000000dEaD";
let chat: TestChat | undefined;
afterEach(async () => {
  await chat?.close();
  chat = undefined;
});

describe("offline model with the account tools", () => {
  test("reports spending from the ledger against the person's limits", async () => {
    chat = await createTestChat({ tools: createChatTools });
    await reservePayment(chat.db, {
      payment: {
        paymentId: "pay_a",
        wallet,
        network: "eip155:31337",
        asset: "0x0000000000000000000000000000000000000001",
        payTo: "0x0000000000000000000000000000000000000002",
        amount: 250_000n,
        nonce: `0x${"1".repeat(64)}`,
        serviceName: "Weather Pro",
        serviceUrl: "http://127.0.0.1:4101/weather",
      },
      limits: { daily: 10_000_000n, weekly: 10_000_000n, monthly: 10_000_000n, perPayment: 10_000_000n },
    });
    await markSettled(chat.db, { paymentId: "pay_a", txHash: "0xfeed", outcome: {} });
    const lines = await collectLines(
      await chat.post({
        messages: [{ role: "user", content: "How much have I spent this week?" }],
        walletAddress: wallet,
        spendingLimits: { daily: 1, weekly: "5", monthly: 20 },
      }),
    );
    const text = textOf(lines);
    expect(text).toContain("(Offline model");
    expect(text).toContain("Last 7 days: spent $0.25 of $5.00, $4.75 left.");
    expect(lines.at(-1)).toMatchObject({ type: "data", data: { finishReason: "stop", model: "offline" } });
  });

  test("without a wallet, says to connect one", async () => {
    chat = await createTestChat({ tools: createChatTools });
    const lines = await collectLines(await chat.post({ messages: [{ role: "user", content: "What's my remaining budget?" }] }));
    expect(textOf(lines)).toContain("No wallet is connected");
  });

  test("proposes settings as a d: line and says which raised limits need confirmation", async () => {
    chat = await createTestChat({ tools: createChatTools });
    const lines = await collectLines(
      await chat.post({
        messages: [{ role: "user", content: "Set my daily limit to 2 and my monthly limit to 10" }],
        spendingLimits: { daily: 1, monthly: 20 },
      }),
    );
    const proposal = lines.find((line) => line.type === "data" && !("finishReason" in line.data));
    expect(proposal).toEqual({ type: "data", data: { spendingLimits: { daily: "2", monthly: "10" } } });
    expect(textOf(lines)).toContain("Raising the daily limit needs your confirmation in the page.");
  });
});
