// A signed approval pays for one conversation's answer (docs/contract.md, section 4, item 4): its token binds
// the messages, the model and its settings it was quoted for, so request B with another
// conversation is refused before anything is reserved or sent; and after an approval, a new quote
// in the same request counts as a new message for the cooldown, so a signature buys no free run.
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createChatTools } from "@/lib/chat/tools";
import { findPayment } from "@/lib/payments/ledger";
import { startSandbox, type Sandbox, type SandboxServiceInfo } from "@/sandbox";
import { collectLines, createTestChat } from "@/tests/helpers/chat";
import {
  finishOf,
  fortuneOracle,
  modelCallingPayForService,
  newPayer,
  paymentsOf,
  requestQuote,
  sandboxEnv,
  sendApproval,
  signQuote,
  usdcBalance,
  type Quoted,
} from "@/tests/helpers/paid-chat";

const PRICE = 2_000n;

describe("an approval is bound to the conversation it was quoted for", () => {
  let sandbox: Sandbox;
  let oracle: SandboxServiceInfo;
  let balanceOf: ReturnType<typeof usdcBalance>;

  beforeAll(async () => {
    sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
    balanceOf = usdcBalance(sandbox);
    oracle = await sandbox.addService(fortuneOracle("bound-oracle", PRICE), { listed: false });
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  for (const [title, swap] of [
    ["other messages", { messages: [{ role: "user", content: "Write me a long essay about everything, on the most expensive model." }] }],
    ["the same messages on another model", { model: "vendor-1.5-pro" }],
    ["the same messages with other settings", { maxTokens: 8000, temperature: 1 }],
  ] as const) {
    test(`request B with ${title} is refused: 400, nothing reserved, sent or paid; the quoted conversation still pays`, async () => {
      const payer = await newPayer(sandbox);
      const target = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox), model: modelCallingPayForService({ url: oracle.url }) });
      const quoted = await requestQuote(target, payer, "My fortune, please");
      const signature = await signQuote(payer, quoted.status);
      const before = await balanceOf(payer.address);

      const swapped: Quoted = { ...quoted, body: { ...quoted.body, ...swap } };
      const refused = await sendApproval(target, swapped, signature);
      expect(refused.status).toBe(400);
      const body = (await refused.json()) as { error: { code: string; message: string; details: { fields: Array<{ path: string }> } } };
      expect(body.error.code).toBe("bad-request");
      expect(body.error.message).toMatch(/another conversation/);
      expect(body.error.details.fields.map((field) => field.path)).toEqual(["messages"]);
      expect(await findPayment(target.db, quoted.status.paymentId)).toBeUndefined();
      expect(await balanceOf(payer.address)).toBe(before);

      const paid = await collectLines(await sendApproval(target, quoted, signature));
      expect(finishOf(paid)?.finishReason).toBe("payment-complete");
      expect(await balanceOf(payer.address)).toBe(before - PRICE);
      await target.close();
    });
  }

  test("after an approval, a new quote in the same request counts as a new message: held by the cooldown, nothing quoted", async () => {
    const finish = (unified: "stop" | "tool-calls"): LanguageModelV4StreamPart => ({
      type: "finish",
      finishReason: { unified, raw: undefined },
      usage: { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } },
    });
    // Asks for the paid call, and once it has the paid answer asks for another one at once.
    const greedy = new MockLanguageModelV4({
      doStream: async ({ prompt }) => {
        const results = prompt.filter((message) => message.role === "tool").length;
        if (results >= 2) {
          return { stream: convertArrayToReadableStream<LanguageModelV4StreamPart>([{ type: "text-start", id: "1" }, { type: "text-delta", id: "1", delta: "Done." }, { type: "text-end", id: "1" }, finish("stop")]) };
        }
        return {
          stream: convertArrayToReadableStream<LanguageModelV4StreamPart>([
            { type: "tool-call", toolCallId: `c${prompt.length}`, toolName: "payForService", input: JSON.stringify({ url: oracle.url }) },
            finish("tool-calls"),
          ]),
        };
      },
    });
    const payer = await newPayer(sandbox);
    const target = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox, { CHAT_COOLDOWN_SECONDS: "30" }), model: greedy });
    const quoted = await requestQuote(target, payer, "My fortune, please");
    const lines = await collectLines(await sendApproval(target, quoted, await signQuote(payer, quoted.status)));

    // The approved payment is paid and delivered; the second quote is not made.
    const statuses = paymentsOf(lines).map((status) => [status.paymentId === quoted.status.paymentId, status.status]);
    expect(statuses).toEqual([
      [true, "submitted"],
      [true, "confirmed"],
      [true, "delivered"],
    ]);
    const errors = lines.flatMap((line) => (line.type === "error" ? [line.error] : []));
    expect(errors).toEqual([{ code: "rate-limited", message: expect.stringMatching(/counts as a new message\. Please wait \d+ s/) }]);
    expect(finishOf(lines)?.finishReason).toBe("payment-complete");
    await target.close();
  });
});
