// An AI app's small payment paid by the agent budget of the person's open page (docs/contract.md,
// section 11): while the page says it is there (with the wallet's session, the budget's grant and
// the threshold), payForService quotes for the budget's session key; the page gets the quote,
// signs it with the key and approves it; the app gets the data, and the money left the session
// address, in the wallet's name and against the grant's limits. A page gone quiet, or a payment
// above the threshold, falls back to the approval link. Real anvil, USDC, facilitator and services.
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { delegationTypedData, type AgentBudgetGrant } from "@/lib/chain/delegation";
import { SILENT_PER_HOUR, SILENT_SPACING_SECONDS, WATCH_FRESH_MS } from "@/lib/remote/budget-watch";
import { createBudgetWatchRateLimit, handleBudgetWatchRequest } from "@/lib/remote/budget-request";
import { findPayment } from "@/lib/payments/ledger";
import type { PaymentStatus } from "@/lib/protocol/lines";
import { startSandbox, type Sandbox } from "@/sandbox";
import { callTool, connectClient, createTestMcp, issueGrant, newGrant, ORIGIN, signIn, type TestMcp } from "@/tests/helpers/mcp";
import { newPayer, sandboxEnv, sandboxService, signQuote, usdcBalance } from "@/tests/helpers/paid-chat";

let sandbox: Sandbox;
let mcp: TestMcp;
let balanceOf: ReturnType<typeof usdcBalance>;

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  balanceOf = usdcBalance(sandbox);
  mcp = await createTestMcp({ env: sandboxEnv(sandbox) });
});
afterAll(async () => {
  await mcp?.close();
  await sandbox?.stop();
});

const express = () => sandboxService(sandbox, "weather-express");
const limits = { daily: 1_000_000n, weekly: 5_000_000n, monthly: 20_000_000n, perPayment: 500_000n };
const rateLimit = createBudgetWatchRateLimit();

type Person = { wallet: PrivateKeyAccount; session: PrivateKeyAccount; budget: AgentBudgetGrant; cookie: string };

/** A wallet signed in, with an app's access and an agent budget of 0.05 USDC. */
async function personWithBudget(): Promise<Person & { token: string }> {
  const wallet = await newPayer(sandbox);
  const session = privateKeyToAccount(generatePrivateKey());
  await sandbox.fund({ to: session.address, usdc: 50_000n });
  const delegation = { wallet: wallet.address, session: session.address, maxAmount: "50000", validUntil: Math.floor(Date.now() / 1000) + 3600, networks: [sandbox.info.network] };
  const budget = { ...delegation, signature: await wallet.signTypedData(delegationTypedData(delegation)) };
  const { body } = await issueGrant(mcp, wallet, newGrant(wallet.address, limits, { label: "Cursor" }), sandbox.info.chainId);
  const cookie = await signIn(mcp, wallet, sandbox.info.chainId);
  return { wallet, session, budget, cookie, token: body.token ?? "" };
}

/** What the page does every few seconds: says it is here, and gets the quotes for its budget. */
async function pageChecksIn(person: Person, threshold: bigint, cookie = person.cookie, now?: Date) {
  const response = await handleBudgetWatchRequest(
    new Request(`${ORIGIN}/api/mcp/budget`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ agentBudget: person.budget, threshold: threshold.toString() }),
    }),
    { env: () => mcp.env, database: async () => mcp.db, rateLimit, ...(now ? { now: () => now } : {}) },
  );
  return { status: response.status, body: (await response.json()) as { quotes?: Array<{ paymentId: string; quote: PaymentStatus; app: string }> } };
}

async function approve(paymentId: string, signature: string) {
  return mcp.fetch(`${ORIGIN}/api/mcp/payments/${paymentId}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ signature }) });
}

describe("an app's payment from the open page's agent budget", () => {
  test("quoted for the budget, signed by its session key in the page, paid without a wallet prompt; the app gets the data", async () => {
    const person = await personWithBudget();
    expect((await pageChecksIn(person, 20_000n)).body.quotes).toEqual([]);
    const client = await connectClient(mcp, person.token);
    const quoted = await callTool(client, "payForService", { url: express().url, query: { city: "Lisbon" } });
    expect(quoted).toMatchObject({ status: "awaiting-approval", paidFrom: "agent budget" });
    expect(quoted.approvalUrl).toBeUndefined();

    const { body } = await pageChecksIn(person, 20_000n);
    expect(body.quotes).toHaveLength(1);
    const [waiting] = body.quotes ?? [];
    if (!waiting) throw new Error("no quote for the budget");
    expect(waiting).toMatchObject({ paymentId: quoted.paymentId, app: "Cursor", quote: { paidFrom: "agent-budget" } });
    // What to sign, not the approval token (which binds the budget's signed delegation).
    expect(waiting.quote.approval?.typedData).toBeDefined();
    expect(waiting.quote.approval?.token).toBeUndefined();
    const walletBefore = await balanceOf(person.wallet.address);
    const sessionBefore = await balanceOf(person.session.address);
    const approved = await approve(waiting.paymentId, await signQuote(person.session, waiting.quote));
    expect(approved.status).toBe(200);
    // The budget's session key pays, but speaks for nobody: its signature starts no session of the wallet's.
    expect(approved.headers.get("set-cookie")).toBeNull();

    expect(await callTool(client, "getPayment", { paymentId: waiting.paymentId, waitSeconds: 10 })).toMatchObject({ status: "delivered", data: { city: "Lisbon" } });
    expect(await balanceOf(person.session.address)).toBe(sessionBefore - BigInt(express().priceAtomic));
    expect(await balanceOf(person.wallet.address)).toBe(walletBefore);
    const record = await findPayment(mcp.db, waiting.paymentId);
    expect(record?.wallet.toLowerCase()).toBe(person.wallet.address.toLowerCase());
    expect(record?.payer?.toLowerCase()).toBe(person.session.address.toLowerCase());
    // Paid: no longer waiting for the page.
    expect((await pageChecksIn(person, 20_000n)).body.quotes).toEqual([]);
    await client.close();
  });

  test("above the threshold, or with the page gone quiet, the quote asks the wallet through its link", async () => {
    const person = await personWithBudget();
    const client = await connectClient(mcp, person.token);
    await pageChecksIn(person, 1_000n);
    const above = await callTool(client, "payForService", { url: express().url, query: { city: "Paris" } });
    expect(above).toMatchObject({ status: "awaiting-approval", approvalUrl: expect.stringContaining("/approve/") });
    expect(above.paidFrom).toBeUndefined();
    await client.close();

    const quiet = await personWithBudget();
    const quietClient = await connectClient(mcp, quiet.token);
    await pageChecksIn(quiet, 20_000n);
    mcp.setNow(new Date(Date.now() + WATCH_FRESH_MS + 1_000));
    try {
      const asked = await callTool(quietClient, "payForService", { url: express().url, query: { city: "Berlin" } });
      expect(asked).toMatchObject({ status: "awaiting-approval", approvalUrl: expect.stringContaining("/approve/") });
    } finally {
      mcp.setNow(undefined);
    }
    await quietClient.close();
  });

  test("a budget kept in a form the page never sends (changed by hand) is no budget: the app's quote asks the wallet through its link", async () => {
    const person = await personWithBudget();
    const client = await connectClient(mcp, person.token);
    await pageChecksIn(person, 20_000n);
    await mcp.db.query("UPDATE mcp_budget_watch SET budget = jsonb_set(budget, '{maxAmount}', '\"all of it\"') WHERE lower(budget->>'session') = lower($1)", [person.session.address]);
    const asked = await callTool(client, "payForService", { url: express().url, query: { city: "Singapore" } });
    expect(asked).toMatchObject({ status: "awaiting-approval", approvalUrl: expect.stringContaining("/approve/") });
    expect(asked.paidFrom).toBeUndefined();
    await client.close();
  });

  test("apps' payments without a prompt have their own bound, though the chat's cooldown is off: one every 10 s, 20 an hour", async () => {
    expect(mcp.env.CHAT_COOLDOWN_SECONDS).toBe(0);
    const person = await personWithBudget();
    const client = await connectClient(mcp, person.token);
    const start = Date.now();
    const cities = ["Lisbon", "London", "Paris", "Berlin", "Tokyo"];
    const quoteAt = async (offsetSeconds: number, city = cities[offsetSeconds % cities.length] ?? "Lisbon") => {
      const at = new Date(start + offsetSeconds * 1000);
      mcp.setNow(at);
      await pageChecksIn(person, 20_000n, person.cookie, at);
      return callTool(client, "payForService", { url: express().url, query: { city } });
    };
    try {
      expect(await quoteAt(0)).toMatchObject({ paidFrom: "agent budget" });
      // A second one at once asks the wallet, and says why.
      const next = await quoteAt(1);
      expect(next).toMatchObject({ status: "awaiting-approval", approvalUrl: expect.stringContaining("/approve/") });
      expect(next.paidFrom).toBeUndefined();
      expect(next.summary).toMatch(/at most once every 10 s and 20 times an hour/);
      // Ten seconds on, the budget pays again; 20 in the hour, and the 21st asks the wallet.
      for (let index = 1; index < SILENT_PER_HOUR; index += 1) {
        expect(await quoteAt(index * SILENT_SPACING_SECONDS + 1)).toMatchObject({ paidFrom: "agent budget" });
      }
      const past = await quoteAt(SILENT_PER_HOUR * SILENT_SPACING_SECONDS + 1);
      expect(past.paidFrom).toBeUndefined();
      expect(past.approvalUrl).toEqual(expect.stringContaining("/approve/"));
      // An hour after the first, it pays without a prompt again.
      expect(await quoteAt(3_600 + 2)).toMatchObject({ paidFrom: "agent budget" });
    } finally {
      mcp.setNow(undefined);
      await client.close();
    }
  });

  test("a quote the wallet must sign after all (above the threshold) gives back the budget's slot: a small one right after is paid without a prompt", async () => {
    const person = await personWithBudget();
    const client = await connectClient(mcp, person.token);
    const at = new Date();
    mcp.setNow(at);
    try {
      // A threshold under the express weather's price: this quote asks the wallet.
      await pageChecksIn(person, 1_000n, person.cookie, at);
      const above = await callTool(client, "payForService", { url: express().url, query: { city: "Paris" } });
      expect(above).toMatchObject({ status: "awaiting-approval", approvalUrl: expect.stringContaining("/approve/") });
      // Within the same 10 s, under a threshold that covers it: the budget pays it.
      await pageChecksIn(person, 20_000n, person.cookie, at);
      expect(await callTool(client, "payForService", { url: express().url, query: { city: "Lisbon" } })).toMatchObject({ paidFrom: "agent budget" });
    } finally {
      mcp.setNow(undefined);
      await client.close();
    }
  });

  test("only the wallet's own session may speak for its page, with its own budget", async () => {
    const person = await personWithBudget();
    expect((await pageChecksIn(person, 20_000n, "")).status).toBe(401);
    const other = await personWithBudget();
    expect((await pageChecksIn({ ...person, cookie: other.cookie }, 20_000n)).status).toBe(400);
  });
});
