// Channels (x402 `batch-settlement`) in the ledger, on a real database (in-memory PGlite, or
// PostgreSQL in its pass): the deposit counts in full until the channel closes, vouchers are
// taken one at a time and never past the deposit, a service's figure never raises what counts,
// and a close keeps what was claimed and releases the rest.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Database } from "@/lib/db";
import { countedByPeriod, findLimitBreach, findPayment, markSettled, reservePayment, type NewPayment } from "@/lib/payments/ledger";
import { channelsOf, closeChannel, findChannel, markCallCharged, markChannelClosing, markChannelOpen, openChannel, vouch } from "@/lib/payments/ledger/channels";
import { settleChannels } from "@/lib/payments/channels";
import type { SpendingLimits } from "@/lib/payments/limits";
import { parseUsd } from "@/lib/money";
import { parseServerEnv } from "@/lib/env";
import { openTestDatabase } from "@/tests/helpers/database";

let db: Database;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(async () => {
  await db.close();
});

const usdc = (text: string) => parseUsd(text) ?? -1n;
const limits: SpendingLimits = { daily: usdc("0.10"), weekly: usdc("1"), monthly: usdc("5"), perPayment: usdc("0.10") };
const receiver = "0x0000000000000000000000000000000000000B0b";
let counter = 0;
const next = () => {
  counter += 1;
  return counter;
};

async function openOne(wallet: string, deposit: bigint, firstCall: bigint, { at }: { at?: Date } = {}) {
  const n = next();
  const depositPayment: NewPayment = {
    paymentId: `deposit_${n}`,
    wallet,
    network: "eip155:31337",
    asset: "0x0000000000000000000000000000000000000001",
    payTo: receiver,
    amount: deposit,
    nonce: `0x${n.toString(16).padStart(64, "0")}`,
    serviceName: "TickStream",
    serviceUrl: "http://127.0.0.1:4100/tick",
    scheme: "batch-settlement",
    maxAmount: deposit,
  };
  const reserved = await reservePayment(db, { payment: depositPayment, limits, ...(at ? { now: at } : {}) });
  expect(reserved.kind).toBe("reserved");
  const channelId = `0x${n.toString(16).padStart(64, "c")}`;
  const opened = await openChannel(db, {
    channelId,
    wallet,
    network: "eip155:31337",
    config: { payer: wallet, payerAuthorizer: "0x00000000000000000000000000000000000000Ee", receiver, receiverAuthorizer: receiver, token: depositPayment.asset, withdrawDelay: 900, salt: `0x${"0".repeat(64)}` },
    requirements: { scheme: "batch-settlement", network: "eip155:31337", asset: depositPayment.asset, amount: firstCall.toString(), payTo: receiver, maxTimeoutSeconds: 60, extra: {} },
    serviceName: "TickStream",
    serviceUrl: "http://127.0.0.1:4100/tick",
    depositPaymentId: depositPayment.paymentId,
    deposit,
    // As a quote records it: the deposit's payment pays the first call.
    firstCall: { callId: depositPayment.paymentId, amount: firstCall },
  });
  expect(opened.kind).toBe("opened");
  return { channelId, depositPayment };
}

describe("channels in the ledger", () => {
  test("the deposit counts in full while the channel is open; calls inside it count nothing more", async () => {
    const wallet = "0x00000000000000000000000000000000000000c1";
    const { channelId } = await openOne(wallet, usdc("0.05"), usdc("0.001"));
    await markChannelOpen(db, channelId);
    for (let call = 2; call <= 10; call += 1) {
      const channel = await findChannel(db, channelId);
      const result = await vouch(db, { channelId, callId: `c1_${call}`, amount: usdc("0.001"), expected: channel?.vouched ?? -1n, limits, wallets: [wallet] });
      expect(result).toEqual({ kind: "vouched", cumulative: usdc("0.001") * BigInt(call) });
    }
    const [day] = await countedByPeriod(db, { wallet, limits });
    expect(day?.counted).toBe(usdc("0.05"));
    expect((await findChannel(db, channelId))?.vouched).toBe(usdc("0.01"));
  });

  test("ten vouchers taken at once on one base: one is taken, the others are told to quote again", async () => {
    const wallet = "0x00000000000000000000000000000000000000c2";
    const { channelId } = await openOne(wallet, usdc("0.05"), usdc("0.001"));
    await markChannelOpen(db, channelId);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, index) => vouch(db, { channelId, callId: `c2_${index}`, amount: usdc("0.002"), expected: usdc("0.001"), limits, wallets: [wallet] })),
    );
    expect(results.filter((result) => result.kind === "vouched")).toEqual([{ kind: "vouched", cumulative: usdc("0.003") }]);
    expect(results.filter((result) => result.kind === "moved")).toHaveLength(9);
    // The same call asked again gets its own voucher back, not a second one.
    const taken = results.findIndex((result) => result.kind === "vouched");
    expect(await vouch(db, { channelId, callId: `c2_${taken}`, amount: usdc("0.002"), expected: usdc("0.003"), limits, wallets: [wallet] })).toEqual({ kind: "existing", cumulative: usdc("0.003") });
  });

  test("no voucher past the deposit, nor on a channel not open", async () => {
    const wallet = "0x00000000000000000000000000000000000000c3";
    const { channelId } = await openOne(wallet, usdc("0.005"), usdc("0.002"));
    expect(await vouch(db, { channelId, callId: "c3_early", amount: usdc("0.001"), expected: usdc("0.002"), limits, wallets: [wallet] })).toEqual({ kind: "closed", state: "opening" });
    await markChannelOpen(db, channelId);
    expect(await vouch(db, { channelId, callId: "c3_2", amount: usdc("0.004"), expected: usdc("0.002"), limits, wallets: [wallet] })).toEqual({ kind: "exhausted", left: usdc("0.003") });
    expect((await vouch(db, { channelId, callId: "c3_3", amount: usdc("0.003"), expected: usdc("0.002"), limits, wallets: [wallet] })).kind).toBe("vouched");
    await markChannelClosing(db, channelId);
    expect(await vouch(db, { channelId, callId: "c3_4", amount: 0n, expected: usdc("0.005"), limits, wallets: [wallet] })).toEqual({ kind: "closed", state: "closing" });
  });

  test("a service's larger charge counts as the voucher's; a close keeps what was claimed and releases the rest", async () => {
    const wallet = "0x00000000000000000000000000000000000000c4";
    const { channelId, depositPayment } = await openOne(wallet, usdc("0.08"), usdc("0.01"));
    await markSettled(db, { paymentId: depositPayment.paymentId, txHash: `0x${"d".repeat(64)}`, outcome: {} });
    await markChannelOpen(db, channelId);
    await markCallCharged(db, { callId: depositPayment.paymentId, charged: usdc("0.05") });
    expect((await findChannel(db, channelId))?.charged).toBe(usdc("0.01"));
    // The deposit holds the day's limit: a payment of 0.03 more does not fit.
    expect((await findLimitBreach(db, { wallet, amount: usdc("0.03"), limits }))?.limit).toBe("daily");

    await markChannelClosing(db, channelId);
    const closed = await closeChannel(db, { channelId, claimed: usdc("0.01"), txHash: `0x${"e".repeat(64)}` });
    expect(closed).toMatchObject({ state: "closed", closeTx: `0x${"e".repeat(64)}` });
    expect(await findPayment(db, depositPayment.paymentId)).toMatchObject({ status: "settled", amount: usdc("0.01"), maxAmount: usdc("0.08"), txHash: `0x${"d".repeat(64)}` });
    const [day] = await countedByPeriod(db, { wallet, limits });
    expect(day?.counted).toBe(usdc("0.01"));
    expect(await findLimitBreach(db, { wallet, amount: usdc("0.03"), limits })).toBeUndefined();
    // Closed once: a second close changes nothing.
    await closeChannel(db, { channelId, claimed: usdc("0.08"), txHash: `0x${"f".repeat(64)}` });
    expect((await findPayment(db, depositPayment.paymentId))?.amount).toBe(usdc("0.01"));
    expect((await channelsOf(db, wallet)).map((channel) => [channel.state, channel.deposit, channel.vouched])).toEqual([["closed", usdc("0.08"), usdc("0.01")]]);
  });

  test("a draw is held to the limits it is asked under: five calls fit a grant's day, the sixth is refused and takes nothing", async () => {
    const wallet = "0x00000000000000000000000000000000000000c5";
    const { channelId, depositPayment } = await openOne(wallet, usdc("0.05"), usdc("0.001"));
    await markSettled(db, { paymentId: depositPayment.paymentId, txHash: `0x${"a".repeat(64)}`, outcome: {} });
    await markChannelOpen(db, channelId);
    // An AI app's grant: $0.006 a day over the wallet's whole ledger, which has spent the first call's $0.001.
    const grant: SpendingLimits = { daily: usdc("0.006"), weekly: usdc("1"), monthly: usdc("1"), perPayment: usdc("0.001") };
    const results = [];
    for (let call = 1; call <= 6; call += 1) {
      const channel = await findChannel(db, channelId);
      results.push(await vouch(db, { channelId, callId: `c5_${call}`, amount: usdc("0.001"), expected: channel?.vouched ?? -1n, limits: grant, wallets: [wallet], boundTo: "mcp-grant:g5" }));
    }
    expect(results.slice(0, 5).map((result) => result.kind)).toEqual(Array(5).fill("vouched"));
    expect(results[5]).toEqual({ kind: "limit-exceeded", breach: { limit: "daily", limitAmount: usdc("0.006"), spent: usdc("0.006"), amount: usdc("0.001") } });
    expect((await findChannel(db, channelId))?.vouched).toBe(usdc("0.006"));
    // Above the grant's per-payment limit: refused before the period is counted.
    expect((await vouch(db, { channelId, callId: "c5_big", amount: usdc("0.002"), expected: usdc("0.006"), limits: grant, wallets: [wallet] })).kind).toBe("limit-exceeded");
    // The person's own, larger limits still take the next call from the same deposit.
    expect((await vouch(db, { channelId, callId: "c5_7", amount: usdc("0.001"), expected: usdc("0.006"), limits, wallets: [wallet] })).kind).toBe("vouched");
  });

  test("draws from a deposit made before the period count in the period: a day's limit holds calls on a deposit of last week", async () => {
    const wallet = "0x00000000000000000000000000000000000000c6";
    const lastWeek = new Date(Date.now() - 3 * 24 * 60 * 60 * 1000);
    const { channelId, depositPayment } = await openOne(wallet, usdc("0.05"), usdc("0.001"), { at: lastWeek });
    await markSettled(db, { paymentId: depositPayment.paymentId, txHash: `0x${"b".repeat(64)}`, outcome: {}, now: lastWeek });
    await markChannelOpen(db, channelId);
    const day: SpendingLimits = { daily: usdc("0.002"), weekly: usdc("1"), monthly: usdc("1"), perPayment: usdc("0.01") };
    const kinds = [];
    for (let call = 1; call <= 3; call += 1) {
      const channel = await findChannel(db, channelId);
      kinds.push((await vouch(db, { channelId, callId: `c6_${call}`, amount: usdc("0.001"), expected: channel?.vouched ?? -1n, limits: day, wallets: [wallet] })).kind);
    }
    expect(kinds).toEqual(["vouched", "vouched", "limit-exceeded"]);
  });

  test("twenty channels stuck opening do not keep a twenty-first from being opened by the sweep", async () => {
    const env = parseServerEnv({ MODEL_PROVIDER: "offline" });
    const stuck = [];
    for (let n = 0; n < 20; n += 1) stuck.push(await openOne(`0x${(0xd00 + n).toString(16).padStart(40, "0")}`, usdc("0.01"), usdc("0.001")));
    // The stuck ones' deposits stay reserved (their outcome never comes); the twenty-first's settles.
    const late = await openOne("0x00000000000000000000000000000000000000c7", usdc("0.01"), usdc("0.001"));
    await markSettled(db, { paymentId: late.depositPayment.paymentId, txHash: `0x${"9".repeat(64)}`, outcome: {} });
    for (let sweep = 0; sweep < 3 && (await findChannel(db, late.channelId))?.state === "opening"; sweep += 1) await settleChannels({ db, env });
    expect((await findChannel(db, late.channelId))?.state).toBe("open");
    expect((await findChannel(db, stuck[0]?.channelId ?? ""))?.state).toBe("opening");
  });
});
