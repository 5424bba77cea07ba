import { generateMnemonic, english, generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, test } from "vitest";
import { MAX_BODY_BYTES, readChatRequest } from "@/lib/chat/request";
import { AppError } from "@/lib/errors";

const address = privateKeyToAccount(generatePrivateKey()).address; // EIP-55 checksummed

function jsonRequest(body: unknown, headers: Record<string, string> = {}): Request {
  return new Request("http://localhost/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function refusal(request: Request): Promise<AppError> {
  try {
    await readChatRequest(request);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("the request was accepted");
}

const fieldsOf = (error: AppError) =>
  ((error.details?.fields ?? []) as Array<{ path: string }>).map((field) => field.path);

describe("chat request validation", () => {
  test("accepts a full valid body and applies the defaults", async () => {
    const body = await readChatRequest(
      jsonRequest({
        messages: [
          { role: "system", content: "Answer briefly." },
          { role: "user", content: "Hi" },
          { role: "assistant", content: "Hello!" },
          { role: "user", content: "List services" },
        ],
        walletAddress: address.toLowerCase(),
        spendingLimits: { daily: 2, weekly: "10.5", monthly: "0", perPayment: 0.25 },
        preferences: { defaultChain: "eip155:8453", priority: "speed", confirmationThreshold: "0.1" },
      }),
    );
    expect(body.walletAddress).toBe(address);
    expect(body.spendingLimits).toEqual({ daily: 2_000_000n, weekly: 10_500_000n, monthly: 0n, perPayment: 250_000n });
    expect(body.model).toBe("vendor-2.0-flash-exp");
    expect(body.temperature).toBe(0.5);
    expect(body.maxTokens).toBe(4000);
  });

  test("answers 415 for a body that is not JSON by content type", async () => {
    const error = await refusal(jsonRequest({ messages: [] }, { "content-type": "text/plain" }));
    expect([error.status, error.code]).toEqual([415, "unsupported-media-type"]);
  });

  test("answers 413 for a body over 256 KiB, declared or not", async () => {
    const big = JSON.stringify({ messages: [{ role: "user", content: "x".repeat(MAX_BODY_BYTES) }] });
    const error = await refusal(jsonRequest(big));
    expect([error.status, error.code]).toEqual([413, "payload-too-large"]);
    const streamed = new Request("http://localhost/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 20; i += 1) controller.enqueue(new TextEncoder().encode("x".repeat(16 * 1024)));
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect((await refusal(streamed)).code).toBe("payload-too-large");
  });

  test("answers 400 for malformed JSON", async () => {
    const error = await refusal(jsonRequest('{"messages": ['));
    expect(error.toJSON()).toMatchInlineSnapshot(`
      {
        "error": {
          "code": "bad-request",
          "details": {
            "fields": [
              {
                "message": "is not valid JSON",
                "path": "(body)",
              },
            ],
          },
          "message": "The request body is not valid JSON.",
        },
      }
    `);
  });

  test.each([
    ["no messages", {}, "messages"],
    ["empty messages", { messages: [] }, "messages"],
    ["101 messages", { messages: Array.from({ length: 101 }, () => ({ role: "user", content: "hi" })) }, "messages"],
    ["empty content", { messages: [{ role: "user", content: "" }] }, "messages.0.content"],
    ["content over 16,000 characters", { messages: [{ role: "user", content: "a".repeat(16_001) }] }, "messages.0.content"],
    ["unknown role", { messages: [{ role: "tool", content: "hi" }] }, "messages.0.role"],
    ["content not a string", { messages: [{ role: "user", content: ["hi"] }] }, "messages.0.content"],
    ["last message from the assistant", { messages: [{ role: "user", content: "a" }, { role: "assistant", content: "b" }] }, "messages.1.role"],
    ["an unknown field", { messages: [{ role: "user", content: "hi" }], admin: true }, "(body)"],
    ["an unknown message field", { messages: [{ role: "user", content: "hi", name: "x" }] }, "messages.0"],
    ["a short wallet address", { messages: [{ role: "user", content: "hi" }], walletAddress: "0x1234" }, "walletAddress"],
    ["a wallet address with a wrong checksum", { messages: [{ role: "user", content: "hi" }], walletAddress: flipCase(address) }, "walletAddress"],
    // Mixed case that is not an address at all must not reach the checksum check (a 500 before).
    ["a mixed-case wallet address after a space", { messages: [{ role: "user", content: "hi" }], walletAddress: ` ${address}` }, "walletAddress"],
    ["a mixed-case wallet address with 0X", { messages: [{ role: "user", content: "hi" }], walletAddress: address.replace("0x", "0X") }, "walletAddress"],
    ["a negative limit", { messages: [{ role: "user", content: "hi" }], spendingLimits: { daily: -1 } }, "spendingLimits.daily"],
    ["a limit over 1,000,000", { messages: [{ role: "user", content: "hi" }], spendingLimits: { weekly: "1000000.000001" } }, "spendingLimits.weekly"],
    ["a limit with 7 decimals", { messages: [{ role: "user", content: "hi" }], spendingLimits: { monthly: "0.0000001" } }, "spendingLimits.monthly"],
    ["a limit as text", { messages: [{ role: "user", content: "hi" }], spendingLimits: { daily: "ten" } }, "spendingLimits.daily"],
    ["an unknown limit period", { messages: [{ role: "user", content: "hi" }], spendingLimits: { yearly: 5 } }, "spendingLimits"],
    ["an unknown model", { messages: [{ role: "user", content: "hi" }], model: "gpt-4" }, "model"],
    ["a temperature above 1", { messages: [{ role: "user", content: "hi" }], temperature: 1.5 }, "temperature"],
    ["maxTokens of 0", { messages: [{ role: "user", content: "hi" }], maxTokens: 0 }, "maxTokens"],
    ["fractional maxTokens", { messages: [{ role: "user", content: "hi" }], maxTokens: 10.5 }, "maxTokens"],
    ["a bad priority", { messages: [{ role: "user", content: "hi" }], preferences: { priority: "luck" } }, "preferences.priority"],
    ["a bad network id", { messages: [{ role: "user", content: "hi" }], preferences: { defaultChain: "base" } }, "preferences.defaultChain"],
    ["a payment without a signature", { messages: [{ role: "user", content: "hi" }], payment: { paymentId: "p", token: "t" } }, "payment.signature"],
    ["a payment with both a signature and a transaction", { messages: [{ role: "user", content: "hi" }], payment: { paymentId: "p", token: "t", signature: `0x${"ab".repeat(65)}`, transaction: "AQID" } }, "payment.signature"],
    ["a signed transaction that is not base64", { messages: [{ role: "user", content: "hi" }], payment: { paymentId: "p", token: "t", transaction: "not base64!" } }, "payment.transaction"],
    ["a signed transaction over Solana's packet size", { messages: [{ role: "user", content: "hi" }], payment: { paymentId: "p", token: "t", transaction: "A".repeat(1_648) } }, "payment.transaction"],
    ["a Solana address that is not base58", { messages: [{ role: "user", content: "hi" }], solanaAddress: "0OIl".repeat(10) }, "solanaAddress"],
    ["an EVM address as the Solana address", { messages: [{ role: "user", content: "hi" }], solanaAddress: address }, "solanaAddress"],
    ["an array body", [{ role: "user", content: "hi" }], "(body)"],
  ])("answers 400 bad-request naming the field for %s", async (_name, body, field) => {
    const error = await refusal(jsonRequest(body));
    expect([error.status, error.code]).toEqual([400, "bad-request"]);
    expect(fieldsOf(error)).toContain(field);
    expect(error.message).toContain(field);
  });

  test("refuses a private key or seed phrase without echoing it", async () => {
    const key = generatePrivateKey();
    const keyError = await refusal(jsonRequest({ messages: [{ role: "user", content: `pay with ${key}` }] }));
    expect([keyError.status, keyError.code]).toEqual([400, "secret-in-message"]);
    expect(JSON.stringify(keyError.toJSON())).not.toContain(key.slice(2, 20));

    const phrase = generateMnemonic(english);
    const phraseError = await refusal(
      jsonRequest({ messages: [{ role: "user", content: "hello" }, { role: "assistant", content: "hi" }, { role: "user", content: phrase }] }),
    );
    expect(phraseError.code).toBe("secret-in-message");
    expect(phraseError.details).toEqual({
      message: 2,
      kind: "seed-phrase",
      fields: [{ path: "messages.2.content", message: "looks like it contains a wallet seed phrase" }],
    });
    // Not echoed: no run of its words (a single one may be an ordinary word of the error, like "wallet").
    expect(JSON.stringify(phraseError.toJSON())).not.toContain(phrase.split(" ").slice(0, 3).join(" "));
  });
});

function flipCase(checksummed: string): string {
  const body = checksummed.slice(2);
  const index = [...body].findIndex((char) => /[a-fA-F]/.test(char));
  const char = body[index] ?? "a";
  const flipped = char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase();
  return `0x${body.slice(0, index)}${flipped}${body.slice(index + 1)}`;
}

describe("approval signatures", () => {
  const approval = (signature: string) =>
    jsonRequest({
      messages: [{ role: "user", content: "pay it" }],
      walletAddress: address,
      payment: { paymentId: "3f1c2a9e-1b2c-4d5e-8f90-123456789abc", token: "t.m", signature },
    });

  test("a smart account's long signature (ERC-6492 wrapped, several kilobytes) is accepted", async () => {
    const body = await readChatRequest(approval(`0x${"ab".repeat(5_000)}`));
    expect(body.payment?.signature).toHaveLength(10_002);
  });

  test("a signature past 16 KiB is refused, naming the field", async () => {
    const error = await refusal(approval(`0x${"ab".repeat(9_000)}`));
    expect(error.status).toBe(400);
    expect(fieldsOf(error)).toContain("payment.signature");
  });
});

describe("a Solana wallet in a request (docs/contract.md, section 10)", () => {
  test("its address travels as written, beside the EVM one, and its approval carries the signed transaction", async () => {
    const solanaAddress = "9jsJcfzVQmx668dtmJMTGk37wvaWVaD87GnNbpY3RQpR";
    const body = await readChatRequest(
      jsonRequest({
        messages: [{ role: "user", content: "pay it" }],
        walletAddress: address,
        solanaAddress,
        preferences: { defaultChain: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp" },
        payment: { paymentId: "p", token: "t.m", transaction: "AQID" },
      }),
    );
    expect(body).toMatchObject({ walletAddress: address, solanaAddress, payment: { transaction: "AQID" } });
    expect(body.payment?.signature).toBeUndefined();
  });
});

describe("the agent budget in a request", () => {
  const grant = {
    wallet: address,
    session: privateKeyToAccount(generatePrivateKey()).address,
    maxAmount: "50000",
    validUntil: 1_900_000_000,
    networks: ["eip155:84532"],
    signature: `0x${"ab".repeat(65)}`,
  };
  const body = (agentBudget: unknown) => jsonRequest({ messages: [{ role: "user", content: "Hi" }], walletAddress: address, agentBudget });

  test("a well-formed grant travels with the request as it was signed", async () => {
    const parsed = await readChatRequest(body(grant));
    expect(parsed.agentBudget).toEqual(grant);
  });

  test.each([
    ["a fractional amount", { maxAmount: "0.05" }, "agentBudget.maxAmount"],
    ["an amount above 1,000,000 USD", { maxAmount: "1000000000001" }, "agentBudget.maxAmount"],
    ["no network", { networks: [] }, "agentBudget.networks"],
    ["a network that is not CAIP-2", { networks: ["base"] }, "agentBudget.networks.0"],
    ["a session that is not an address", { session: "0x1234" }, "agentBudget.session"],
    ["no signature", { signature: "0x" }, "agentBudget.signature"],
    ["an unknown field", { spendAll: true }, "agentBudget"],
  ])("%s is a 400 naming the field", async (_, change, path) => {
    const error = await refusal(body({ ...grant, ...change }));
    expect(error.status).toBe(400);
    expect(fieldsOf(error)).toContain(path);
  });
});
