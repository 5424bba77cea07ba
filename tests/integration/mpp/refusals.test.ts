// What an MPP payment refuses, and how its end is told: challenges this agent will not answer
// (another chain or currency, splits past the amount, an expired one), a changed approval, and a
// service whose Payment-Receipt names a transaction the chain does not show (paid means paid).
// mppx's own server and Challenge code on the sandbox chain; nothing of the chain is mocked.
import { BodyDigest, Challenge, Credential } from "mppx";
import { toHex } from "viem";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findPayment } from "@/lib/payments/ledger";
import { sweepUnfinishedPayments } from "@/lib/payments/sweep";
import { createChatTools } from "@/lib/chat/tools";
import type { StreamLine } from "@/lib/protocol/lines";
import { smartAccount, smartAccountSigner, startSandbox, type Sandbox } from "@/sandbox";
import { listen, type RunningServer } from "@/sandbox/http";
import { collectLines, createTestChat, type TestChat } from "@/tests/helpers/chat";
import {
  collectOnChain,
  finishOf as finish,
  historyPaymentsOf,
  modelCallingPayForService,
  newPayer as fundedPayer,
  paymentsOf as payments,
  requestQuote as quote,
  sandboxEnv,
  sandboxService,
  sendApproval,
  signQuote as sign,
  steps,
  typedDataOf,
  usdcBalance,
} from "@/tests/helpers/paid-chat";

let sandbox: Sandbox;
let balanceOf: ReturnType<typeof usdcBalance>;
/** A service answering 402 with whatever challenge a test sets. */
let challenger: RunningServer;
let challenge: Challenge.Challenge | undefined;
/** An x402 PAYMENT-REQUIRED the same 402 also carries, when a test sets one. */
let alsoX402: string | undefined;
/** What the service answers a request that brings a credential, when a test sets it (it never settles). */
let paidAnswer: { headers: Record<string, string>; body: unknown } | undefined;
/** The credentials the service was sent. */
const credentials: string[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  balanceOf = usdcBalance(sandbox);
  challenger = await listen(0, async (request, response) => {
    const credential = request.headers.authorization;
    if (credential) credentials.push(credential);
    if (credential && paidAnswer) {
      response.writeHead(200, { "Content-Type": "application/json", ...paidAnswer.headers });
      response.end(JSON.stringify(paidAnswer.body));
      return;
    }
    response.writeHead(402, { "WWW-Authenticate": challenge ? Challenge.serialize(challenge) : "", "Content-Type": "application/json", ...(alsoX402 ? { "PAYMENT-REQUIRED": alsoX402 } : {}) });
    response.end("{}");
  });
});
afterAll(async () => {
  await challenger?.close();
  await sandbox?.stop();
});

const limits = { daily: "1", weekly: "5", monthly: "20", perPayment: "0.5" };
const service = (name: string) => sandboxService(sandbox, name);

async function chatPaying(url: string, query: Record<string, string> = {}) {
  const results: string[] = [];
  const chat = await createTestChat({
    tools: createChatTools,
    env: sandboxEnv(sandbox),
    model: modelCallingPayForService({ url, query }, { onToolResult: (content) => results.push(JSON.stringify(content)) }),
  });
  return { chat, results };
}

/** An `evm` charge challenge as the sandbox's would be, with `change` applied to its request. */
function evmChallenge(change: Record<string, unknown> = {}, expires = new Date(Date.now() + 300_000), digest?: string): Challenge.Challenge {
  return Challenge.from({
    ...(digest ? { digest } : {}),
    id: `test-${Math.random().toString(36).slice(2)}`,
    realm: "Test Shop",
    method: "evm",
    intent: "charge",
    request: {
      amount: "1000",
      currency: sandbox.info.usdc.address,
      recipient: "0x00000000000000000000000000000000000000A1",
      methodDetails: { chainId: sandbox.info.chainId, decimals: 6, credentialTypes: ["authorization"] },
      ...change,
    },
    expires: expires.toISOString(),
  });
}

const errorsOf = (lines: StreamLine[]) => lines.flatMap((line) => (line.type === "error" ? [line.error.code] : []));

describe("MPP challenges this agent does not answer", () => {
  const cases: [string, () => Challenge.Challenge, RegExp][] = [
    ["another chain", () => evmChallenge({ methodDetails: { chainId: 1, decimals: 6, credentialTypes: ["authorization"] } }), /chain eip155:1 is not one this agent pays on/],
    ["another currency", () => evmChallenge({ currency: "0x0000000000000000000000000000000000000bad" }), /currency .* is not USDC/],
    [
      "splits that sum past the amount",
      () => evmChallenge({ methodDetails: { chainId: sandbox.info.chainId, decimals: 6, credentialTypes: ["authorization"], splits: [{ amount: "2000", recipient: "0x00000000000000000000000000000000000000A2" }] } }),
      /splits do not add up within its amount/,
    ],
    [
      "splits within the amount (one authorization pays one recipient)",
      () => evmChallenge({ methodDetails: { chainId: sandbox.info.chainId, decimals: 6, credentialTypes: ["authorization"], splits: [{ amount: "100", recipient: "0x00000000000000000000000000000000000000A2" }] } }),
      /splits its amount among several recipients/,
    ],
    ["an expired challenge", () => evmChallenge({}, new Date(Date.now() - 1_000)), /expired/],
    ["a challenge bound to another request body", () => evmChallenge({}, undefined, BodyDigest.compute({ amount: "1000000" })), /another request body/],
  ];
  for (const [what, make, reason] of cases) {
    test(`${what}: refused with why, nothing quoted, reserved or paid`, async () => {
      challenge = make();
      const { chat, results } = await chatPaying(`${challenger.url}/thing`);
      try {
        const payer = await fundedPayer(sandbox);
        const lines = await collectLines(await chat.post({ messages: [{ role: "user", content: "Buy the thing" }], walletAddress: payer.address, spendingLimits: limits }));
        expect(payments(lines)).toEqual([]);
        expect(errorsOf(lines)).toEqual(["payment-failed"]);
        expect(results.join("\n")).toMatch(reason);
        expect(await chat.db.query("SELECT payment_id FROM payments")).toEqual([]);
      } finally {
        await chat.close();
      }
    });
  }
});

describe("a 402 offering both protocols", () => {
  test("whose MPP challenge cannot be paid here and whose x402 option can: quoted over x402", async () => {
    challenge = evmChallenge({ methodDetails: { chainId: 1, decimals: 6, credentialTypes: ["authorization"] } });
    const accepts = [{ scheme: "exact", network: sandbox.info.network, amount: "1000", asset: sandbox.info.usdc.address, payTo: "0x00000000000000000000000000000000000000A1", maxTimeoutSeconds: 300, extra: { name: sandbox.info.usdc.name, version: sandbox.info.usdc.version } }];
    alsoX402 = Buffer.from(JSON.stringify({ x402Version: 2, resource: { url: `${challenger.url}/thing` }, accepts })).toString("base64");
    const { chat } = await chatPaying(`${challenger.url}/thing`);
    try {
      const payer = await fundedPayer(sandbox);
      const quoted = await quote(chat, payer, "Buy the thing", limits);
      expect(quoted.status).toMatchObject({ protocol: "x402", network: sandbox.info.network, amount: { total: "0.001" } });
    } finally {
      alsoX402 = undefined;
      await chat.close();
    }
  });
});

describe("a receipt that does not parse", () => {
  test("is no claim at all: the credential went out as mppx serializes it, the chain shows nothing, so the payment is pending, never confirmed", async () => {
    challenge = evmChallenge();
    paidAnswer = { headers: { "Payment-Receipt": "not-a-receipt" }, body: { thing: "here" } };
    const { chat } = await chatPaying(`${challenger.url}/thing`);
    try {
      const payer = await fundedPayer(sandbox);
      const quoted = await quote(chat, payer, "Buy the thing", limits);
      credentials.length = 0;
      const lines = await collectLines(await sendApproval(chat, quoted, await sign(payer, quoted.status)));
      expect(steps(lines)).toEqual([
        ["submitted", undefined],
        ["failed", "payment-pending"],
      ]);
      expect(payments(lines).at(-1)?.txHash).toBeUndefined();
      // What was sent answers the challenge, as mppx reads a credential.
      expect(credentials).toHaveLength(1);
      const sent = Credential.deserialize<{ nonce: string; from: string; type: string }>(credentials[0] ?? "");
      expect(sent.challenge.id).toBe(challenge.id);
      expect(sent.payload).toMatchObject({ type: "authorization", from: payer.address, nonce: typedDataOf(quoted.status).message.nonce });
      expect(await findPayment(chat.db, quoted.status.paymentId)).toMatchObject({ status: "pending", txHash: null });
    } finally {
      paidAnswer = undefined;
      await chat.close();
    }
  });
});

describe("a replayed challenge", () => {
  test("the same challenge again, after its authorization was sent, is not quoted: one challenge, one payment", async () => {
    // A service that hands out the same challenge every time and never takes the credential.
    challenge = evmChallenge();
    const { chat, results } = await chatPaying(`${challenger.url}/thing`);
    try {
      const payer = await fundedPayer(sandbox);
      const first = await quote(chat, payer, "Buy the thing", limits);
      expect(first.status.protocol).toBe("mpp");
      const sent = await collectLines(await sendApproval(chat, first, await sign(payer, first.status)));
      // The service did not take it and nothing moved: pending until the authorization expires.
      expect(steps(sent).at(-1)).toEqual(["failed", "payment-pending"]);
      const before = await chat.db.query("SELECT payment_id FROM payments");
      expect(before).toHaveLength(1);

      const lines = await collectLines(await chat.post({ messages: [{ role: "user", content: "Buy the thing again" }], walletAddress: payer.address, spendingLimits: limits }));
      expect(steps(lines)).toEqual([
        ["checking", undefined],
        ["failed", "payment-failed"],
      ]);
      expect(results.join("\n")).toMatch(/identical, byte for byte, to one already sent/);
      expect(await chat.db.query("SELECT payment_id FROM payments")).toEqual(before);
    } finally {
      await chat.close();
    }
  });
});

describe("an MPP approval that was changed", () => {
  let target: { chat: TestChat; results: string[] };
  beforeAll(async () => {
    target = await chatPaying(service("quotations-mpp").url, { topic: "money" });
  });
  afterAll(async () => {
    await target?.chat.close();
  });

  test("another signer, or a signature of other terms, is refused before anything is reserved; nothing moves", async () => {
    const payer = await fundedPayer(sandbox);
    const quoted = await quote(target.chat, payer, "A maxim on money", limits);
    expect(quoted.status.protocol).toBe("mpp");
    const before = await balanceOf(payer.address);
    const stranger = privateKeyToAccount(generatePrivateKey());
    const wrongSigner = await sendApproval(target.chat, quoted, await sign(stranger, quoted.status));
    expect(wrongSigner.status).toBe(400);
    // The wallet signed the authorization for a larger amount than quoted.
    const typedData = typedDataOf(quoted.status);
    const more = { ...quoted.status, approval: { ...quoted.status.approval, expiresAt: quoted.status.approval?.expiresAt ?? "", typedData: { ...typedData, message: { ...typedData.message, value: "999999" } } } };
    const otherTerms = await sendApproval(target.chat, quoted, await sign(payer, more));
    expect(otherTerms.status).toBe(400);
    expect(await findPayment(target.chat.db, quoted.status.paymentId)).toBeUndefined();
    expect(await balanceOf(payer.address)).toBe(before);
  });

  test("a smart account's signature, which mppx's server cannot check, is refused before anything is reserved", async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const account = smartAccount({ owner: owner.address, salt: toHex(crypto.getRandomValues(new Uint8Array(32))) });
    await sandbox.deploySmartAccount(account);
    await sandbox.fund({ to: account.address, usdc: 100_000n });
    const payer = smartAccountSigner(account, owner, { deployed: true });
    const quoted = await quote(target.chat, payer, "A maxim on money", limits);
    const response = await sendApproval(target.chat, quoted, await sign(payer, quoted.status));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/MPP services check a wallet key's own signature only/);
    expect(await findPayment(target.chat.db, quoted.status.paymentId)).toBeUndefined();
    expect(await balanceOf(account.address)).toBe(100_000n);
  });
});

describe("paid means paid, over MPP", () => {
  test("a Payment-Receipt naming a transaction the chain does not show: pending, never confirmed; once collected, the chain's transaction is recorded", async () => {
    const entry = service("quotations-mpp");
    const { chat, results } = await chatPaying(entry.url, { topic: "time" });
    try {
      const payer = await fundedPayer(sandbox);
      const quoted = await quote(chat, payer, "A maxim on time", limits);
      const signature = await sign(payer, quoted.status);
      const before = await balanceOf(payer.address);
      const madeUp = `0x${"cd".repeat(32)}`;
      sandbox.setServiceClaimedSettlement(entry.name, { transaction: madeUp });
      let lines: StreamLine[];
      try {
        lines = await collectLines(await sendApproval(chat, quoted, signature));
      } finally {
        sandbox.setServiceClaimedSettlement(entry.name, undefined);
      }
      expect(steps(lines)).toEqual([
        ["submitted", undefined],
        ["failed", "payment-pending"],
      ]);
      expect(JSON.stringify(lines)).not.toContain(madeUp);
      expect(finish(lines)?.finishReason).toBe("payment-failed");
      expect(results.join("\n")).toContain("payment-pending");
      expect(await balanceOf(payer.address)).toBe(before);
      expect(await findPayment(chat.db, quoted.status.paymentId)).toMatchObject({ status: "pending", txHash: null, scheme: "mpp-evm-charge" });

      // The authorization the service kept is collected: the sweep records what the chain shows.
      const collected = await collectOnChain(sandbox, typedDataOf(quoted.status), signature);
      expect(await sweepUnfinishedPayments({ db: chat.db, env: chat.env })).toMatchObject({ settled: 1 });
      expect(await findPayment(chat.db, quoted.status.paymentId)).toMatchObject({ status: "settled", txHash: collected });
      expect(await balanceOf(payer.address)).toBe(before - BigInt(entry.priceAtomic));
      // Told it was pending, the person finds it in their history with why it is there.
      expect(await historyPaymentsOf(chat, payer.address)).toEqual([
        expect.objectContaining({ txHash: collected, protocol: "mpp", collectedLate: { note: expect.stringMatching(/collected it on chain later/) } }),
      ]);
    } finally {
      await chat.close();
    }
  });
});
