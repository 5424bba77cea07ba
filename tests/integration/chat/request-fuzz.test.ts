// No bad input gets a 500 (docs/contract.md, section 2): generated request bodies, valid ones changed in one
// place (wrong types, boundary numbers, odd and unicode strings, addresses with spaces or a `0X`
// prefix, nested junk, long arrays within the size cap) and random JSON or text, are read as
// the server reads them. Thousands go through the request reader; a few hundred through the
// whole chat handler with the offline model and a real PGlite ledger. Every refusal is a 4xx
// with its code (docs/contract.md, section 2), and every 400 names the fields it refuses.
import fc from "fast-check";
import { english, generateMnemonic, generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readChatRequest } from "@/lib/chat/request";
import { AppError } from "@/lib/errors";
import { isFinishLine } from "@/lib/protocol/lines";
import { collectLines, createTestChat, type TestChat } from "@/tests/helpers/chat";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const address = privateKeyToAccount(generatePrivateKey()).address; // EIP-55 checksummed
const hex40 = address.slice(2);

const addressLike = fc.constantFrom(
  address,
  address.toLowerCase(),
  `0x${hex40.toUpperCase()}`,
  ` ${address}`,
  `${address} `,
  `\t${address}\n`,
  `0X${hex40}`,
  `0X${hex40.toLowerCase()}`,
  // A checksum broken in one letter's case.
  `0x${hex40.replace(/[a-f]/, (letter) => letter.toUpperCase()).replace(/[A-F]/, (letter) => letter.toLowerCase())}`,
  `0x${hex40.slice(1)}`,
  `0x${hex40}0`,
  `${hex40}`,
  `0x${"０".repeat(40)}`,
  `0x${hex40.slice(0, 20)}\u200b${hex40.slice(20)}`,
  "0x",
  "",
);

const numberLike = fc.oneof(
  fc.constantFrom(0, -0, 1, -1, 0.5, 1e6, 1_000_000.000001, 1e21, 5e-324, Number.MAX_SAFE_INTEGER, 2 ** 53 + 1, 0.1 + 0.2, 8000, 8001, 16_000, 1e308),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

const decimalLike = fc.oneof(
  fc.constantFrom("1", "0", "-0", "0.000001", "0.0000001", "1000000", "1000000.000001", "1e3", " 1", "1 ", "0x10", "", ".", "1.", ".5", "١", "１", "NaN", "Infinity", "1_000", "+1", "--1"),
  fc.stringMatching(/^-?\d{0,9}(\.\d{0,9})?$/),
);

const oddString = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  // Any code point, lone surrogates included.
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.constantFrom(" ", "\u0000", "\u200b\u200d\ufeff", "user ", "USER", "ｕｓｅｒ", "__proto__", "constructor", "eip155:", "eip155:1e3", "eip155:99999999999999", "𝟘𝕩"),
);

const junk: fc.Arbitrary<Json> = fc.oneof(
  { weight: 3, arbitrary: oddString },
  { weight: 2, arbitrary: numberLike },
  { weight: 2, arbitrary: decimalLike },
  { weight: 2, arbitrary: addressLike },
  { weight: 1, arbitrary: fc.constantFrom<Json>(null, true, false, [], {}, [[]], { "": null }) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<Json> },
);

const message = fc.record({
  role: fc.constantFrom("user", "assistant", "system"),
  content: fc.string({ minLength: 1, maxLength: 80 }),
});

const validBody = fc.record(
  {
    messages: fc
      .array(message, { minLength: 0, maxLength: 4 })
      .chain((earlier) => fc.string({ minLength: 1, maxLength: 80 }).map((content) => [...earlier, { role: "user", content }])),
    walletAddress: fc.constantFrom(address, address.toLowerCase()),
    spendingLimits: fc.record(
      { daily: decimalLike, weekly: numberLike, monthly: fc.constant("20"), perPayment: fc.constant(0.5) },
      { requiredKeys: [] },
    ),
    preferences: fc.record(
      { defaultChain: fc.constantFrom("eip155:8453", "eip155:84532"), priority: fc.constantFrom("cost", "speed"), confirmationThreshold: fc.constant("0.1") },
      { requiredKeys: [] },
    ),
    model: fc.constantFrom("vendor-2.0-flash-exp", "vendor-1.5-pro", "vendor-1.5-flash"),
    temperature: fc.double({ min: 0, max: 1, noNaN: true }),
    maxTokens: fc.integer({ min: 1, max: 8000 }),
  },
  { requiredKeys: ["messages"] },
) as fc.Arbitrary<{ [key: string]: Json }>;

/** Where a body is changed: a field, a field inside one, or a key that does not belong. */
const paths: string[][] = [
  [],
  ["messages"],
  ["messages", "0"],
  ["messages", "0", "role"],
  ["messages", "0", "content"],
  ["messages", "0", "extra"],
  ["walletAddress"],
  ["spendingLimits"],
  ["spendingLimits", "daily"],
  ["spendingLimits", "perPayment"],
  ["spendingLimits", "yearly"],
  ["preferences"],
  ["preferences", "defaultChain"],
  ["preferences", "priority"],
  ["preferences", "confirmationThreshold"],
  ["model"],
  ["temperature"],
  ["maxTokens"],
  ["payment"],
  ["payment", "paymentId"],
  ["payment", "token"],
  ["payment", "signature"],
  ["stream"],
  ["__proto__"],
];

function setAt(body: Json, path: readonly string[], value: Json | undefined): Json {
  if (path.length === 0) return value ?? null;
  const [key = "", ...rest] = path;
  const container: { [key: string]: Json } | Json[] =
    Array.isArray(body) ? [...body] : body !== null && typeof body === "object" ? { ...body } : {};
  const current = (container as Record<string, Json>)[key] ?? null;
  const next = rest.length === 0 ? value : setAt(current, rest, value);
  if (next === undefined) delete (container as Record<string, Json>)[key];
  // defineProperty: a key named __proto__ becomes a field of the JSON, not the prototype.
  else Object.defineProperty(container, key, { value: next, enumerable: true, writable: true, configurable: true });
  return container;
}

const mutated = fc
  .tuple(validBody, fc.constantFrom(...paths), fc.option(junk, { nil: undefined, freq: 6 }))
  .map(([body, path, value]) => setAt(body, path, value));

/** A valid body with a (random, unsigned) approval: it reaches the approval's checks. */
const withApproval = fc
  .tuple(validBody, fc.string({ minLength: 1, maxLength: 100 }), fc.string({ minLength: 1, maxLength: 300 }), fc.stringMatching(/^0x[0-9a-f]{130}$/))
  .map(([body, paymentId, token, signature]) => ({ ...body, payment: { paymentId, token, signature } }));

/** Long arrays and strings near the limits, still within the 256 KiB body cap. */
const nearLimits = fc
  .tuple(fc.constantFrom(99, 100, 101), fc.constantFrom(1, 1_500, 2_000), fc.constantFrom(15_999, 16_000, 16_001))
  .map(([count, length, lastLength]) => ({
    messages: [
      ...Array.from({ length: count - 1 }, (_, index) => ({ role: index % 2 ? "assistant" : "user", content: "é".repeat(length) })),
      { role: "user", content: "x".repeat(lastLength) },
    ],
  }));

/** A key or seed phrase pasted into a message, plainly or split up. */
const withSecret = fc
  .tuple(validBody, fc.constantFrom(generatePrivateKey().slice(2), generateMnemonic(english)), fc.constantFrom("", " ", "-", "\n"))
  .map(([body, secret, separator]) => {
    const messages = body.messages as Array<{ role: string; content: string }>;
    const split = secret.length === 64 ? (secret.match(/.{16}/g) ?? []).join(separator) : secret;
    return { ...body, messages: [...messages.slice(0, -1), { role: "user", content: `here: ${split}` }] };
  });

const bodyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: mutated.map((body) => JSON.stringify(body)) },
  { weight: 1, arbitrary: withApproval.map((body) => JSON.stringify(body)) },
  { weight: 1, arbitrary: nearLimits.map((body) => JSON.stringify(body)) },
  { weight: 1, arbitrary: withSecret.map((body) => JSON.stringify(body)) },
  { weight: 2, arbitrary: fc.jsonValue().map((value) => JSON.stringify(value)) },
  // Not JSON at all, or JSON broken off.
  { weight: 1, arbitrary: fc.oneof(fc.string(), mutated.map((body) => JSON.stringify(body).slice(0, -1))) },
);

type Refusal = { status: number; code: string; details: Record<string, unknown> | undefined };

/** Every 400 names at least one field, each with a message. */
function expectFieldsNamed(refusal: Refusal, body: string) {
  const fields = refusal.details?.fields;
  expect(Array.isArray(fields) && fields.length > 0, `400 ${refusal.code} names no field for ${body.slice(0, 300)}`).toBe(true);
  for (const field of fields as Array<{ path: unknown; message: unknown }>) {
    expect(typeof field.path === "string" && field.path.length > 0).toBe(true);
    expect(typeof field.message === "string" && field.message.length > 0).toBe(true);
  }
}

const chatRequest = (body: string) =>
  new Request("http://localhost/api/chat", { method: "POST", headers: { "content-type": "application/json" }, body });

describe("request body fuzz", () => {
  test("thousands of generated bodies: each is read or refused with a 4xx that names its fields", async () => {
    await fc.assert(
      fc.asyncProperty(bodyText, async (body) => {
        let refusal: Refusal | undefined;
        try {
          await readChatRequest(chatRequest(body));
        } catch (error) {
          // Anything but an AppError would be a 500 `internal` for the person.
          expect(error, `${String(error)} for ${body.slice(0, 300)}`).toBeInstanceOf(AppError);
          const { status, code, details } = error as AppError;
          refusal = { status, code, details };
        }
        if (!refusal) return;
        expect(refusal.status, `${refusal.code} for ${body.slice(0, 300)}`).toBeLessThan(500);
        expect(["bad-request", "secret-in-message", "payload-too-large"]).toContain(refusal.code);
        if (refusal.status === 400) expectFieldsNamed(refusal, body);
      }),
      { numRuns: 3_000 },
    );
  }, 120_000);

  describe("through the whole handler", () => {
    let chat: TestChat;
    beforeAll(async () => {
      // No cooldown: hundreds of messages from the same wallet in a row.
      chat = await createTestChat({ env: { CHAT_COOLDOWN_SECONDS: "0", PAYMENT_TOKEN_SECRET: "fuzz-secret-that-is-at-least-32-characters" } });
    });
    afterAll(async () => {
      await chat?.close();
    });

    test("a few hundred generated bodies: no 5xx, every 400 names its fields, every stream ends properly", async () => {
      const seen = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(bodyText, async (body) => {
          const response = await chat.post(body);
          seen.set(response.status, (seen.get(response.status) ?? 0) + 1);
          expect(response.status, body.slice(0, 300)).toBeLessThan(500);
          if (response.status === 200) {
            const lines = await collectLines(response);
            expect(lines.filter(isFinishLine)).toHaveLength(1);
            return;
          }
          const { error } = (await response.json()) as { error: Refusal & { message: string } };
          expect(error.message.length).toBeGreaterThan(0);
          if (response.status === 400) expectFieldsNamed({ ...error, status: 400 }, body);
        }),
        { numRuns: 300 },
      );
      // The bodies reached every outcome: streamed answers, refusals of fields, secrets and size.
      expect([...seen.keys()].sort()).toEqual([200, 400, 413]);
    }, 240_000);
  });
});
