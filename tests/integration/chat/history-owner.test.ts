// A wallet's history is its owner's (docs/contract.md, section 9): in the chat, getSpending for a wallet merely
// named gives the totals and what is left, never which payments were made; the wallet's own
// signed-in session sees them. And naming a wallet does not put it in a cooldown: only a wallet
// that proved itself counts, so a stranger cannot hold a person's chat.
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { afterEach, describe, expect, test } from "vitest";
import { createChatTools } from "@/lib/chat/tools";
import { markSettled, reservePayment } from "@/lib/payments/ledger";
import { sessionCookie } from "@/lib/session";
import { collectLines, createTestChat, type TestChat } from "@/tests/helpers/chat";

const wallet = "0x000000000000000000000000000000000000dEaD";
let chat: TestChat | undefined;
afterEach(async () => {
  await chat?.close();
  chat = undefined;
});

const finish = (unified: "stop" | "tool-calls"): LanguageModelV4StreamPart => ({
  type: "finish",
  finishReason: { unified, raw: undefined },
  usage: { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } },
});

/** A model that asks for the spending once and keeps what the tool told it. */
function spendingModel(results: unknown[]) {
  return new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      const last = prompt.at(-1);
      if (last?.role === "tool") {
        results.push(last.content);
        return { stream: convertArrayToReadableStream<LanguageModelV4StreamPart>([{ type: "text-start", id: "1" }, { type: "text-delta", id: "1", delta: "Here it is." }, { type: "text-end", id: "1" }, finish("stop")]) };
      }
      return { stream: convertArrayToReadableStream<LanguageModelV4StreamPart>([{ type: "tool-call", toolCallId: "s1", toolName: "getSpending", input: "{}" }, finish("tool-calls")]) };
    },
  });
}

async function paidOnce(target: TestChat) {
  await reservePayment(target.db, {
    payment: {
      paymentId: "pay_private",
      wallet,
      network: "eip155:31337",
      asset: "0x0000000000000000000000000000000000000001",
      payTo: "0x0000000000000000000000000000000000000002",
      amount: 250_000n,
      nonce: `0x${"7".repeat(64)}`,
      serviceName: "Clinic Appointments",
      serviceUrl: "http://127.0.0.1:4101/clinic",
    },
    limits: { daily: 10_000_000n, weekly: 10_000_000n, monthly: 10_000_000n, perPayment: 10_000_000n },
  });
  await markSettled(target.db, { paymentId: "pay_private", txHash: `0x${"fe".repeat(32)}`, outcome: {} });
}

const ownersCookie = (target: TestChat) => sessionCookie(new Request("http://localhost/api/chat"), wallet, target.env).split(";")[0] ?? "";

describe("history only for its owner", () => {
  test("a wallet merely named gets its totals and what is left, and no payments; its own session gets them", async () => {
    const results: unknown[] = [];
    chat = await createTestChat({ tools: createChatTools, model: spendingModel(results) });
    await paidOnce(chat);
    const ask = { messages: [{ role: "user", content: "What have I paid for?" }], walletAddress: wallet, spendingLimits: { daily: 1 } };

    await collectLines(await chat.post(ask));
    const stranger = JSON.stringify(results.at(-1));
    expect(stranger).toContain("Last 24 hours: spent $0.25 of $1.00, $0.75 left.");
    expect(stranger).not.toContain("Clinic Appointments");
    expect(stranger).not.toContain("pay_private");
    expect(stranger).not.toContain("fefefe");

    await collectLines(await chat.post(ask, { headers: { cookie: ownersCookie(chat) } }));
    const owner = JSON.stringify(results.at(-1));
    expect(owner).toContain("Clinic Appointments");
    expect(owner).toContain(`0x${"fe".repeat(32)}`);
  });

  test("a stranger naming a wallet does not hold its owner's chat; the owner's own messages do count for the wallet", async () => {
    chat = await createTestChat({ tools: createChatTools, env: { CHAT_COOLDOWN_SECONDS: "30", TRUSTED_PROXY_HOPS: "1" } });
    const message = { messages: [{ role: "user", content: "hello" }], walletAddress: wallet };
    const from = (client: string, extra: Record<string, string> = {}) => ({ headers: { "x-forwarded-for": client, ...extra } });

    const stranger = await chat.post(message, from("198.51.100.1"));
    expect(stranger.status).toBe(200);
    await collectLines(stranger);
    // The owner, signed in, from their own address: not held by the stranger's message.
    const owner = await chat.post(message, from("198.51.100.2", { cookie: ownersCookie(chat) }));
    expect(owner.status).toBe(200);
    await collectLines(owner);
    // The owner's wallet is now in its cooldown, from any address it signs in from.
    const again = await chat.post(message, from("198.51.100.3", { cookie: ownersCookie(chat) }));
    expect(again.status).toBe(429);
  });
});
