// GET /api/spending through the route's own GET, on the app's real database wiring (PGlite in a
// temporary data folder, or DATABASE_URL naming a scratch PostgreSQL database in its pass):
// settled payments only, sums per rolling period, transaction links, validation and the
// per-client rate limit.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { GET as GET_HISTORY } from "@/app/api/spending/history/route";
import { GET } from "@/app/api/spending/route";
import type { HistoryPage } from "@/lib/account/payment-history";
import { getDatabase, type Database } from "@/lib/db";
import { markFailed, markSettled, reservePayment, type NewPayment } from "@/lib/payments/ledger";
import type { SpendingLimits } from "@/lib/payments/limits";
import type { SpendingReport } from "@/lib/payments/spending-report";
import { serverEnv } from "@/lib/env";
import { sessionCookie } from "@/lib/session";
import { createScratchDatabase, testServerUrl, type ScratchDatabase } from "@/tests/helpers/database";

let dataDir: string;
let db: Database;
let scratch: ScratchDatabase | undefined;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "spending-route-"));
  process.env.DATA_DIR = dataDir;
  const serverUrl = testServerUrl();
  if (serverUrl) {
    scratch = await createScratchDatabase(serverUrl);
    process.env.DATABASE_URL = scratch.url;
  }
  // As behind one proxy, which appends the client's address: each test client is its own.
  process.env.TRUSTED_PROXY_HOPS = "1";
  db = await getDatabase();
});
afterAll(async () => {
  await db.close();
  await scratch?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
const limits: SpendingLimits = { daily: 10n ** 12n, weekly: 10n ** 12n, monthly: 10n ** 12n, perPayment: 10n ** 12n };
let counter = 0;

type Recorded = { paymentId: string; txHash: `0x${string}` };

/** Reserves a payment `ago` ms back and settles it, fails it, or leaves it reserved. */
async function record(
  wallet: string,
  amount: bigint,
  { ago, outcome = "settled", network = "eip155:31337", service = "Weather" }: {
    ago: number;
    outcome?: "settled" | "failed" | "reserved";
    network?: string;
    service?: string;
  },
): Promise<Recorded> {
  counter += 1;
  const at = new Date(Date.now() - ago);
  const payment: NewPayment = {
    paymentId: `pay_spending_${counter}`,
    wallet,
    network,
    asset: "0x0000000000000000000000000000000000000001",
    payTo: "0x0000000000000000000000000000000000000002",
    amount,
    nonce: `0x${(1000 + counter).toString(16).padStart(64, "0")}`,
    serviceName: service,
    serviceUrl: `http://127.0.0.1:4100/${service.toLowerCase()}`,
  };
  const reserved = await reservePayment(db, { payment, limits, now: at });
  expect(reserved.kind).toBe("reserved");
  const txHash = `0x${counter.toString(16).padStart(64, "c")}` as const;
  if (outcome === "settled") await markSettled(db, { paymentId: payment.paymentId, txHash, outcome: {}, now: new Date(at.getTime() + 5_000) });
  if (outcome === "failed") await markFailed(db, { paymentId: payment.paymentId, failureCode: "payment-failed", outcome: {} });
  return { paymentId: payment.paymentId, txHash };
}

let ip = 0;
/**
 * Each call comes from its own client unless one is given, so the rate limit stays out of the
 * way; `signedInAs` sends that wallet's session cookie, as its own signed-in page does.
 */
function get(query: string, client = `203.0.113.${(ip += 1)}`, { signedInAs, path = "" }: { signedInAs?: string | string[]; path?: "" | "/history" } = {}): Promise<Response> {
  const url = `http://localhost/api/spending${path}${query}`;
  // One session may name a wallet of each family: each proves itself in turn, as a page's would.
  let session: string | undefined;
  for (const one of typeof signedInAs === "string" ? [signedInAs] : (signedInAs ?? [])) {
    session = sessionCookie(new Request(url, session ? { headers: { cookie: session } } : {}), one, serverEnv()).split(";")[0];
  }
  return (path === "/history" ? GET_HISTORY : GET)(new Request(url, { headers: { "x-forwarded-for": client, ...(session ? { cookie: session } : {}) } }));
}

/** The report the wallet's own signed-in page reads. */
async function report(query: string): Promise<SpendingReport> {
  const owner = new URLSearchParams(query).get("wallet") ?? undefined;
  const response = await get(query, undefined, owner ? { signedInAs: owner } : {});
  expect(response.status).toBe(200);
  expect(response.headers.get("cache-control")).toBe("no-store");
  return (await response.json()) as SpendingReport;
}

const usd = (micros: number) => BigInt(micros);

describe("GET /api/spending", () => {
  const wallet = "0x52908400098527886E0F7030069857D2E4169EE7"; // EIP-55 checksummed
  const solanaWallet = "9jsJcfzVQmx668dtmJMTGk37wvaWVaD87GnNbpY3RQpR";
  const paid: Record<string, Recorded> = {};

  beforeAll(async () => {
    paid.old = await record(wallet, usd(80_000), { ago: 40 * DAY, service: "Archive" });
    paid.tenDays = await record(wallet, usd(40_000), { ago: 10 * DAY, network: "eip155:8453", service: "Quotes" });
    paid.threeDays = await record(wallet, usd(20_000), { ago: 3 * DAY });
    paid.hour = await record(wallet, usd(10_000), { ago: HOUR, service: "News" });
    await record(wallet, usd(500_000), { ago: HOUR, outcome: "reserved" });
    await record(wallet, usd(700_000), { ago: 2 * HOUR, outcome: "failed" });
    await record("0x000000000000000000000000000000000000bEEF", usd(900_000), { ago: HOUR });
  });

  test("sums settled payments per rolling period, lists them newest first with links", async () => {
    const body = await report(`?wallet=${wallet}`);
    expect(body.wallet).toBe(wallet);
    expect(body.periods.map(({ period, spentUsd }) => [period, spentUsd])).toEqual([
      ["day", "0.01"],
      ["week", "0.03"],
      ["month", "0.07"],
    ]);
    const now = Date.now();
    for (const [entry, length] of [[body.periods[0], DAY], [body.periods[1], 7 * DAY], [body.periods[2], 30 * DAY]] as const) {
      expect(Math.abs(new Date(entry?.since ?? 0).getTime() - (now - length))).toBeLessThan(10_000);
    }
    expect(body.recent.map((payment) => payment.paymentId)).toEqual(
      [paid.hour, paid.threeDays, paid.tenDays, paid.old].map((payment) => payment?.paymentId),
    );
    const [latest] = body.recent;
    expect(latest).toEqual({
      paymentId: paid.hour?.paymentId,
      service: { name: "News", url: "http://127.0.0.1:4100/news" },
      network: "eip155:31337",
      amountUsd: "0.01",
      txHash: paid.hour?.txHash,
      explorerUrl: `/tx/eip155:31337/${paid.hour?.txHash}`,
      settledAt: expect.any(String) as unknown,
    });
    expect(Math.abs(new Date(latest?.settledAt ?? 0).getTime() - (now - HOUR + 5_000))).toBeLessThan(10_000);
    expect(body.recent[2]?.explorerUrl).toBe(`https://basescan.org/tx/${paid.tenDays?.txHash}`);
  });

  test("reserved, failed and other wallets' payments never appear", async () => {
    const body = await report(`?wallet=${wallet}`);
    expect(body.recent).toHaveLength(4);
    expect(body.recent.map((payment) => payment.amountUsd)).not.toContain("0.5");
    expect(body.recent.map((payment) => payment.amountUsd)).not.toContain("0.7");
    expect(body.recent.map((payment) => payment.amountUsd)).not.toContain("0.9");
    const stranger = await report("?wallet=0x0000000000000000000000000000000000000001");
    expect(stranger.periods.map((entry) => entry.spentUsd)).toEqual(["0", "0", "0"]);
    expect(stranger.recent).toEqual([]);
  });

  test("history is only for the wallet's own session: anyone else gets the totals the chain already shows, and no payments", async () => {
    const own = await report(`?wallet=${wallet}`);
    expect(own.signedIn).toBe(true);
    for (const response of [
      await get(`?wallet=${wallet}`),
      await get(`?wallet=${wallet}`, undefined, { signedInAs: "0x000000000000000000000000000000000000bEEF" }),
    ]) {
      expect(response.status).toBe(200);
      const body = (await response.json()) as SpendingReport;
      expect(body.signedIn).toBe(false);
      expect(body.recent).toEqual([]);
      expect(body.periods.map(({ spentUsd }) => spentUsd)).toEqual(own.periods.map(({ spentUsd }) => spentUsd));
      expect(JSON.stringify(body)).not.toMatch(/News|Quotes|Archive|pay_spending/);
    }
    // A session cookie that this server did not sign is no session.
    const forged = await GET(
      new Request(`http://localhost/api/spending?wallet=${wallet}`, {
        headers: { "x-forwarded-for": "203.0.113.250", cookie: `x402_session=${Buffer.from(JSON.stringify({ w: wallet, e: 4102444800 })).toString("base64url")}.AAAA` },
      }),
    );
    expect(((await forged.json()) as SpendingReport).recent).toEqual([]);
  });

  test("checksummed and lowercase addresses read the same wallet", async () => {
    // The windows' start moves with the clock between two reads; everything else is the same.
    const read = async (query: string) => {
      const body = await report(query);
      return { ...body, periods: body.periods.map(({ period, spentUsd }) => ({ period, spentUsd })) };
    };
    const checksummed = await read(`?wallet=${wallet}`);
    const lower = await read(`?wallet=${wallet.toLowerCase()}`);
    const upper = await read(`?wallet=0x${wallet.slice(2).toUpperCase()}`);
    expect(checksummed.wallet).toBe(wallet);
    expect(lower).toEqual(checksummed);
    expect(upper).toEqual(checksummed);
  });

  test("a payment settled before settlement times were recorded shows its creation time", async () => {
    const other = "0x00000000000000000000000000000000000000C1";
    const earlier = await record(other, usd(30_000), { ago: 2 * DAY });
    await db.query("UPDATE payments SET settled_at = NULL WHERE payment_id = $1", [earlier.paymentId]);
    const body = await report(`?wallet=${other}`);
    const created = Date.now() - 2 * DAY;
    expect(Math.abs(new Date(body.recent[0]?.settledAt ?? 0).getTime() - created)).toBeLessThan(10_000);
    expect(body.periods.map((entry) => entry.spentUsd)).toEqual(["0", "0.03", "0.03"]);
  });

  test("at most 20 recent payments, the newest", async () => {
    const busy = "0x00000000000000000000000000000000000000C2";
    for (let index = 0; index < 22; index += 1) await record(busy, usd(1_000), { ago: (index + 1) * HOUR });
    const body = await report(`?wallet=${busy}`);
    expect(body.recent).toHaveLength(20);
    expect(body.periods.map((entry) => entry.spentUsd)).toEqual(["0.022", "0.022", "0.022"]);
    const times = body.recent.map((payment) => new Date(payment.settledAt).getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
    // The two oldest (21 and 22 hours ago) are the ones left out.
    expect(Math.abs((times.at(-1) ?? 0) - (Date.now() - 20 * HOUR + 5_000))).toBeLessThan(10_000);
  });

  test.each([
    ["no wallet", ""],
    ["an empty wallet", "?wallet="],
    ["not an address", "?wallet=0xnope"],
    ["a leading space", `?wallet=%200x52908400098527886E0F7030069857D2E4169EE7`],
    ["a 0X prefix", "?wallet=0X52908400098527886E0F7030069857D2E4169EE7"],
    ["a wrong checksum", "?wallet=0x52908400098527886E0F7030069857D2E4169ee7"],
    ["two wallets", "?wallet=0x0000000000000000000000000000000000000001&wallet=0x0000000000000000000000000000000000000002"],
    ["an array-style name", "?wallet[]=0x0000000000000000000000000000000000000001"],
    ["41 hex digits", `?wallet=0x${"1".repeat(41)}`],
  ])("%s: 400 bad-request, never a 500", async (_name, query) => {
    const response = await get(query);
    expect(response.status).toBe(400);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("bad-request");
  });

  test("a person's EVM and Solana wallets are read together: the totals count both, and payments are listed only for the wallets signed in", async () => {
    const onSolana = await record(solanaWallet, usd(5_000), { ago: HOUR, network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", service: "Lexicon" });
    const both = `?wallet=${wallet}&wallet=${solanaWallet}`;
    const read = async (signedInAs?: string[]) => {
      const response = await get(both, undefined, signedInAs ? { signedInAs } : {});
      expect(response.status).toBe(200);
      return (await response.json()) as SpendingReport;
    };

    const stranger = await read();
    expect(stranger).toMatchObject({ wallet, wallets: [wallet, solanaWallet], signedIn: false, recent: [] });
    expect(stranger.periods.map((entry) => entry.spentUsd)).toEqual(["0.015", "0.035", "0.075"]);

    // Only the EVM wallet signed in: its payments are listed, the Solana wallet's are not.
    const halfway = await read([wallet]);
    expect(halfway.signedIn).toBe(false);
    expect(halfway.recent.map((payment) => payment.paymentId)).not.toContain(onSolana.paymentId);
    expect(halfway.recent).toHaveLength(4);

    const own = await read([wallet, solanaWallet]);
    expect(own.signedIn).toBe(true);
    expect(own.recent[0]).toMatchObject({ paymentId: onSolana.paymentId, network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", service: { name: "Lexicon" } });
  });

  test("bad-request messages say what is wrong", async () => {
    const message = async (query: string) => ((await (await get(query)).json()) as { error: { message: string } }).error.message;
    expect(await message("")).toMatchInlineSnapshot(`"The wallet query parameter is required."`);
    expect(await message("?wallet=0xnope")).toMatchInlineSnapshot(`"The wallet query parameter must be 0x followed by 40 hex digits."`);
    expect(await message("?wallet=0x52908400098527886E0F7030069857D2E4169ee7")).toMatchInlineSnapshot(`"The wallet query parameter has a wrong EIP-55 checksum."`);
    expect(await message("?wallet=0x1&wallet=0x2")).toMatchInlineSnapshot(`"The wallet query parameter must be 0x followed by 40 hex digits."`);
    expect(await message(`?wallet=${wallet}&wallet=${wallet}`)).toMatchInlineSnapshot(`"The wallet query parameter must name at most one wallet per chain family."`);
    expect(await message(`?wallet=${wallet}&wallet=${solanaWallet}&wallet=${solanaWallet}`)).toMatchInlineSnapshot(`"The wallet query parameter must be given at most twice (an EVM and a Solana wallet)."`);
    expect(await message("?wallet=not-an-address")).toMatchInlineSnapshot(`"The wallet query parameter must be an EVM address (0x and 40 hex digits) or a Solana address (32 to 44 base58 characters)."`);
  });

  test("a client over 60 requests a minute gets 429 with Retry-After; others still pass", async () => {
    const client = "198.51.100.60";
    const statuses: number[] = [];
    for (let index = 0; index < 60; index += 1) statuses.push((await get(`?wallet=${wallet}`, client)).status);
    expect(new Set(statuses)).toEqual(new Set([200]));
    const limited = await get(`?wallet=${wallet}`, client);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("cache-control")).toBe("no-store");
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const body = (await limited.json()) as { error: { code: string; details: { retryAfterSeconds: number } } };
    expect(body.error).toMatchObject({ code: "rate-limited", details: { retryAfterSeconds: retryAfter } });
    expect((await get(`?wallet=${wallet}`, "198.51.100.61")).status).toBe(200);
  });
});

describe("GET /api/spending/history", () => {
  const wallet = "0x1111111111111111111111111111111111111111";
  const other = "0x2222222222222222222222222222222222222222";
  const history = (query: string, options: { signedInAs?: string | string[] } = { signedInAs: wallet }) => get(query, undefined, { ...options, path: "/history" });
  const page = async (query: string) => {
    const response = await history(query);
    expect(response.status).toBe(200);
    return (await response.json()) as HistoryPage;
  };

  beforeAll(async () => {
    // 120 payments over 60 days, two services; one failed and one reserved, which never show.
    for (let index = 0; index < 120; index += 1) {
      await record(wallet, usd(1_000 + index), { ago: (index + 1) * 12 * HOUR, service: index % 3 === 0 ? "Quotes" : "Weather" });
    }
    await record(wallet, usd(5_000_000), { ago: HOUR, outcome: "failed" });
    await record(wallet, usd(6_000_000), { ago: HOUR, outcome: "reserved" });
    await record(other, usd(7_000), { ago: HOUR, service: "Secret" });
  });

  test("pages through every settled payment, newest first, each exactly once", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const body = await page(`?wallet=${wallet}&limit=50${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...body.payments.map((payment) => payment.paymentId));
      expect(body.payments.every((payment, index, all) => index === 0 || (all[index - 1]?.settledAt ?? "") >= payment.settledAt)).toBe(true);
      cursor = body.next;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(120);
    expect(new Set(seen).size).toBe(120);
  });

  test("filters by period and by service; amounts, fee, total and links are there", async () => {
    const week = await page(`?wallet=${wallet}&period=week&limit=100`);
    expect(week.payments).toHaveLength(14); // one every 12 hours, each settled 5 s after: 12 h to 168 h ago
    const quotes = await page(`?wallet=${wallet}&service=quotes&limit=100`);
    expect(quotes.payments).toHaveLength(40);
    expect(quotes.payments.every((payment) => payment.service.name === "Quotes")).toBe(true);
    expect(quotes.payments[0]).toMatchObject({ network: "eip155:31337", feeUsd: "0", explorerUrl: expect.stringContaining(quotes.payments[0]?.txHash ?? "-") });
    expect(quotes.payments[0]?.totalUsd).toBe(quotes.payments[0]?.amountUsd);
    // A service filter is words, not a pattern: % and _ match only themselves.
    expect((await page(`?wallet=${wallet}&service=%25&limit=100`)).payments).toHaveLength(0);
  });

  test("exports the whole history as CSV: one row per settled payment, formulas never run", async () => {
    await record(wallet, usd(2_000), { ago: 30 * 60 * 1000, service: "=HYPERLINK(\"http://evil.example\",\"click\")" });
    const response = await history(`?wallet=${wallet}&format=csv`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="x402-payments-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = (await response.text()).trimEnd().split("\r\n");
    expect(lines[0]).toBe("date,service,service_url,network,chain,wallet,amount_usdc,fee_usdc,total_usdc,transaction,transaction_url,payment_id,paid_from,receipt,receipt_signer,receipt_note,up_to_usdc,collected_late,deposit_usdc,deposit_calls,deposit_returned_usdc,deposit_return_transaction");
    expect(lines).toHaveLength(1 + 121);
    expect(lines[1]).toContain(`"'=HYPERLINK(""http://evil.example"",""click"")"`);
    expect(lines.slice(1).every((line) => !line.includes("Secret"))).toBe(true);
  });

  test("a receipt changed by hand in the ledger is told as unverified, never as verified, in the history and its CSV", async () => {
    const owner = "0x3333333333333333333333333333333333333333";
    const { paymentId } = await record(owner, usd(3_000), { ago: HOUR });
    // Still says "verified", but what it kept as the signed receipt is not one.
    const tampered = { status: "verified", signer: "0x0000000000000000000000000000000000000002", format: "eip712", signed: "trust me", checkedAt: new Date().toISOString() };
    await db.query("UPDATE payments SET receipt = $2::jsonb WHERE payment_id = $1", [paymentId, JSON.stringify(tampered)]);
    const response = await history(`?wallet=${owner}`, { signedInAs: owner });
    expect(response.status).toBe(200);
    const [entry] = ((await response.json()) as HistoryPage).payments;
    expect(entry?.receipt).toEqual({ status: "unverified", reason: "the receipt kept with this payment could not be read" });
    const csv = (await (await history(`?wallet=${owner}&format=csv`, { signedInAs: owner })).text()).trimEnd().split("\r\n");
    expect(csv[1]?.endsWith(",unverified,,the receipt kept with this payment could not be read,,,,,,")).toBe(true);
  });

  test("only for the wallet's own session: another's, or none, is 401 and names nothing", async () => {
    const stranger = await history(`?wallet=${wallet}`, { signedInAs: other });
    expect(stranger.status).toBe(401);
    const text = await stranger.text();
    expect(text).not.toContain("pay_spending");
    expect((await history(`?wallet=${wallet}&format=csv`, {})).status).toBe(401);
  });

  test("bad queries are 400s that name the field", async () => {
    const fields = async (query: string) => ((await (await history(query)).json()) as { error: { details: { fields: Array<{ path: string }> } } }).error.details.fields.map((field) => field.path);
    expect(await fields(`?wallet=${wallet}&period=year`)).toEqual(["period"]);
    expect(await fields(`?wallet=${wallet}&limit=1000`)).toEqual(["limit"]);
    expect(await fields(`?wallet=${wallet}&cursor=not-ours`)).toEqual(["cursor"]);
    expect(await fields(`?wallet=${wallet}&format=xls`)).toEqual(["format"]);
  });
});

