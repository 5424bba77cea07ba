// The MCP door on the sandbox (docs/contract.md, section 11): the SDK's own MCP client with an
// access grant the wallet signed discovers, compares and quotes; the person approves through
// the page's API as the page does, signing with the wallet; getPayment hands over the data.
// Grants that are missing, forged, expired, revoked or another wallet's are refused; the
// grant's limits and the chat's count one ledger; nothing is paid twice across the doors.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findPayment } from "@/lib/payments/ledger";
import type { PaymentStatus } from "@/lib/protocol/lines";
import { clearDiscoveryCache } from "@/lib/x402/discovery";
import { startSandbox, type Sandbox } from "@/sandbox";
import { grantTypedData } from "@/lib/chain/access-grant";
import { findRemotePayment } from "@/lib/remote/remote-payments";
import { callTool, connectClient, createTestMcp, issueGrant, newGrant, ORIGIN, signIn, type TestMcp } from "@/tests/helpers/mcp";
import { collectLines } from "@/tests/helpers/chat";
import { finishOf, modelCallingPayForService, newPayer, paymentsOf, sandboxEnv, sandboxService, signQuote, usdcBalance, type Payer } from "@/tests/helpers/paid-chat";

let sandbox: Sandbox;
let mcp: TestMcp;
// The same door on a database that takes its time to keep an outcome for the app.
let slowMcp: TestMcp;
let balanceOf: ReturnType<typeof usdcBalance>;

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  balanceOf = usdcBalance(sandbox);
  // The chat's model asks for the premium weather in the city the person names.
  const model = modelCallingPayForService((prompt) => ({ url: premium().url, query: { city: JSON.stringify(prompt).includes("London") ? "London" : "Lisbon" } }));
  mcp = await createTestMcp({ env: sandboxEnv(sandbox), model });
  slowMcp = await createTestMcp({ env: sandboxEnv(sandbox), slowWrites: { matching: /UPDATE mcp_payments SET result/, ms: 1_500 } });
  clearDiscoveryCache();
});
afterAll(async () => {
  await mcp?.close();
  await slowMcp?.close();
  await sandbox?.stop();
});

const premium = () => sandboxService(sandbox, "weather-express");
// Room for one payment of the premium weather (0.01) a day, not two.
const oneADay = { daily: 15_000n, weekly: 100_000n, monthly: 500_000n, perPayment: 50_000n };

async function grantedClient(payer: Payer & Parameters<typeof issueGrant>[1], limits = oneADay, door = mcp): Promise<{ client: Client; token: string }> {
  const { response, body } = await issueGrant(door, payer, newGrant(payer.address, limits), sandbox.info.chainId);
  expect(response.status, JSON.stringify(body)).toBe(201);
  const token = body.token ?? "";
  return { client: await connectClient(door, token), token };
}

type PageView = { quote: PaymentStatus; status: string; data?: unknown; wallet: string };

async function readForPage(paymentId: string, cookie?: string, door = mcp): Promise<{ status: number; body: PageView }> {
  const response = await door.fetch(`${ORIGIN}/api/mcp/payments/${paymentId}`, cookie ? { headers: { cookie } } : {});
  return { status: response.status, body: (await response.json()) as PageView };
}

async function approveInPage(paymentId: string, signature: string, door = mcp) {
  const response = await door.fetch(`${ORIGIN}/api/mcp/payments/${paymentId}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ signature }),
  });
  return { response, body: (await response.json()) as Record<string, unknown> & { updates?: PaymentStatus[]; error?: { code: string; message: string } } };
}

async function quoteWeather(client: Client, city = "Lisbon") {
  return callTool(client, "payForService", { url: premium().url, query: { city } });
}

describe("an AI app with an access grant", () => {
  test("lists the five tools, discovers and compares the sandbox's services", async () => {
    const payer = await newPayer(sandbox);
    const { client } = await grantedClient(payer);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["comparePrices", "discoverServices", "getPayment", "getSpending", "payForService"]);
    const found = await callTool(client, "discoverServices", { query: "weather" });
    const names = (found.services as Array<{ name: string }>).map((service) => service.name);
    expect(names).toEqual(expect.arrayContaining(["QuickWeather Pro", "Budget Weather"]));
    expect(found.note).toMatch(/never as instructions/);
    const compared = await callTool(client, "comparePrices", { query: "weather" });
    expect(compared.cheapest).toBe("Budget Weather");
    await client.close();
  });

  test("quotes, the person approves in the page with their wallet, and getPayment returns the data; the chain and the ledger agree", async () => {
    const payer = await newPayer(sandbox);
    const { client } = await grantedClient(payer);
    const before = await balanceOf(payer.address);

    const quoted = await quoteWeather(client);
    expect(quoted).toMatchObject({ status: "awaiting-approval", quote: { service: "QuickWeather Pro", totalUsd: premium().price, network: sandbox.info.network } });
    const paymentId = String(quoted.paymentId);
    expect(quoted.approvalUrl).toBe(`${ORIGIN}/approve/${paymentId}`);
    // Nothing moves before the person signs.
    expect(await callTool(client, "getPayment", { paymentId })).toMatchObject({ status: "awaiting-approval", approvalUrl: quoted.approvalUrl });
    expect(await findPayment(mcp.db, paymentId)).toBeUndefined();

    // The page reads the quote and shows its card; the wallet signs it.
    const page = await readForPage(paymentId);
    expect(page.status).toBe(200);
    expect(page.body.quote).toMatchObject({ paymentId, status: "awaiting-signature", amount: { total: premium().price } });
    expect(page.body.data).toBeUndefined();
    // Anyone with the link reads the card and what to sign, never the approval token the server keeps.
    const kept = await findRemotePayment(mcp.db, paymentId);
    const token = kept?.quote.approval?.token ?? "";
    expect(token.length).toBeGreaterThan(40);
    expect(page.body.quote.approval).toMatchObject({ typedData: expect.anything(), expiresAt: expect.any(String) });
    expect(page.body.quote.approval?.token).toBeUndefined();
    expect(JSON.stringify(page.body)).not.toContain(token);
    const { response, body } = await approveInPage(paymentId, await signQuote(payer, page.body.quote));
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body.updates?.map((update) => update.status)).toEqual(["submitted", "confirmed", "delivered"]);
    expect(body.data).toMatchObject({ city: "Lisbon" });
    expect(response.headers.get("set-cookie")).toMatch(/x402_session=/);

    const outcome = await callTool(client, "getPayment", { paymentId, waitSeconds: 10 });
    expect(outcome).toMatchObject({ status: "delivered", data: { city: "Lisbon" } });
    // QuickWeather Pro signs its receipts: the app is told it was checked, and by whom.
    expect(outcome.receipt).toMatchObject({ status: "verified", signer: premium().payTo });
    expect(outcome.note).toMatch(/never instructions/);
    expect(await balanceOf(payer.address)).toBe(before - BigInt(premium().priceAtomic));
    const record = await findPayment(mcp.db, paymentId);
    expect(record).toMatchObject({ status: "settled", txHash: outcome.txHash });
    expect(record?.wallet.toLowerCase()).toBe(payer.address.toLowerCase());

    // The same signature again pays nothing more.
    const again = await approveInPage(paymentId, await signQuote(payer, page.body.quote));
    expect(again.response.status).toBe(200);
    expect(await balanceOf(payer.address)).toBe(before - BigInt(premium().priceAtomic));
    // Spending over MCP names the payment.
    const spending = await callTool(client, "getSpending", { period: "day" });
    expect(spending).toMatchObject({ periods: [{ period: "day", spentUsd: premium().price }], recentPayments: [{ service: "QuickWeather Pro", txHash: outcome.txHash }] });
    await client.close();
  });

  test("a second payment past the grant's daily limit is refused, and nothing is quoted", async () => {
    const payer = await newPayer(sandbox);
    const { client } = await grantedClient(payer);
    const first = await quoteWeather(client);
    const page = await readForPage(String(first.paymentId));
    expect((await approveInPage(String(first.paymentId), await signQuote(payer, page.body.quote))).response.status).toBe(200);
    const second = await quoteWeather(client, "London");
    expect(second).toMatchObject({ status: "failed", reason: "limit-exceeded" });
    expect(String(second.summary)).toMatch(/daily \(24 h\) limit/);
    await client.close();
  });

  test("one past the limits already spent through the chat is refused: both doors count one ledger", async () => {
    const payer = await newPayer(sandbox);
    const limits = { daily: "0.015", weekly: "0.1", monthly: "0.5", perPayment: "0.05" };
    // The chat pays the premium weather first.
    const chatQuote = await collectLines(
      await mcp.chat.post({ messages: [{ role: "user", content: "What's the weather in Lisbon with QuickWeather Pro?" }], walletAddress: payer.address, spendingLimits: limits }),
    );
    const status = paymentsOf(chatQuote).find((line) => line.status === "awaiting-signature");
    expect(status, "the chat quoted a payment").toBeDefined();
    if (!status) return;
    const paid = await collectLines(
      await mcp.chat.post({
        messages: [{ role: "user", content: "What's the weather in Lisbon with QuickWeather Pro?" }],
        walletAddress: payer.address,
        spendingLimits: limits,
        payment: { paymentId: status.paymentId, token: status.approval?.token, signature: await signQuote(payer, status) },
      }),
    );
    expect(finishOf(paid)).toMatchObject({ finishReason: "payment-complete" });
    // The app's grant has the same daily limit: the chat's payment used it.
    const { client } = await grantedClient(payer);
    const refused = await quoteWeather(client);
    expect(refused).toMatchObject({ status: "failed", reason: "limit-exceeded" });
    await client.close();
  });

  test("getSpending tells an app the wallet's totals and its own payments, not the rest of the wallet's history", async () => {
    // A door of its own (grants count against the endpoint's rate limit), whose chat pays the premium weather.
    const door = await createTestMcp({ env: sandboxEnv(sandbox), model: modelCallingPayForService({ url: premium().url, query: { city: "London" } }) });
    try {
      const payer = await newPayer(sandbox);
      // The chat pays the premium weather: the wallet's, not the app's.
      const asked = { messages: [{ role: "user", content: "What's the weather in London with QuickWeather Pro?" }], walletAddress: payer.address, spendingLimits: { daily: "1", weekly: "5", monthly: "20", perPayment: "0.05" } };
      const chatQuote = paymentsOf(await collectLines(await door.chat.post(asked))).find((line) => line.status === "awaiting-signature");
      if (!chatQuote) throw new Error("the chat quoted nothing");
      const paidInChat = await collectLines(await door.chat.post({ ...asked, payment: { paymentId: chatQuote.paymentId, token: chatQuote.approval?.token, signature: await signQuote(payer, chatQuote) } }));
      const chatPayment = finishOf(paidInChat);
      expect(chatPayment).toMatchObject({ finishReason: "payment-complete", txHash: expect.any(String) });

      // The app pays one of its own.
      const roomy = { daily: 100_000n, weekly: 500_000n, monthly: 1_000_000n, perPayment: 50_000n };
      const { client } = await grantedClient(payer, roomy, door);
      const quoted = await quoteWeather(client);
      const page = await readForPage(String(quoted.paymentId), undefined, door);
      expect((await approveInPage(String(quoted.paymentId), await signQuote(payer, page.body.quote), door)).response.status).toBe(200);

      const spending = await callTool(client, "getSpending", { period: "day" });
      // Both count against the totals...
      expect(spending.periods).toEqual([expect.objectContaining({ period: "day", spentUsd: "0.02" })]);
      // ...and only the app's own payment is named.
      expect(spending.recentPayments).toEqual([expect.objectContaining({ service: "QuickWeather Pro", status: "settled" })]);
      expect(JSON.stringify(spending)).not.toContain(String(chatPayment?.txHash));
      expect(spending.history).toMatch(/Only the payments this app asked for are listed/);
      await client.close();
    } finally {
      await door.close();
    }
  });

  test("one quote per cooldown for each grant: a second one at once is answered rate-limited, with when to ask again, and nothing is quoted", async () => {
    const door = await createTestMcp({ env: sandboxEnv(sandbox, { CHAT_COOLDOWN_SECONDS: "50" }) });
    try {
      const payer = await newPayer(sandbox);
      const { client } = await grantedClient(payer, oneADay, door);
      expect(await quoteWeather(client)).toMatchObject({ status: "awaiting-approval" });
      const again = await quoteWeather(client, "London");
      expect(again).toMatchObject({ status: "rate-limited" });
      expect(Number(again.retryAfterSeconds)).toBeGreaterThan(40);
      await client.close();
    } finally {
      await door.close();
    }
  });

  test("two approvals at once, one through the chat and one through the page for the app, under a limit for one: one pays", async () => {
    const payer = await newPayer(sandbox);
    const limits = { daily: "0.015", weekly: "0.1", monthly: "0.5", perPayment: "0.05" };
    const { client } = await grantedClient(payer);
    const quoted = await quoteWeather(client);
    const page = await readForPage(String(quoted.paymentId));
    const conversation = [{ role: "user", content: "What's the weather in London with QuickWeather Pro?" }];
    const chatQuote = paymentsOf(await collectLines(await mcp.chat.post({ messages: conversation, walletAddress: payer.address, spendingLimits: limits }))).find(
      (line) => line.status === "awaiting-signature",
    );
    if (!chatQuote) throw new Error("the chat quoted nothing");
    const before = await balanceOf(payer.address);
    const [viaPage, viaChat] = await Promise.all([
      approveInPage(String(quoted.paymentId), await signQuote(payer, page.body.quote)),
      mcp.chat.post({
        messages: conversation,
        walletAddress: payer.address,
        spendingLimits: limits,
        payment: { paymentId: chatQuote.paymentId, token: chatQuote.approval?.token, signature: await signQuote(payer, chatQuote) },
      }),
    ]);
    const statuses = [viaPage.response.status, viaChat.status].sort();
    expect(statuses).toEqual([200, 403]);
    expect(await balanceOf(payer.address)).toBe(before - BigInt(premium().priceAtomic));
    await client.close();
  });
});

/** A payment an app asked for on the door whose database is slow to keep outcomes, and its quote as the page reads it. */
async function quotedOnTheSlowDoor(city: string) {
  const payer = await newPayer(sandbox);
  const { client } = await grantedClient(payer, oneADay, slowMcp);
  const paymentId = String((await quoteWeather(client, city)).paymentId);
  const { body } = await readForPage(paymentId, undefined, slowMcp);
  return { payer, client, paymentId, quote: body.quote };
}

describe("the outcome the app reads, on a database slow to keep it", () => {
  test("once the page is told the payment is paid, the app's getPayment reads it delivered, with the data", async () => {
    const { payer, client, paymentId, quote } = await quotedOnTheSlowDoor("Lisbon");
    const { response, body } = await approveInPage(paymentId, await signQuote(payer, quote), slowMcp);
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ status: "delivered", data: { city: "Lisbon" } });
    expect(await callTool(client, "getPayment", { paymentId })).toMatchObject({ status: "delivered", data: { city: "Lisbon" }, txHash: body.txHash });
    await client.close();
  });

  test("an app waiting while the page approves is handed the service's data, not the bare settlement", async () => {
    const { payer, client, paymentId, quote } = await quotedOnTheSlowDoor("London");
    const waited = callTool(client, "getPayment", { paymentId, waitSeconds: 15 });
    const approved = approveInPage(paymentId, await signQuote(payer, quote), slowMcp);
    const outcome = await waited;
    expect(outcome).toMatchObject({ status: "delivered", data: { city: "London" } });
    expect(outcome.dataComing).toBeUndefined();
    expect((await approved).response.status).toBe(200);
    await client.close();
  });

  test("settled with the answer still being kept: the app is told it is paid, with its transaction, and that the data is on its way", async () => {
    const { payer, client, paymentId, quote } = await quotedOnTheSlowDoor("Paris");
    const approved = approveInPage(paymentId, await signQuote(payer, quote), slowMcp);
    // Read as soon as the ledger has it settled, while the outcome is still being kept.
    let record = await findPayment(slowMcp.db, paymentId);
    while (record?.status !== "settled") {
      await new Promise((resolve) => setTimeout(resolve, 20));
      record = await findPayment(slowMcp.db, paymentId);
    }
    const now = await callTool(client, "getPayment", { paymentId });
    expect(now).toMatchObject({ status: "settled", txHash: record.txHash, dataComing: true });
    expect(String(now.summary)).toMatch(/on its way/);
    expect((await approved).body).toMatchObject({ status: "delivered", data: { city: "Paris" } });
    expect(await callTool(client, "getPayment", { paymentId })).toMatchObject({ status: "delivered", data: { city: "Paris" } });
    await client.close();
  });
});

describe("what the door refuses", () => {
  const post = (body: string, headers: Record<string, string> = {}) =>
    mcp.fetch(`${ORIGIN}/api/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body,
    });
  const listTools = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });

  test("no grant, a changed grant, an expired grant and a revoked grant: 401 with a clear message", async () => {
    const payer = await newPayer(sandbox, 0n);
    const missing = await post(listTools);
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toMatch(/Connect an AI app/);
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/);

    const { token } = await grantedClient(payer);
    const [body, mac] = token.split(".");
    const claims = JSON.parse(Buffer.from(String(body).replace("x402mcp_", ""), "base64url").toString());
    claims.grant.limits.daily = "1000000000";
    const changed = `x402mcp_${Buffer.from(JSON.stringify(claims)).toString("base64url")}.${mac}`;
    const forged = await post(listTools, { authorization: `Bearer ${changed}` });
    expect(forged.status).toBe(401);
    expect(await forged.text()).toMatch(/not issued by this server, or it was changed/);

    expect((await post(listTools, { authorization: `Bearer ${token}` })).status).toBe(200);
    mcp.setNow(new Date(Date.now() + 8 * 86_400_000));
    try {
      const expired = await post(listTools, { authorization: `Bearer ${token}` });
      expect(expired.status).toBe(401);
      expect(await expired.text()).toMatch(/expired/);
    } finally {
      mcp.setNow(undefined);
    }

    // Revoked by the wallet's own session: issuing the grant started none, signing in does.
    const { response, body: issued } = await issueGrant(mcp, payer, newGrant(payer.address, oneADay), sandbox.info.chainId);
    expect(response.headers.getSetCookie()).toEqual([]);
    const grant = issued.grant;
    if (!grant || !issued.token) throw new Error("no grant issued");
    const revokeAs = (cookie?: string, body: Record<string, unknown> = { id: grant.id, validUntil: grant.validUntil }) =>
      mcp.fetch(`${ORIGIN}/api/mcp/grants`, { method: "DELETE", headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) }, body: JSON.stringify(body) });
    expect((await revokeAs()).status).toBe(401);
    expect((await post(listTools, { authorization: `Bearer ${issued.token}` })).status).toBe(200);
    expect((await revokeAs(await signIn(mcp, payer, sandbox.info.chainId))).status).toBe(200);
    const revoked = await post(listTools, { authorization: `Bearer ${issued.token}` });
    expect(revoked.status).toBe(401);
    expect(await revoked.text()).toMatch(/revoked/);
  });

  test("a grant for another server is not issued: a copy of the site elsewhere gets the person's signature, and it works nowhere here", async () => {
    const payer = await newPayer(sandbox, 0n);
    const elsewhere = { ...newGrant(payer.address, oneADay), server: "https://x402-agent.example" };
    const { response, body } = await issueGrant(mcp, payer, elsewhere, sandbox.info.chainId);
    expect(response.status).toBe(400);
    expect(body.error?.message).toMatch(/is for https:\/\/x402-agent\.example, not for this server \(http:\/\/localhost:3000\)/);
    expect(body.token).toBeUndefined();
    // Signed for the copy, then presented as if for this server: the signing domain names the server too.
    const signedThere = await payer.signTypedData(grantTypedData(elsewhere, sandbox.info.chainId));
    const relabelled = await mcp.fetch(`${ORIGIN}/api/mcp/grants`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ grant: { ...elsewhere, server: ORIGIN }, chainId: sandbox.info.chainId, signature: signedThere }),
    });
    expect(relabelled.status).toBe(401);
    // A grant for a chain this agent does not pay on.
    const otherChain = await issueGrant(mcp, payer, newGrant(payer.address, oneADay), 8453);
    expect(otherChain.response.status).toBe(400);
    expect(otherChain.body.error?.message).toMatch(/Chain 8453 is not one this agent pays on/);
  });

  test("a token is not a grant: posted back it starts no session and issues nothing; it carries no signature of the wallet's", async () => {
    const payer = await newPayer(sandbox, 0n);
    const { body } = await issueGrant(mcp, payer, newGrant(payer.address, oneADay), sandbox.info.chainId);
    const token = body.token ?? "";
    const sealed = JSON.parse(Buffer.from(token.slice("x402mcp_".length).split(".")[0] ?? "", "base64url").toString("utf8"));
    expect(Object.keys(sealed).sort()).toEqual(["chainId", "grant", "v"]);
    expect(Object.keys(sealed.grant).sort()).toEqual(["id", "label", "limits", "server", "validUntil", "wallet"]);
    expect(token).not.toMatch(/signature/);
    for (const posted of [sealed, { ...sealed, signature: "0x00" }, token]) {
      const response = await mcp.fetch(`${ORIGIN}/api/mcp/grants`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(posted) });
      expect(response.status).toBe(400);
      expect(response.headers.getSetCookie()).toEqual([]);
    }
    // Without a session the wallet's history stays closed to whoever holds the token.
    const history = await mcp.fetch(`${ORIGIN}/api/mcp/grants`, { method: "DELETE", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: sealed.grant.id }) });
    expect(history.status).toBe(401);
  });

  test("a revoked grant is not issued again, and its revocation outlasts the end the page names", async () => {
    const payer = await newPayer(sandbox, 0n);
    const grant = newGrant(payer.address, oneADay, { days: 30 });
    const signature = await payer.signTypedData(grantTypedData(grant, sandbox.info.chainId));
    const post = () =>
      mcp.fetch(`${ORIGIN}/api/mcp/grants`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ grant, chainId: sandbox.info.chainId, signature }) });
    const first = (await (await post()).json()) as { token: string };
    const cookie = await signIn(mcp, payer, sandbox.info.chainId);
    // The page (or anyone with the session) says the grant ends in a minute.
    const revoke = await mcp.fetch(`${ORIGIN}/api/mcp/grants`, {
      method: "DELETE",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ id: grant.id, validUntil: Math.floor(Date.now() / 1000) + 60 }),
    });
    expect(revoke.status).toBe(200);
    const reissued = await post();
    expect(reissued.status).toBe(401);
    expect(await reissued.text()).toMatch(/revoked/);
    // Two days on, another revocation clears what is past its time: this one is not.
    mcp.setNow(new Date(Date.now() + 2 * 86_400_000));
    try {
      const other = newGrant(payer.address, oneADay);
      await mcp.fetch(`${ORIGIN}/api/mcp/grants`, { method: "DELETE", headers: { "content-type": "application/json", cookie: await signIn(mcp, payer, sandbox.info.chainId) }, body: JSON.stringify({ id: other.id }) });
      const stillRevoked = await post();
      expect(stillRevoked.status).toBe(401);
      const call = await mcp.fetch(`${ORIGIN}/api/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${first.token}` },
        body: listTools,
      });
      expect(call.status).toBe(401);
      expect(await call.text()).toMatch(/revoked/);
    } finally {
      mcp.setNow(undefined);
    }
  });

  test("a body sent as another media type, even one that names application/json in a parameter, is refused with 415 before it is read", async () => {
    // A door of its own: these requests count against the grants endpoint's rate limit.
    const door = await createTestMcp({ env: sandboxEnv(sandbox) });
    try {
      const payer = await newPayer(sandbox, 0n);
      const grant = newGrant(payer.address, oneADay);
      const signature = await payer.signTypedData(grantTypedData(grant, sandbox.info.chainId));
      const cookie = await signIn(door, payer, sandbox.info.chainId);
      // What a form on another site may send without asking (no CORS preflight), with the wallet's own cookie.
      for (const contentType of ["text/plain; charset=application/json", "text/plain", "application/jsonx"]) {
        const issued = await door.fetch(`${ORIGIN}/api/mcp/grants`, { method: "POST", headers: { "content-type": contentType, cookie }, body: JSON.stringify({ grant, chainId: sandbox.info.chainId, signature }) });
        expect([contentType, issued.status]).toEqual([contentType, 415]);
        const revoked = await door.fetch(`${ORIGIN}/api/mcp/grants`, { method: "DELETE", headers: { "content-type": contentType, cookie }, body: JSON.stringify({ id: grant.id }) });
        expect([contentType, revoked.status]).toEqual([contentType, 415]);
      }
      // The same body as JSON is taken.
      const issued = await door.fetch(`${ORIGIN}/api/mcp/grants`, { method: "POST", headers: { "content-type": "application/json; charset=utf-8", cookie }, body: JSON.stringify({ grant, chainId: sandbox.info.chainId, signature }) });
      expect(issued.status).toBe(201);
    } finally {
      await door.close();
    }
  });

  test("a grant signed by another key, or for another wallet, is not issued", async () => {
    const payer = await newPayer(sandbox, 0n);
    const stranger = await newPayer(sandbox, 0n);
    const { response, body } = await issueGrant(mcp, stranger, newGrant(payer.address, oneADay), sandbox.info.chainId);
    expect(response.status).toBe(401);
    expect(body.error?.message).toMatch(/not signed by/);
    const tooLong = await issueGrant(mcp, payer, newGrant(payer.address, oneADay, { days: 400 }), sandbox.info.chainId);
    expect(tooLong.response.status).toBe(400);
  });

  test("malformed JSON-RPC, an unknown tool, oversized arguments: clean errors, nothing paid", async () => {
    const payer = await newPayer(sandbox);
    const { client, token } = await grantedClient(payer);
    const auth = { authorization: `Bearer ${token}` };
    // A plain client that says nothing of what it accepts gets JSON, as curl would.
    const plain = await mcp.fetch(`${ORIGIN}/api/mcp`, { method: "POST", headers: { "content-type": "application/json", ...auth }, body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }) });
    expect(plain.status).toBe(200);
    expect(((await plain.json()) as { result: { tools: unknown[] } }).result.tools).toHaveLength(5);
    const parse = await post("{not json", auth);
    expect(parse.status).toBe(400);
    expect(await parse.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } });
    const huge = await post(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "payForService", arguments: { url: premium().url, body: { text: "x".repeat(200_000) } } } }), auth);
    expect(huge.status).toBe(413);
    const unknown = await client.callTool({ name: "transferAllFunds", arguments: {} }).catch((error: unknown) => error);
    expect(unknown instanceof Error ? unknown.message : JSON.stringify(unknown)).toMatch(/not found|transferAllFunds/i);
    const badInput = await client.callTool({ name: "payForService", arguments: { url: "file:///etc/passwd" } }).catch((error: unknown) => error);
    expect(JSON.stringify(badInput instanceof Error ? badInput.message : badInput)).toMatch(/url/i);
    await client.close();
  });

  test("a payment whose kept quote was changed by hand is not one this server holds: the page and the app find nothing to approve or read", async () => {
    const payer = await newPayer(sandbox);
    const { client } = await grantedClient(payer);
    const paymentId = String((await quoteWeather(client)).paymentId);
    expect((await readForPage(paymentId)).status).toBe(200);
    await mcp.db.query("UPDATE mcp_payments SET quote = jsonb_set(quote, '{amount,total}', '\"free\"') WHERE payment_id = $1", [paymentId]);
    expect((await readForPage(paymentId)).status).toBe(404);
    const approved = await approveInPage(paymentId, `0x${"11".repeat(65)}`);
    expect(approved.response.status).toBe(404);
    expect(await callTool(client, "getPayment", { paymentId })).toMatchObject({ paymentId, status: "not-found" });
    expect(await findPayment(mcp.db, paymentId)).toBeUndefined();
    await client.close();
  });

  test("another wallet's payment: not found to the app, and the page shows its data only to its own wallet", async () => {
    const payer = await newPayer(sandbox);
    const other = await newPayer(sandbox);
    const { client } = await grantedClient(payer);
    const { client: otherClient } = await grantedClient(other);
    const quoted = await quoteWeather(client);
    const paymentId = String(quoted.paymentId);
    const page = await readForPage(paymentId);
    const approved = await approveInPage(paymentId, await signQuote(payer, page.body.quote));
    expect(approved.response.status).toBe(200);
    const seen = await callTool(otherClient, "getPayment", { paymentId });
    expect(seen).toEqual({ paymentId, status: "not-found", summary: expect.stringMatching(/No payment/) });
    // The page without the wallet's session: where the payment stands, never its data.
    const stranger = await readForPage(paymentId);
    expect(stranger.body).toMatchObject({ status: "delivered", summary: expect.stringMatching(/^Paid \$0\.01 USDC to QuickWeather Pro/) });
    expect(JSON.stringify(stranger.body)).not.toMatch(/Lisbon|temperature/i);
    const cookie = (approved.response.headers.get("set-cookie") ?? "").split(";")[0];
    expect((await readForPage(paymentId, cookie)).body.data).toMatchObject({ city: "Lisbon" });
    // The other wallet cannot approve it: the signature must be the quoted wallet's.
    const second = await quoteWeather(otherClient);
    const otherPage = await readForPage(String(second.paymentId));
    const wrong = await approveInPage(String(second.paymentId), await signQuote(payer, otherPage.body.quote));
    expect(wrong.response.status).toBe(400);
    expect(await findPayment(mcp.db, String(second.paymentId))).toBeUndefined();
    expect((await readForPage("pay_000000000000000000000000")).status).toBe(404);
    await client.close();
    await otherClient.close();
  });
});
