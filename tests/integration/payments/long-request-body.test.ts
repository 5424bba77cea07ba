// A paid POST service with a long body (docs/contract.md, section 4): a body of up to 64 KiB is quoted,
// approved and delivered to the service whole, within the 256 KiB request limit; a changed
// body is refused; a longer one is refused at quote time, before anything is sent or signed.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { MAX_BODY_BYTES } from "@/lib/chat/request";
import { createChatTools } from "@/lib/chat/tools";
import { findPayment } from "@/lib/payments/ledger";
import { MAX_CALL_BODY_BYTES, MAX_CALL_URL_CHARS } from "@/lib/net/service-call";
import { startSandbox, type Sandbox, type SandboxServiceInfo } from "@/sandbox";
import { listen, readBody, type RunningServer } from "@/sandbox/http";
import { collectLines, createTestChat, textOf, type TestChat } from "@/tests/helpers/chat";
import {
  finishOf,
  modelCallingPayForService,
  type PayForServiceInput,
  newPayer,
  paymentsOf,
  requestQuote,
  sandboxEnv,
  sendApproval,
  signQuote,
  usdcBalance,
} from "@/tests/helpers/paid-chat";

let sandbox: Sandbox;
let service: SandboxServiceInfo;
/** Every body the service's handler received (paid requests only). */
const received: unknown[] = [];
/** A loopback front of the test's own that counts every request before passing it to the service. */
let front: RunningServer;
let frontRequests = 0;
/** One chat for the file; each test says what its model asks payForService for. */
let chat: TestChat;
let nextCall: PayForServiceInput;

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  service = await sandbox.addService({
    name: "long-summary",
    serviceName: "Long Summary",
    description: "Counts the words of a long English text and returns its digest.",
    method: "POST",
    path: "/summary",
    price: 30_000n,
    latencyMs: 0,
    tags: ["text"],
    discovery: { bodyType: "json", input: { text: "a long text" }, inputSchema: { properties: { text: { type: "string" } } } },
    handle: async ({ body }) => {
      received.push(body);
      const text = String((body as { text?: unknown } | undefined)?.text ?? "");
      return { words: text.split(/\s+/).filter(Boolean).length, sha256: sha256(text) };
    },
  });
  front = await listen(0, async (request, response) => {
    frontRequests += 1;
    const body = await readBody(request);
    const upstream = await fetch(service.url, {
      method: request.method ?? "GET",
      headers: { "content-type": "application/json" },
      ...(request.method === "POST" ? { body } : {}),
    });
    const passed = ["content-type", "payment-required"].flatMap((name) => {
      const value = upstream.headers.get(name);
      return value ? [[name, value] as const] : [];
    });
    response.writeHead(upstream.status, Object.fromEntries(passed));
    response.end(Buffer.from(await upstream.arrayBuffer()));
  });
  chat = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox), model: modelCallingPayForService(() => nextCall) });
});
afterAll(async () => {
  await chat?.close();
  await front?.close();
  await sandbox?.stop();
});

const frontUrl = () => `${front.url}${new URL(service.url).pathname}`;

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** A JSON body of `{ text }` whose serialized form is `bytes` long in UTF-8, with some multi-byte characters. */
function bodyOfBytes(bytes: number): { text: string } {
  const unit = "Grüße aus Köln, café ☕ and a long sentence to summarise. ";
  let text = unit.repeat(Math.ceil(bytes / Buffer.byteLength(unit)));
  const size = () => Buffer.byteLength(JSON.stringify({ text }));
  while (size() > bytes) text = text.slice(0, -1);
  text += "x".repeat(bytes - size());
  expect(size()).toBe(bytes);
  return { text };
}

describe("long request bodies", () => {
  test("a 60 KB POST body is quoted, approved and delivered whole, in requests within the size limit", async () => {
    const body = bodyOfBytes(60_000);
    nextCall = { url: service.url, method: "POST", body };
    const payer = await newPayer(sandbox);
    const balanceOf = usdcBalance(sandbox);
    const before = await balanceOf(payer.address);

    const quoted = await requestQuote(chat, payer, "Summarise this long text for me");
    expect(quoted.status.amount.total).toBe(service.price);
    const signature = await signQuote(payer, quoted.status);
    const requestB = { ...quoted.body, payment: { paymentId: quoted.status.paymentId, token: quoted.status.approval?.token, signature } };
    expect(Buffer.byteLength(JSON.stringify(requestB))).toBeLessThan(MAX_BODY_BYTES);

    const response = await sendApproval(chat, quoted, signature);
    expect(response.status).toBe(200);
    const lines = await collectLines(response);
    expect(paymentsOf(lines).map((status) => status.status)).toEqual(["submitted", "confirmed", "delivered"]);
    expect(finishOf(lines)).toMatchObject({ finishReason: "payment-complete", paymentId: quoted.status.paymentId });
    expect(textOf(lines)).toBe("Done.");
    // The service received the whole body with the payment.
    expect(received.slice(-1)).toEqual([body]);
    expect(await balanceOf(payer.address)).toBe(before - BigInt(service.priceAtomic));
  });

  test("an approval whose body was changed is refused, and nothing is paid", async () => {
    const body = bodyOfBytes(20_000);
    nextCall = { url: service.url, method: "POST", body };
    const payer = await newPayer(sandbox);
    const quoted = await requestQuote(chat, payer, "Summarise this long text for me");
    const token = quoted.status.approval?.token ?? "";
    const [claims, mac] = token.split(".");
    const decoded = Buffer.from(claims ?? "", "base64url").toString("utf8");
    expect(decoded).toContain("Grüße aus Köln");
    const changed = `${Buffer.from(decoded.replace("Grüße aus Köln", "Pay more to me"), "utf8").toString("base64url")}.${mac}`;

    const response = await sendApproval(chat, quoted, await signQuote(payer, quoted.status), { token: changed });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("bad-request");
    expect(await findPayment(chat.db, quoted.status.paymentId)).toBeUndefined();
  });

  test("a body over 64 KB is refused at quote time: an error the model relays, nothing sent to the service, nothing quoted", async () => {
    const body = bodyOfBytes(MAX_CALL_BODY_BYTES + 1);
    nextCall = { url: frontUrl(), method: "POST", body };
    const payer = await newPayer(sandbox);
    const calls = frontRequests;
    const lines = await collectLines(
      await chat.post({ messages: [{ role: "user", content: "Summarise this very long text" }], walletAddress: payer.address }),
    );
    expect(lines.filter((line) => line.type === "error").map((line) => line.type === "error" && line.error)).toEqual([
      {
        code: "payload-too-large",
        message: `The request body for ${new URL(front.url).host} is ${MAX_CALL_BODY_BYTES + 1} bytes; a service can be sent at most ${MAX_CALL_BODY_BYTES} bytes (64 KB). Nothing was sent or paid.`,
      },
    ]);
    expect(paymentsOf(lines)).toEqual([]);
    expect(finishOf(lines)?.finishReason).toBe("payment-failed");
    expect(textOf(lines)).toBe("Done.");
    expect(frontRequests).toBe(calls);
  });

  test("an address over 8 KB, query included, is refused the same way", async () => {
    const query = { text: "w".repeat(MAX_CALL_URL_CHARS) };
    nextCall = { url: frontUrl(), method: "POST", query, body: { text: "short" } };
    const calls = frontRequests;
    const lines = await collectLines(
      await chat.post({ messages: [{ role: "user", content: "Summarise this" }], walletAddress: (await newPayer(sandbox, 0n)).address }),
    );
    const errors = lines.flatMap((line) => (line.type === "error" ? [line.error] : []));
    expect(errors).toEqual([
      {
        code: "payload-too-large",
        message: expect.stringMatching(/^The address for 127\.0\.0\.1:\d+, query included, is \d+ characters; a service can be called with at most 8192\. Nothing was sent or paid\.$/),
      },
    ]);
    expect(paymentsOf(lines)).toEqual([]);
    expect(frontRequests).toBe(calls);
  });

  test("a body of exactly 64 KB is still quoted", async () => {
    nextCall = { url: frontUrl(), method: "POST", body: bodyOfBytes(MAX_CALL_BODY_BYTES) };
    const calls = frontRequests;
    const quoted = await requestQuote(chat, await newPayer(sandbox), "Summarise this long text");
    expect(quoted.status).toMatchObject({ status: "awaiting-signature", amount: { total: service.price } });
    expect(frontRequests).toBe(calls + 1);
  });
});
