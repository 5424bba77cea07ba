// POST /api/channels only for the wallet's own session (docs/contract.md, section 15): a wallet and
// a channel id are public on chain, so without that session every action (close, close with the
// key's signature, withdraw, refresh) is a 401 that shows nothing of the channel and does no work;
// another wallet's session is refused the same; a bad body is still a 400. The channel is recorded
// straight in the ledger (in-memory PGlite, or PostgreSQL in its pass): no chain is needed.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Database } from "@/lib/db";
import { parseServerEnv, type ServerEnv } from "@/lib/env";
import { parseUsd } from "@/lib/money";
import { createChannelsRateLimit, handleChannelsRequest } from "@/lib/account/channels-request";
import { reservePayment, type NewPayment } from "@/lib/payments/ledger";
import { findChannel, markChannelOpen, openChannel } from "@/lib/payments/ledger/channels";
import type { SpendingLimits } from "@/lib/payments/limits";
import { sessionCookie } from "@/lib/session";
import { openTestDatabase } from "@/tests/helpers/database";

const wallet = "0x00000000000000000000000000000000000000a1";
const stranger = "0x00000000000000000000000000000000000000a2";
const receiver = "0x0000000000000000000000000000000000000b0b";
const asset = "0x0000000000000000000000000000000000000001";
const channelId = `0x${"a1".repeat(32)}`;
const salt = `0x${"5a".repeat(32)}`;
const usdc = (text: string) => parseUsd(text) ?? -1n;
const limits: SpendingLimits = { daily: usdc("1"), weekly: usdc("5"), monthly: usdc("20"), perPayment: usdc("0.5") };

let db: Database;
let env: ServerEnv;
beforeAll(async () => {
  db = await openTestDatabase();
  // The channel's network enabled, its RPC address one nothing listens at: no action here reaches a chain.
  env = parseServerEnv({ MODEL_PROVIDER: "offline", X402_NETWORKS: "eip155:31337", RPC_URL_31337: "http://127.0.0.1:9", USDC_ADDRESS_31337: asset, PAYMENT_TOKEN_SECRET: "test-secret-that-is-at-least-32-characters" });
  const deposit: NewPayment = {
    paymentId: "deposit_session",
    wallet,
    network: "eip155:31337",
    asset,
    payTo: receiver,
    amount: usdc("0.05"),
    nonce: `0x${"1".padStart(64, "0")}`,
    serviceName: "TickStream",
    serviceUrl: "http://127.0.0.1:4100/tick",
    scheme: "batch-settlement",
    maxAmount: usdc("0.05"),
  };
  expect((await reservePayment(db, { payment: deposit, limits })).kind).toBe("reserved");
  const opened = await openChannel(db, {
    channelId,
    wallet,
    network: "eip155:31337",
    config: { payer: wallet, payerAuthorizer: "0x00000000000000000000000000000000000000ee", receiver, receiverAuthorizer: receiver, token: asset, withdrawDelay: 900, salt },
    requirements: { scheme: "batch-settlement", network: "eip155:31337", asset, amount: usdc("0.001").toString(), payTo: receiver, maxTimeoutSeconds: 60, extra: {} },
    serviceName: "TickStream",
    serviceUrl: "http://127.0.0.1:4100/tick",
    depositPaymentId: deposit.paymentId,
    deposit: usdc("0.05"),
    firstCall: { callId: deposit.paymentId, amount: usdc("0.001") },
  });
  expect(opened.kind).toBe("opened");
  await markChannelOpen(db, channelId);
});
afterAll(async () => {
  await db?.close();
});

const url = "http://localhost/api/channels";
const sessionOf = (address: string) => sessionCookie(new Request(url), address, env).split(";")[0] ?? "";

function post(body: unknown, cookie?: string): Promise<Response> {
  return handleChannelsRequest(
    new Request(url, { method: "POST", headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) }, body: JSON.stringify(body) }),
    { env: () => env, database: async () => db, rateLimit: createChannelsRateLimit() },
  );
}

const actions: Array<[string, Record<string, unknown>]> = [
  ["close", { action: "close" }],
  ["close with the key's signature", { action: "close", signed: [`0x${"11".repeat(65)}`] }],
  ["withdraw", { action: "withdraw" }],
  ["refresh", { action: "refresh" }],
];

async function refused(response: Response) {
  expect(response.status).toBe(401);
  expect(response.headers.get("cache-control")).toBe("no-store");
  const body = (await response.json()) as { channel?: unknown; toSign?: unknown; call?: unknown; error: { code: string; message: string } };
  expect(body.channel).toBeUndefined();
  expect(body.toSign).toBeUndefined();
  expect(body.call).toBeUndefined();
  // Nothing of the channel in the words either.
  expect(JSON.stringify(body)).not.toContain(salt.slice(2));
  expect(JSON.stringify(body)).not.toContain("TickStream");
  return body.error;
}

describe("POST /api/channels needs the wallet's own session", () => {
  test("without a session, every action is a 401 that shows nothing of the channel and changes nothing", async () => {
    for (const [name, payload] of actions) {
      const response = await post({ wallet, channelId, ...payload });
      expect([name, response.status]).toEqual([name, 401]);
      const error = await refused(response);
      expect(error).toMatchInlineSnapshot(`
        {
          "code": "unauthorized",
          "message": "A channel is shown and changed only for its wallet's own session: sign in with the wallet in the page first. Nothing was changed.",
        }
      `);
    }
    expect((await findChannel(db, channelId))?.state).toBe("open");
  });

  test("another wallet's session is refused the same", async () => {
    const theirs = sessionOf(stranger);
    for (const [name, payload] of actions) {
      const response = await post({ wallet, channelId, ...payload }, theirs);
      expect([name, response.status]).toEqual([name, 401]);
      expect((await refused(response)).code).toBe("unauthorized");
    }
    expect((await findChannel(db, channelId))?.state).toBe("open");
  });

  test("a bad body is still a 400, with or without a session", async () => {
    for (const cookie of [undefined, sessionOf(wallet)]) {
      const response = await post({ action: "delete", wallet, channelId }, cookie);
      expect(response.status).toBe(400);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("bad-request");
    }
  });

  test("the wallet's own session gets the refund voucher to close its channel", async () => {
    const response = await post({ action: "close", wallet, channelId }, sessionOf(wallet));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { channel: { channelId: string; state: string; calls: number }; toSign: unknown[] };
    // Its calls counted as the listing counts them (the first, paid with the deposit).
    expect(body.channel).toMatchObject({ channelId, state: "open", calls: 1 });
    expect(body.toSign).toHaveLength(1);
  });

  test("the wallet's own session gets past the check to refresh (what the chain then says is another matter)", async () => {
    const response = await post({ action: "refresh", wallet, channelId }, sessionOf(wallet));
    expect(response.status).not.toBe(401);
    expect(response.headers.get("cache-control")).toBe("no-store");
  });
});
