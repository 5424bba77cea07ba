// The agent budget on the sandbox: a session key that the person's wallet delegated to, holding
// only what was moved to it, pays small payments without the wallet's prompt, in the wallet's
// name and against the wallet's limits, and never past the grant, its time, its networks, the
// confirmation threshold or its own balance. Real anvil, Circle's USDC, the local facilitator and
// x402 services; only the delegation's signer and the session key are test keys.
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createChatTools } from "@/lib/chat/tools";
import { delegationTypedData, type AgentBudgetDelegation, type AgentBudgetGrant } from "@/lib/chain/delegation";
import { findPayment } from "@/lib/payments/ledger";
import { formatDollars, formatUsd } from "@/lib/money";
import { getSpendingReport } from "@/lib/payments/spending-report";
import type { PaymentStatus } from "@/lib/protocol/lines";
import { startSandbox, type Sandbox } from "@/sandbox";
import { collectLines, createTestChat, textOf, type TestChat } from "@/tests/helpers/chat";
import {
  finishOf as finish,
  fortuneOracle,
  generousLimits,
  modelCallingPayForService,
  newPayer,
  payingModel,
  paymentsOf as payments,
  sandboxEnv,
  sandboxService,
  sendApproval as approve,
  signQuote as sign,
  typedDataOf,
  usdcBalance,
  type Quoted,
} from "@/tests/helpers/paid-chat";

let sandbox: Sandbox;
let chat: TestChat;
let balanceOf: ReturnType<typeof usdcBalance>;
/** The server's clock for approvals; the wall clock unless a test moves it. */
let clock: Date | undefined;

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  balanceOf = usdcBalance(sandbox);
  chat = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox), now: () => clock ?? new Date() });
});
afterAll(async () => {
  await chat?.close();
  await sandbox?.stop();
});

/** Cheap weather (0.002 USDC) is under this; nothing else matters here. */
const threshold = "0.01";

type Budget = { wallet: PrivateKeyAccount; session: PrivateKeyAccount; grant: AgentBudgetGrant };

/**
 * A wallet holding 1 USDC that grants `maxAmount` (atomic USDC) to a fresh session key, and the
 * USDC moved to the session address (`funded`, by default the whole grant).
 */
async function newBudget({
  maxAmount,
  funded = maxAmount,
  validUntil = Math.floor(Date.now() / 1000) + 3600,
  networks = [sandbox.info.network],
  signer,
}: { maxAmount: bigint; funded?: bigint; validUntil?: number; networks?: string[]; signer?: PrivateKeyAccount }): Promise<Budget> {
  const wallet = await newPayer(sandbox);
  const session = privateKeyToAccount(generatePrivateKey());
  if (funded > 0n) await sandbox.fund({ to: session.address, usdc: funded });
  const delegation: AgentBudgetDelegation = { wallet: wallet.address, session: session.address, maxAmount: maxAmount.toString(), validUntil, networks };
  const signature = await (signer ?? wallet).signTypedData(delegationTypedData(delegation));
  return { wallet, session, grant: { ...delegation, signature } };
}

/** Request A with the page's agent budget and threshold. */
async function quoteWith(
  budget: Budget,
  content: string,
  { target = chat, limits = generousLimits }: { target?: TestChat; limits?: Record<string, string> } = {},
): Promise<Quoted> {
  const body = {
    messages: [{ role: "user", content }],
    walletAddress: budget.wallet.address,
    spendingLimits: limits,
    preferences: { confirmationThreshold: threshold },
    agentBudget: budget.grant,
  };
  const lines = await collectLines(await target.post(body));
  const awaiting = payments(lines).find((status) => status.status === "awaiting-signature");
  if (!awaiting) throw new Error(`no quote: ${JSON.stringify(lines)}`);
  return { status: awaiting, body };
}

const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string } }).error;

describe("paying from the agent budget", () => {
  test("a small payment is quoted for the session key, paid with its signature alone, from its USDC, and counted as the wallet's", async () => {
    const weather = sandboxService(sandbox, "weather-budget");
    const price = BigInt(weather.priceAtomic);
    const budget = await newBudget({ maxAmount: 50_000n });
    const quoted = await quoteWith(budget, "What's the weather in Lisbon?");
    expect(quoted.status.paidFrom).toBe("agent-budget");
    expect(quoted.status.warnings ?? []).toEqual([]);
    expect(typedDataOf(quoted.status).message.from?.toLowerCase()).toBe(budget.session.address.toLowerCase());
    const [walletBefore, sessionBefore] = await Promise.all([balanceOf(budget.wallet.address), balanceOf(budget.session.address)]);

    const lines = await collectLines(await approve(chat, quoted, await sign(budget.session, quoted.status)));
    expect(payments(lines).map((status) => [status.status, status.paidFrom])).toEqual([
      ["submitted", "agent-budget"],
      ["confirmed", "agent-budget"],
      ["delivered", "agent-budget"],
    ]);
    expect(finish(lines)?.finishReason).toBe("payment-complete");
    expect(textOf(lines)).toContain("Lisbon");

    // The session address paid; the wallet's own USDC did not move.
    expect(await balanceOf(budget.session.address)).toBe(sessionBefore - price);
    expect(await balanceOf(budget.wallet.address)).toBe(walletBefore);
    const record = await findPayment(chat.db, quoted.status.paymentId);
    expect(record).toMatchObject({ status: "settled", wallet: budget.wallet.address.toLowerCase(), payer: budget.session.address.toLowerCase() });

    // It is the wallet's spending: the agent says so, and the page's budget meters show it.
    const spent = await collectLines(
      await chat.post({ messages: [{ role: "user", content: "How much have I spent today?" }], walletAddress: budget.wallet.address, spendingLimits: generousLimits }),
    );
    expect(textOf(spent)).toContain(`Last 24 hours: spent $${weather.price} of $1`);
    const report = await getSpendingReport({ db: chat.db, env: chat.env, wallet: budget.wallet.address, history: true });
    expect(report.periods.find((period) => period.period === "day")?.spentUsd).toBe(weather.price);
    expect(report.recent[0]).toMatchObject({ paymentId: quoted.status.paymentId, paidFrom: "agent-budget" });
  });

  test("at most one payment without a prompt per message: a second quote in the same reply asks the wallet, and says why", async () => {
    const weather = sandboxService(sandbox, "weather-budget");
    const finishStep = (unified: "stop" | "tool-calls"): LanguageModelV4StreamPart => ({
      type: "finish",
      finishReason: { unified, raw: undefined },
      usage: { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } },
    });
    // As a listing that tells the model to pay again would steer it: two paid calls in one reply.
    const twice = new MockLanguageModelV4({
      doStream: async ({ prompt }) => {
        const results = prompt.filter((message) => message.role === "tool").length;
        const parts: LanguageModelV4StreamPart[] =
          results < 2
            ? [{ type: "tool-call", toolCallId: `c${results}`, toolName: "payForService", input: JSON.stringify({ url: weather.url, query: { city: results ? "Paris" : "Lisbon" } }) }, finishStep("tool-calls")]
            : [{ type: "text-start", id: "1" }, { type: "text-delta", id: "1", delta: "Done." }, { type: "text-end", id: "1" }, finishStep("stop")];
        return { stream: convertArrayToReadableStream(parts) };
      },
    });
    const target = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox), model: twice });
    const budget = await newBudget({ maxAmount: 50_000n });
    const lines = await collectLines(
      await target.post({
        messages: [{ role: "user", content: "Weather in Lisbon, please" }],
        walletAddress: budget.wallet.address,
        spendingLimits: generousLimits,
        preferences: { confirmationThreshold: threshold },
        agentBudget: budget.grant,
      }),
    );
    const quotes = payments(lines).filter((status) => status.status === "awaiting-signature");
    expect(quotes.map((status) => status.paidFrom ?? "wallet")).toEqual(["agent-budget", "wallet"]);
    expect(typedDataOf(quotes[1] as PaymentStatus).message.from?.toLowerCase()).toBe(budget.wallet.address.toLowerCase());
    expect(quotes[1]?.warnings?.join(" ")).toMatch(/at most one payment without asking for each message/);
    await target.close();
  });

  test("two paid calls made in parallel in one step get one payment without a prompt, not two", async () => {
    const weather = sandboxService(sandbox, "weather-budget");
    const finishStep = (unified: "stop" | "tool-calls"): LanguageModelV4StreamPart => ({
      type: "finish",
      finishReason: { unified, raw: undefined },
      usage: { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } },
    });
    // Both calls in the model's first step: the SDK runs their tools side by side.
    const parallel = new MockLanguageModelV4({
      doStream: async ({ prompt }) => {
        const parts: LanguageModelV4StreamPart[] = prompt.some((message) => message.role === "tool")
          ? [{ type: "text-start", id: "1" }, { type: "text-delta", id: "1", delta: "Done." }, { type: "text-end", id: "1" }, finishStep("stop")]
          : [
              { type: "tool-call", toolCallId: "c1", toolName: "payForService", input: JSON.stringify({ url: weather.url, query: { city: "Lisbon" } }) },
              { type: "tool-call", toolCallId: "c2", toolName: "payForService", input: JSON.stringify({ url: weather.url, query: { city: "Paris" } }) },
              finishStep("tool-calls"),
            ];
        return { stream: convertArrayToReadableStream(parts) };
      },
    });
    const target = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox), model: parallel });
    const budget = await newBudget({ maxAmount: 50_000n });
    const lines = await collectLines(
      await target.post({
        messages: [{ role: "user", content: "Weather in Lisbon and Paris, please" }],
        walletAddress: budget.wallet.address,
        spendingLimits: generousLimits,
        preferences: { confirmationThreshold: threshold },
        agentBudget: budget.grant,
      }),
    );
    const quotes = payments(lines).filter((status) => status.status === "awaiting-signature");
    expect(quotes).toHaveLength(2);
    expect(quotes.filter((status) => status.paidFrom === "agent-budget")).toHaveLength(1);
    await target.close();
  });

  test("an approval the budget's session key signed pays, but starts no session for the wallet", async () => {
    const budget = await newBudget({ maxAmount: 50_000n });
    const quoted = await quoteWith(budget, "What's the weather in Lisbon?");
    expect(quoted.status.paidFrom).toBe("agent-budget");
    const response = await approve(chat, quoted, await sign(budget.session, quoted.status));
    expect(response.status).toBe(200);
    expect(finish(await collectLines(response))?.finishReason).toBe("payment-complete");
    // Whoever holds the hot session key cannot read the wallet's history with it.
    expect(response.headers.get("set-cookie")).toBeNull();
  });

  test("a payment above the confirmation threshold is quoted for the wallet, and says why", async () => {
    const budget = await newBudget({ maxAmount: 50_000n });
    const translate = sandboxService(sandbox, "translate");
    const target = await createTestChat({
      tools: createChatTools,
      env: sandboxEnv(sandbox),
      model: modelCallingPayForService({ url: translate.url, method: "POST", body: { text: "price", to: "fr" } }),
    });
    try {
      const quoted = await quoteWith(budget, "Translate 'price' to French", { target });
      expect(quoted.status.paidFrom).toBeUndefined();
      expect(typedDataOf(quoted.status).message.from?.toLowerCase()).toBe(budget.wallet.address.toLowerCase());
      expect(quoted.status.warnings).toContain(
        `This payment of $${translate.price} is above your confirmation threshold of $${threshold}, so your agent budget does not pay it: it needs your wallet's approval.`,
      );
      // The session key cannot approve a quote made for the wallet.
      const refused = await approve(target, quoted, await sign(budget.session, quoted.status));
      expect(refused.status).toBe(400);
      expect((await errorOf(refused)).message).toBe("The signature is not the connected wallet's signature of this payment. Nothing was paid.");
      const paid = await collectLines(await approve(target, quoted, await sign(budget.wallet, quoted.status)));
      expect(finish(paid)?.finishReason).toBe("payment-complete");
    } finally {
      await target.close();
    }
  });

  test("once the grant cannot cover a payment, the wallet is asked, with what is left of the budget", async () => {
    const price = BigInt(sandboxService(sandbox, "weather-budget").priceAtomic);
    // Room for one payment and a half: the second does not fit.
    const budget = await newBudget({ maxAmount: price + price / 2n });
    const first = await quoteWith(budget, "What's the weather in Lisbon?");
    expect(first.status.paidFrom).toBe("agent-budget");
    expect(finish(await collectLines(await approve(chat, first, await sign(budget.session, first.status))))?.finishReason).toBe("payment-complete");

    const second = await quoteWith(budget, "What's the weather in Tokyo?");
    expect(second.status.paidFrom).toBeUndefined();
    expect(typedDataOf(second.status).message.from?.toLowerCase()).toBe(budget.wallet.address.toLowerCase());
    expect(second.status.warnings).toContain(
      `Your agent budget has $${formatUsd(price / 2n)} of $${formatUsd(price + price / 2n)} left, less than this payment of $${formatUsd(price)}. This payment needs your wallet's approval; grant a new agent budget to go on without prompts.`,
    );
  });

  test("a grant the wallet did not sign, an expired one, or one for other networks is not used", async () => {
    const stranger = privateKeyToAccount(generatePrivateKey());
    const cases: Array<[Budget, string]> = [
      [await newBudget({ maxAmount: 50_000n, signer: stranger }), "The agent budget this page sent is not signed by your wallet."],
      [await newBudget({ maxAmount: 50_000n, validUntil: Math.floor(Date.now() / 1000) - 60 }), "Your agent budget expired at"],
      [await newBudget({ maxAmount: 50_000n, networks: ["eip155:8453"] }), "Your agent budget does not cover Sandbox."],
    ];
    for (const [budget, note] of cases) {
      const quoted = await quoteWith(budget, "What's the weather in Singapore?");
      expect(quoted.status.paidFrom).toBeUndefined();
      expect(typedDataOf(quoted.status).message.from?.toLowerCase()).toBe(budget.wallet.address.toLowerCase());
      expect(quoted.status.warnings?.some((warning) => warning.startsWith(note))).toBe(true);
    }
  });

  test("a session address holding less than the grant says is left does not pay: the chain's wall holds", async () => {
    const price = BigInt(sandboxService(sandbox, "weather-budget").priceAtomic);
    const budget = await newBudget({ maxAmount: 50_000n, funded: price - 1n });
    const quoted = await quoteWith(budget, "What's the weather in Sydney?");
    expect(quoted.status.paidFrom).toBeUndefined();
    expect(quoted.status.warnings).toContain(
      `Your agent budget holds ${formatUsd(price - 1n)} USDC on Sandbox, less than the ${formatUsd(price)} USDC this payment needs. This payment needs your wallet's approval.`,
    );
  });

  test("an approval whose grant expired since the quote is refused and nothing is reserved", async () => {
    const validUntil = Math.floor(Date.now() / 1000) + 30;
    const budget = await newBudget({ maxAmount: 50_000n, validUntil });
    const quoted = await quoteWith(budget, "What's the weather in Nairobi?");
    expect(quoted.status.paidFrom).toBe("agent-budget");
    const before = await balanceOf(budget.session.address);
    clock = new Date((validUntil + 1) * 1000);
    try {
      const refused = await approve(chat, quoted, await sign(budget.session, quoted.status));
      expect(refused.status).toBe(400);
      const error = await errorOf(refused);
      expect(error.code).toBe("bad-request");
      expect(error.message).toBe(`Your agent budget expired at ${new Date(validUntil * 1000).toISOString()}. Nothing was paid.`);
    } finally {
      clock = undefined;
    }
    expect(await findPayment(chat.db, quoted.status.paymentId)).toBeUndefined();
    expect(await balanceOf(budget.session.address)).toBe(before);
  });

  test("a budget quote signed by the wallet instead of the session key is refused", async () => {
    const budget = await newBudget({ maxAmount: 50_000n });
    const quoted = await quoteWith(budget, "What's the weather in Reykjavik?");
    const refused = await approve(chat, quoted, await sign(budget.wallet, quoted.status));
    expect(refused.status).toBe(400);
    expect((await errorOf(refused)).message).toBe("The signature is not your agent budget's signature of this payment. Nothing was paid.");
  });
});

describe("paid means paid, from the agent budget", () => {
  test("a service that settles and then answers 500: the chain is asked about the session key's authorization, and it is paid, not delivered", async () => {
    const price = 2_000n;
    const oracle = await sandbox.addService(fortuneOracle("budget-oracle", price), { listed: false });
    const target = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox), model: payingModel(oracle.url) });
    try {
      const budget = await newBudget({ maxAmount: 50_000n });
      const quoted = await quoteWith(budget, "My fortune, please", { target });
      expect(quoted.status.paidFrom).toBe("agent-budget");
      const before = await balanceOf(budget.session.address);
      sandbox.setServiceAfterSettlement(oracle.name, "fail");
      let lines: Awaited<ReturnType<typeof collectLines>> | undefined;
      try {
        lines = await collectLines(await approve(target, quoted, await sign(budget.session, quoted.status)));
      } finally {
        sandbox.setServiceAfterSettlement(oracle.name, undefined);
      }
      expect(payments(lines).map((status) => [status.status, status.reason?.code])).toEqual([
        ["submitted", undefined],
        ["confirmed", undefined],
        ["failed", "not-delivered"],
      ]);
      const txHash = payments(lines)[1]?.txHash;
      expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(await balanceOf(budget.session.address)).toBe(before - price);
      expect(await findPayment(target.db, quoted.status.paymentId)).toMatchObject({ status: "settled", txHash });
    } finally {
      await target.close();
    }
  });
});

describe("the grant and the limits, counted together under concurrency", () => {
  const concurrentApprovals = async (budget: Budget, count: number, limits: Record<string, string>) => {
    const news = sandboxService(sandbox, "news-headlines");
    const target = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox), model: payingModel(news.url, { topic: "technology" }) });
    try {
      const quotes: Quoted[] = [];
      for (let i = 0; i < count; i += 1) quotes.push(await quoteWith(budget, "Headlines please", { target, limits }));
      expect(quotes.every((quoted) => quoted.status.paidFrom === "agent-budget")).toBe(true);
      const before = await balanceOf(budget.session.address);
      const responses = await Promise.all(quotes.map(async (quoted) => approve(target, quoted, await sign(budget.session, quoted.status))));
      const refusals = await Promise.all(responses.filter((response) => response.status !== 200).map(errorOf));
      const completed = await Promise.all(responses.filter((response) => response.status === 200).map(collectLines));
      expect(completed.every((lines) => finish(lines)?.finishReason === "payment-complete")).toBe(true);
      return { paid: completed.length, refusals, spent: before - (await balanceOf(budget.session.address)), price: BigInt(news.priceAtomic) };
    } finally {
      await target.close();
    }
  };

  test("six approvals at once against a grant for three pay exactly three", async () => {
    const price = BigInt(sandboxService(sandbox, "news-headlines").priceAtomic);
    const budget = await newBudget({ maxAmount: 3n * price, funded: 10n * price });
    const { paid, refusals, spent } = await concurrentApprovals(budget, 6, generousLimits);
    expect(paid).toBe(3);
    expect(spent).toBe(3n * price);
    expect(refusals).toHaveLength(3);
    for (const refusal of refusals) {
      expect(refusal.code).toBe("limit-exceeded");
      expect(refusal.message).toBe(
        `Your agent budget has $0.00 of ${formatDollars(3n * price)} left, less than this payment of ${formatDollars(price)}. Nothing was paid.`,
      );
    }
  });

  test("the wallet's daily limit binds the budget's payments too", async () => {
    const price = BigInt(sandboxService(sandbox, "news-headlines").priceAtomic);
    const budget = await newBudget({ maxAmount: 10n * price });
    const { paid, refusals, spent } = await concurrentApprovals(budget, 5, { ...generousLimits, daily: formatUsd(2n * price) });
    expect(paid).toBe(2);
    expect(spent).toBe(2n * price);
    expect(refusals.map((refusal) => refusal.code)).toEqual(["limit-exceeded", "limit-exceeded", "limit-exceeded"]);
    expect(refusals[0]?.message).toContain("daily (24 h) limit");
  });
});
