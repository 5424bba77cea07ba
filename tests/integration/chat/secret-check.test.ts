// The secret check through the real chat handler (mock model, in-memory PGlite): after a
// payment the conversation goes on with its transaction hashes, while a pasted key is refused
// before the model, the log or the cooldown ever see it.
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterEach, describe, expect, test, vi } from "vitest";
import { markSettled, reservePayment } from "@/lib/payments/ledger";
import { collectLines, createTestChat, textOf, type TestChat } from "@/tests/helpers/chat";

const usage = {
  inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 2, text: 2, reasoning: undefined },
};

function replying(text: string) {
  return new MockLanguageModelV4({
    doStream: async () => ({
      stream: convertArrayToReadableStream<LanguageModelV4StreamPart>([
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "1" },
        { type: "text-delta", id: "1", delta: text },
        { type: "text-end", id: "1" },
        { type: "finish", finishReason: { unified: "stop", raw: "STOP" }, usage },
      ]),
    }),
  });
}

let chat: TestChat | undefined;
afterEach(async () => {
  await chat?.close();
  chat = undefined;
});

const txHash = generatePrivateKey(); // 32 random bytes, as a transaction hash is

describe("secret check in POST /api/chat", () => {
  test("a conversation whose agent message holds a tx hash goes on, hash quoted or not", async () => {
    const model = replying("It settled in block 12.");
    chat = await createTestChat({ model });
    const paid = { role: "assistant", content: `Paid $0.01 to Weather on Sandbox (transaction ${txHash}). It is 21 °C in Lisbon.` };

    const next = await chat.post({ messages: [paid, { role: "user", content: "Great, and tomorrow?" }] });
    expect(next.status).toBe(200);
    expect(textOf(await collectLines(next))).toBe("It settled in block 12.");

    const quoted = await chat.post({ messages: [paid, { role: "user", content: `Did ${txHash} settle?` }] });
    expect(quoted.status).toBe(200);
    await collectLines(quoted);
    expect(JSON.stringify(model.doStreamCalls[1]?.prompt)).toContain(`Did ${txHash} settle?`);
  });

  test("a tx hash the ledger holds, pasted bare in a new conversation, goes through", async () => {
    chat = await createTestChat({ model: replying("That payment settled.") });
    const wallet = privateKeyToAccount(generatePrivateKey()).address;
    await reservePayment(chat.db, {
      payment: {
        paymentId: "pay_ledger",
        wallet,
        network: "eip155:31337",
        asset: "0x0000000000000000000000000000000000000001",
        payTo: "0x0000000000000000000000000000000000000002",
        amount: 10_000n,
        nonce: `0x${"ab".repeat(32)}`,
        serviceName: "Weather",
        serviceUrl: "http://127.0.0.1:4100/weather",
      },
      limits: { daily: 1_000_000n, weekly: 1_000_000n, monthly: 1_000_000n, perPayment: 1_000_000n },
    });
    await markSettled(chat.db, { paymentId: "pay_ledger", txHash, outcome: { status: "delivered" } });

    const response = await chat.post({ messages: [{ role: "user", content: txHash.slice(2).toUpperCase() }] });
    expect(response.status).toBe(200);
    await collectLines(response);

    const unknown = await chat.post({ messages: [{ role: "user", content: generatePrivateKey() }] });
    expect(unknown.status).toBe(400);
  });

  test("a pasted key is refused: the model, the log and the cooldown never see it", async () => {
    const model = replying("ok");
    const log = vi.fn();
    chat = await createTestChat({ model, log, env: { CHAT_COOLDOWN_SECONDS: "50" } });
    const key = generatePrivateKey();
    const wallet = privateKeyToAccount(key).address;
    const split = key.slice(2).match(/.{16}/g)?.join(" ") ?? "";
    const paid = { role: "assistant", content: `Paid (transaction ${txHash}).` };

    for (const content of [`here you go: ${split}`, `what happened to transaction ${key}?`]) {
      const refused = await chat.post({ messages: [paid, { role: "user", content }], walletAddress: wallet });
      expect(refused.status).toBe(400);
      const text = await refused.text();
      expect(JSON.parse(text)).toEqual({
        error: {
          code: "secret-in-message",
          message: expect.stringMatching(/^Message 2 looks like it contains a private key\./) as unknown,
          details: {
            message: 1,
            kind: "private-key",
            fields: [{ path: "messages.1.content", message: "looks like it contains a private key" }],
          },
        },
      });
      expect(text).not.toContain(key.slice(2, 18));
    }
    expect(model.doStreamCalls).toHaveLength(0);
    expect(JSON.stringify(log.mock.calls)).not.toContain(key.slice(2, 18));

    // The refusal did not start the cooldown: the corrected message is answered.
    const corrected = await chat.post({ messages: [paid, { role: "user", content: "Sorry, ignore that." }], walletAddress: wallet });
    expect(corrected.status).toBe(200);
    await collectLines(corrected);
    expect(JSON.stringify(model.doStreamCalls)).not.toContain(key.slice(2, 18));
  });
});
