// The general form of a chat request's wallets and approval (docs/contract.md, section 2):
// `wallets` by CAIP-2 namespace beside `walletAddress` / `solanaAddress`, and `payment.signed`
// beside `signature` / `transaction`. The same quote and payment, on the sandbox, whichever form
// the client sends; the two forms may not disagree.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createChatTools } from "@/lib/chat/tools";
import { findPayment } from "@/lib/payments/ledger";
import { startSandbox, type Sandbox } from "@/sandbox";
import { collectLines, createTestChat, type TestChat } from "@/tests/helpers/chat";
import { finishOf, generousLimits, newPayer, paymentsOf, sandboxEnv, signQuote } from "@/tests/helpers/paid-chat";

let sandbox: Sandbox;
let chat: TestChat;

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  chat = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox) });
});
afterAll(async () => {
  await chat?.close();
  await sandbox?.stop();
});

describe("a request's wallets and approval in their general form", () => {
  test("quoted for `wallets.eip155` and approved with `payment.signed`: paid and delivered as with the older fields", async () => {
    const payer = await newPayer(sandbox);
    const body = { messages: [{ role: "user", content: "What's the weather in Lisbon?" }], wallets: { eip155: payer.address }, spendingLimits: generousLimits };
    const quote = paymentsOf(await collectLines(await chat.post(body))).find((status) => status.status === "awaiting-signature");
    expect(quote?.approval?.typedData).toBeDefined();
    if (!quote?.approval?.token) throw new Error("no quote");
    const signed = await signQuote(payer, quote);
    const lines = await collectLines(await chat.post({ ...body, payment: { paymentId: quote.paymentId, token: quote.approval.token, signed } }));
    expect(paymentsOf(lines).map((status) => status.status)).toEqual(["submitted", "confirmed", "delivered"]);
    expect(finishOf(lines)?.finishReason).toBe("payment-complete");
    expect(await findPayment(chat.db, quote.paymentId)).toMatchObject({ status: "settled" });
  });

  test("the two forms may not name different wallets, nor carry the wallet's answer twice: 400, naming the field", async () => {
    const [one, other] = [await newPayer(sandbox, 0n), await newPayer(sandbox, 0n)];
    const messages = [{ role: "user", content: "hello" }];
    const disagreeing = await chat.post({ messages, walletAddress: one.address, wallets: { eip155: other.address } });
    expect(disagreeing.status).toBe(400);
    expect(((await disagreeing.json()) as { error: { details: { fields: { path: string }[] } } }).error.details.fields.map((field) => field.path)).toContain("wallets.eip155");
    const twice = await chat.post({ messages, payment: { paymentId: "pay_0", token: "x", signed: "0x00", signature: `0x${"11".repeat(65)}` } });
    expect(twice.status).toBe(400);
    expect(((await twice.json()) as { error: { details: { fields: { path: string }[] } } }).error.details.fields.map((field) => field.path)).toContain("payment.signed");
    const agreeing = await chat.post({ messages, walletAddress: one.address, wallets: { eip155: one.address.toLowerCase() } });
    expect(agreeing.status).toBe(200);
  });
});
