// Paying MPP services through POST /api/chat on the sandbox: mppx's own server (the `evm` charge
// on the sandbox chain's USDC, settled through the facilitator), a real PGlite ledger, anvil, and
// a test key signing as the person's wallet would. The same quote, limits, reservation, ledger
// and paid-means-paid rule as x402; the card says the protocol.
import { createServer } from "node:http";
import { Challenge } from "mppx";
import { Mppx, evm } from "mppx/server";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findPayment } from "@/lib/payments/ledger";
import { handleHistoryRequest, type HistoryPage } from "@/lib/account/payment-history";
import { createSpendingRateLimit } from "@/lib/account/spending-request";
import { sessionCookie } from "@/lib/session";
import { createChatTools } from "@/lib/chat/tools";
import { startSandbox, type Sandbox } from "@/sandbox";
import { collectLines, createTestChat, type TestChat } from "@/tests/helpers/chat";
import {
  finishOf as finish,
  modelCallingPayForService,
  newPayer as fundedPayer,
  paymentsOf as payments,
  requestQuote as quote,
  sandboxEnv,
  sandboxService,
  sendApproval,
  signQuote as sign,
  steps,
  usdcBalance,
  type PayForServiceInput,
} from "@/tests/helpers/paid-chat";
import { listen } from "@/sandbox/http";

let sandbox: Sandbox;
let balanceOf: ReturnType<typeof usdcBalance>;

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  balanceOf = usdcBalance(sandbox);
});
afterAll(async () => {
  await sandbox?.stop();
});

const service = (name: string) => sandboxService(sandbox, name);
const newPayer = (usdc?: bigint) => fundedPayer(sandbox, usdc);
const limits = { daily: "1", weekly: "5", monthly: "20", perPayment: "0.5" };

/** What the model was handed as its tool's results, as text. */
let toolResults: string[] = [];

/** A chat whose model asks once for the given paid call; what its tool answers lands in toolResults. */
async function chatPaying(input: PayForServiceInput, extraEnv: Record<string, string> = {}): Promise<TestChat> {
  toolResults = [];
  return createTestChat({
    tools: createChatTools,
    env: sandboxEnv(sandbox, extraEnv),
    model: modelCallingPayForService(input, { onToolResult: (content) => toolResults.push(JSON.stringify(content)) }),
  });
}

const weatherCall = () => ({ url: service("weather-mpp").url, query: { city: "Lisbon" } });

describe("paying an MPP service through the chat", () => {
  test("quotes from the Payment challenge, the wallet signs the EIP-3009 authorization, the credential pays, the chain shows it", async () => {
    const chat = await chatPaying(weatherCall());
    try {
      const payer = await newPayer();
      const quoted = await quote(chat, payer, "What's the weather in Lisbon over MPP?", limits);
      const entry = service("weather-mpp");
      expect(quoted.status).toMatchObject({
        protocol: "mpp",
        service: { name: "Meteo Machine", url: entry.url },
        network: sandbox.info.network,
        payTo: entry.payTo,
        amount: { serviceFee: entry.price, gasFee: "0", total: entry.price, currency: "USDC" },
      });
      // The authorization's nonce is the challenge's hash: it answers that challenge and no other.
      const typedData = quoted.status.approval?.typedData as { message: Record<string, string>; domain: Record<string, unknown> };
      expect(typedData.domain).toMatchObject({ name: sandbox.info.usdc.name, version: sandbox.info.usdc.version, chainId: sandbox.info.chainId });
      expect(typedData.message).toMatchObject({ from: payer.address, to: entry.payTo, value: entry.priceAtomic, validAfter: "0" });
      expect(typedData.message.nonce).toMatch(/^0x[0-9a-f]{64}$/);
      const before = await balanceOf(payer.address);

      const lines = await collectLines(await sendApproval(chat, quoted, await sign(payer, quoted.status)));
      expect(payments(lines).map((status) => [status.status, status.protocol])).toEqual([
        ["submitted", "mpp"],
        ["confirmed", "mpp"],
        ["delivered", "mpp"],
      ]);
      const done = finish(lines);
      expect(done).toMatchObject({ finishReason: "payment-complete", paymentId: quoted.status.paymentId });
      expect(toolResults.join("\n")).toContain("Lisbon");
      expect(await balanceOf(payer.address)).toBe(before - BigInt(entry.priceAtomic));
      const record = await findPayment(chat.db, quoted.status.paymentId);
      expect(record).toMatchObject({ status: "settled", txHash: done?.txHash, scheme: "mpp-evm-charge", nonce: typedData.message.nonce?.toLowerCase() });

      // The history lists it like any payment, saying it went over MPP.
      const url = `http://localhost/api/spending/history?wallet=${payer.address}`;
      const cookie = sessionCookie(new Request(url), payer.address, chat.env).split(";")[0] ?? "";
      const history = await handleHistoryRequest(new Request(url, { headers: { cookie } }), { env: () => chat.env, database: async () => chat.db, rateLimit: createSpendingRateLimit() });
      expect(((await history.json()) as HistoryPage).payments).toMatchObject([{ paymentId: quoted.status.paymentId, protocol: "mpp", txHash: done?.txHash, amountUsd: entry.price }]);

      // The same approval again pays nothing more: it is told the first outcome.
      const again = await collectLines(await sendApproval(chat, quoted, await sign(payer, quoted.status)));
      expect(finish(again)).toMatchObject({ finishReason: "payment-complete", txHash: done?.txHash });
      expect(await balanceOf(payer.address)).toBe(before - BigInt(entry.priceAtomic));
    } finally {
      await chat.close();
    }
  });

  test("limits are one across protocols: an x402 payment and an MPP one count against the same daily limit", async () => {
    // One chat, one ledger: the model asks for the MPP weather when the message says MPP, else the x402 budget one.
    const chat = await createTestChat({
      tools: createChatTools,
      env: sandboxEnv(sandbox),
      model: modelCallingPayForService((prompt) => {
        const last = JSON.stringify(prompt.filter((message) => message.role === "user").at(-1) ?? "");
        return last.includes("MPP") ? weatherCall() : { url: service("weather-budget").url, query: { city: "Lisbon" } };
      }),
    });
    try {
      const payer = await newPayer();
      // Room for the x402 budget weather (0.002) and not for the MPP weather (0.005) after it.
      const tight = { daily: "0.006", weekly: "5", monthly: "20", perPayment: "0.5" };
      const first = await quote(chat, payer, "Budget weather in Lisbon", tight);
      expect(first.status.protocol).toBe("x402");
      const paid = await collectLines(await sendApproval(chat, first, await sign(payer, first.status)));
      expect(finish(paid)?.finishReason).toBe("payment-complete");

      const lines = await collectLines(await chat.post({ messages: [{ role: "user", content: "Now the weather over MPP" }], walletAddress: payer.address, spendingLimits: tight }));
      expect(steps(lines)).toEqual([
        ["checking", undefined],
        ["failed", "limit-exceeded"],
      ]);
      expect(payments(lines).map((status) => status.protocol)).toEqual(["mpp", "mpp"]);
      expect(finish(lines)?.finishReason).toBe("limit-exceeded");
    } finally {
      await chat.close();
    }
  });

  test("a service of one's own, made as mppx's docs show (Node listener, realm from the host, the facilitator by URL), is paid from what sandbox.json says", async () => {
    const { info } = sandbox;
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const mppx = Mppx.create({
      methods: [
        evm.charge({
          currency: info.usdc.address,
          chainId: info.chainId,
          decimals: info.usdc.decimals,
          authorization: { name: info.usdc.name, version: info.usdc.version },
          recipient,
          x402: { facilitator: info.facilitatorUrl },
        }),
      ],
      secretKey: "a-secret-of-at-least-thirty-two-bytes-for-hmac",
    });
    const server = createServer(async (request, response) => {
      const result = await Mppx.toNodeListener(mppx.charge({ amount: "0.0123" }))(request, response);
      if (result.status === 402) return;
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify({ fortune: "A paid week ahead." }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/fortune`;
    const chat = await chatPaying({ url });
    try {
      const payer = await newPayer();
      const quoted = await quote(chat, payer, "My fortune over MPP", limits);
      expect(quoted.status).toMatchObject({ protocol: "mpp", payTo: recipient, service: { name: "127.0.0.1", url }, amount: { total: "0.0123" } });
      const before = await balanceOf(payer.address);
      const lines = await collectLines(await sendApproval(chat, quoted, await sign(payer, quoted.status)));
      expect(steps(lines)).toEqual([
        ["submitted", undefined],
        ["confirmed", undefined],
        ["delivered", undefined],
      ]);
      expect(toolResults.join("\n")).toContain("A paid week ahead.");
      expect(await balanceOf(payer.address)).toBe(before - 12_300n);
      expect(await balanceOf(recipient)).toBe(12_300n);
    } finally {
      await chat.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test("a challenge for a method this agent cannot pay (Tempo) is answered plainly: nothing quoted, reserved or paid", async () => {
    const tempoOnly = await listen(0, async (_request, response) => {
      const challenge = Challenge.from({
        id: "tempo-challenge",
        realm: "Tempo Shop",
        method: "tempo",
        intent: "charge",
        request: { amount: "1000", currency: "0x20c0000000000000000000000000000000000000", recipient: "0x0000000000000000000000000000000000000001" },
        expires: new Date(Date.now() + 300_000).toISOString(),
      });
      response.writeHead(402, { "WWW-Authenticate": Challenge.serialize(challenge), "Content-Type": "application/json" });
      response.end("{}");
    });
    const chat = await chatPaying({ url: `${tempoOnly.url}/thing` });
    try {
      const payer = await newPayer();
      const lines = await collectLines(await chat.post({ messages: [{ role: "user", content: "Buy the thing" }], walletAddress: payer.address, spendingLimits: limits }));
      expect(payments(lines)).toEqual([]);
      expect(toolResults.join("\n")).toMatch(/Tempo charge method is not one this agent pays/);
      // As any payment request that cannot be paid: an `e:` payment-failed, nothing quoted (docs/contract.md, section 10).
      expect(lines.filter((line) => line.type === "error").map((line) => line.type === "error" && line.error.code)).toEqual(["payment-failed"]);
      expect(finish(lines)?.finishReason).toBe("payment-failed");
    } finally {
      await chat.close();
      await tempoOnly.close();
    }
  });

  test("a request the MPP service cannot answer (no topic) is refused before any challenge: nothing quoted, reserved or paid, and the model is told why in the service's own terms", async () => {
    const chat = await chatPaying({ url: service("quotations-mpp").url });
    try {
      const payer = await newPayer();
      const before = await balanceOf(payer.address);
      const lines = await collectLines(await chat.post({ messages: [{ role: "user", content: "Get me a quotation" }], walletAddress: payer.address, spendingLimits: limits }));
      expect(payments(lines)).toEqual([]);
      // Read from the service's OpenAPI document: its name, and the values its parameter takes.
      expect(toolResults.join("\n")).toContain(
        '"status":"service-error","httpStatus":400,"summary":"Maxim Machine needs \\"topic\\", which the request does not give: it takes money, time, work or patience. Nothing was paid."',
      );
      expect(lines.filter((line) => line.type === "error")).toEqual([]);
      expect(await balanceOf(payer.address)).toBe(before);
    } finally {
      await chat.close();
    }
  });
});
