// Signed receipts (x402 `offer-receipt`) through POST /api/chat on the sandbox: QuickWeather Pro
// signs its offers and receipts with its payee's key through the real @x402/extensions issuer;
// the agent checks the offer at quote time and the receipt after settlement, keeps it with the
// ledger row and tells it on the `p: delivered` line; the history's JSON and CSV carry it. A
// forged receipt is kept and told as unverified, with why, and the payment itself still stands.
import { getAddress, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createChatTools } from "@/lib/chat/tools";
import { findPayment } from "@/lib/payments/ledger";
import { handleHistoryRequest, type HistoryPage } from "@/lib/account/payment-history";
import { createSpendingRateLimit } from "@/lib/account/spending-request";
import type { PaymentStatus } from "@/lib/protocol/lines";
import { sessionCookie } from "@/lib/session";
import { FORGED_RECEIPT_PAYER, startSandbox, type ReceiptForgery, type Sandbox } from "@/sandbox";
import { collectLines, createTestChat, type TestChat } from "@/tests/helpers/chat";
import {
  finishOf,
  fortuneOracle,
  newPayer,
  payingModel,
  paymentsOf,
  requestQuote,
  sandboxEnv,
  sandboxService,
  sendApproval,
  signQuote,
  type Payer,
} from "@/tests/helpers/paid-chat";

let sandbox: Sandbox;
let chat: TestChat;
const express = () => sandboxService(sandbox, "weather-express");

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  chat = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox), model: payingModel(express().url, { city: "Lisbon" }) });
});
afterAll(async () => {
  await chat?.close();
  await sandbox?.stop();
});

/** Quotes, approves and pays once through the chat; the `p:` lines and the final `d:` of request B. */
async function payOnce(target: TestChat, payer: Payer) {
  const quoted = await requestQuote(target, payer, "What's the weather in Lisbon?");
  const approve = async () => collectLines(await sendApproval(target, quoted, await signQuote(payer, quoted.status)));
  const lines = await approve();
  const updates = paymentsOf(lines);
  return { quoted, updates, delivered: updates.find((update) => update.status === "delivered"), done: finishOf(lines), approveAgain: async () => paymentsOf(await approve()) };
}

/** The signed-in person's history, as their page reads it. */
async function history(target: TestChat, wallet: string, format: "json" | "csv" = "json"): Promise<Response> {
  const url = `http://localhost/api/spending/history?wallet=${wallet}${format === "csv" ? "&format=csv" : ""}`;
  const cookie = sessionCookie(new Request(url), wallet, target.env).split(";")[0] ?? "";
  return handleHistoryRequest(new Request(url, { headers: { cookie } }), { env: () => target.env, database: async () => target.db, rateLimit: createSpendingRateLimit() });
}

/** One CSV line's fields, quoted ones unquoted. */
function csvFields(line: string): string[] {
  return [...line.matchAll(/(?:^|,)(?:"((?:[^"]|"")*)"|([^,]*))/g)].map((match) => (match[1] === undefined ? (match[2] ?? "") : match[1].replace(/""/g, '"')));
}

/** The CSV's rows as column name to value. */
async function csvRows(response: Response): Promise<Array<Record<string, string>>> {
  const [header, ...rows] = (await response.text()).trimEnd().split("\r\n");
  const names = csvFields(header ?? "");
  return rows.map((row) => Object.fromEntries(csvFields(row).map((value, index) => [names[index] ?? `${index}`, value])));
}

describe("signed receipts", () => {
  test("a service that signs its offer and receipt: the receipt is verified with its payee's key, kept with the ledger row, told on the card and in the history", async () => {
    const payer = await newPayer(sandbox);
    const service = express();
    const { quoted, updates, delivered, done, approveAgain } = await payOnce(chat, payer);
    // The offer verified at quote time: nothing to warn about.
    expect(quoted.status.warnings ?? []).toEqual([]);
    expect(updates.map((update) => update.status)).toEqual(["submitted", "confirmed", "delivered"]);
    expect(done?.finishReason).toBe("payment-complete");
    const txHash = done?.txHash as Hex;
    expect(delivered?.receipt).toEqual({ status: "verified", signer: getAddress(service.payTo) });
    // Only the delivered state carries it.
    expect(updates.filter((update) => update.receipt !== undefined)).toHaveLength(1);

    const row = await findPayment(chat.db, quoted.status.paymentId);
    expect(row?.status).toBe("settled");
    expect(row?.receipt).toMatchObject({ status: "verified", format: "eip712", signer: getAddress(service.payTo), binding: "pay-to" });
    expect(row?.receipt?.reason).toBeUndefined();
    // Kept as received: the signed payload names this payer, this resource and this transaction.
    expect(row?.receipt?.signed).toMatchObject({
      format: "eip712",
      payload: { payer: getAddress(payer.address), network: sandbox.info.network, resourceUrl: `${service.url}?city=Lisbon`, transaction: txHash },
      signature: expect.stringMatching(/^0x[0-9a-f]{130}$/),
    });
    // With the offer it was held to: exactly the amount paid, to the payee.
    expect(row?.receipt?.offer).toMatchObject({ format: "eip712", payload: { resourceUrl: service.url, amount: service.priceAtomic, payTo: service.payTo, network: sandbox.info.network } });

    const page = (await (await history(chat, payer.address)).json()) as HistoryPage;
    expect(page.payments).toHaveLength(1);
    expect(page.payments[0]?.receipt).toMatchObject({ status: "verified", signer: getAddress(service.payTo), format: "eip712", signed: row?.receipt?.signed });
    const [csv] = await csvRows(await history(chat, payer.address, "csv"));
    expect(csv).toMatchObject({ transaction: txHash, receipt: "verified", receipt_signer: getAddress(service.payTo), receipt_note: "" });

    // The same approval again pays nothing more, and tells the same receipt.
    expect((await approveAgain()).at(-1)).toMatchObject({ status: "delivered", txHash, receipt: delivered?.receipt });
  });

  const forgeries: Array<[ReceiptForgery, RegExp]> = [
    // Changed after signing: the signature recovers some other key.
    ["altered", /^it is signed by 0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4}, a key that is neither the payee's nor the one that signed the service's offer$/],
    ["other-payer", /^it names another payer \(0x0000…dEaD\)$/],
    ["other-key", /^it is signed by 0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4}, a key that is neither the payee's nor the one that signed the service's offer$/],
  ];

  test.each(forgeries)("a forged receipt (%s) is kept and shown as unverified, with why; the payment stands", async (forgery, why) => {
    const payer = await newPayer(sandbox);
    const service = express();
    sandbox.setServiceReceiptForgery(service.name, forgery);
    let paid: Awaited<ReturnType<typeof payOnce>>;
    try {
      paid = await payOnce(chat, payer);
    } finally {
      sandbox.setServiceReceiptForgery(service.name, undefined);
    }
    const { quoted, delivered, done } = paid;
    expect(done?.finishReason).toBe("payment-complete");
    expect(delivered?.receipt?.status).toBe("unverified");
    expect(delivered?.receipt?.reason).toMatch(why);
    if (forgery === "other-payer") expect(delivered?.receipt?.signer).toBe(getAddress(service.payTo));
    else expect(delivered?.receipt?.signer).not.toBe(getAddress(service.payTo));

    const row = await findPayment(chat.db, quoted.status.paymentId);
    expect(row?.status).toBe("settled");
    expect(row?.receipt).toMatchObject({ status: "unverified", format: "eip712", reason: delivered?.receipt?.reason });
    expect(row?.receipt?.binding).toBeUndefined();
    if (forgery !== "other-key") expect(row?.receipt?.signed).toMatchObject({ payload: { payer: FORGED_RECEIPT_PAYER } });

    const page = (await (await history(chat, payer.address)).json()) as HistoryPage;
    expect(page.payments[0]?.receipt).toMatchObject({ status: "unverified", reason: delivered?.receipt?.reason });
    const [csv] = await csvRows(await history(chat, payer.address, "csv"));
    expect(csv?.receipt).toBe("unverified");
    expect(csv?.receipt_note).toBe(delivered?.receipt?.reason);
  });

  test("a service without the extension: no receipt anywhere, nothing else changes", async () => {
    const plain = await sandbox.addService(fortuneOracle("plain-oracle", 1_000n), { listed: false });
    const target = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox), model: payingModel(plain.url) });
    try {
      const payer = await newPayer(sandbox);
      const { quoted, updates, done } = await payOnce(target, payer);
      expect(done?.finishReason).toBe("payment-complete");
      expect(updates.every((update: PaymentStatus) => !("receipt" in update))).toBe(true);
      expect((await findPayment(target.db, quoted.status.paymentId))?.receipt).toBeNull();
      const page = (await (await history(target, payer.address)).json()) as HistoryPage;
      expect(page.payments[0]).not.toHaveProperty("receipt");
      const [csv] = await csvRows(await history(target, payer.address, "csv"));
      expect(csv).toMatchObject({ receipt: "none", receipt_signer: "", receipt_note: "" });
    } finally {
      await target.close();
    }
  });
});
