// Channels (x402 `batch-settlement`) in the ledger, on a real database (in-memory PGlite, or
// PostgreSQL in its pass): the deposit counts in full until the channel closes, vouchers are
// taken one at a time and never past the deposit, a service's figure never raises what counts,
// and a close keeps what was claimed and releases the rest.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Database } from "@/lib/db";
import { countedByPeriod, findLimitBreach, findPayment, markSettled, reservePayment, type NewPayment } from "@/lib/payments/ledger";
import { channelsOf, closeChannel, findChannel, markCallCharged, markChannelClosing, markChannelOpen, openChannel, vouch } from "@/lib/payments/ledger/channels";
import type { SpendingLimits } from "@/lib/payments/limits";
import { parseUsd } from "@/lib/money";
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

async function openOne(wallet: string, deposit: bigint, firstCall: bigint) {
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
  const reserved = await reservePayment(db, { payment: depositPayment, limits });
  expect(reserved.kind).toBe("reserved");
  const channelId = `0x${n.toString(16).padStart(64, "c")}`;
  const opened = await openChannel(db, {
    channelId,
    wallet,
    network: "eip155:31337",
    config: { payer: wallet, payerAuthorizer: "0x00000000000000000000000000000000000000Ee", receiver, receiverAuthorizer: receiver, token: depositPayment.asset, withdrawDelay: 900, salt: `0x${"0".repeat(64)}` },
    requirements: { scheme: "batch-settlement" },
    serviceName: "TickStream",
    serviceUrl: "http://127.0.0.1:4100/tick",
    depositPaymentId: depositPayment.paymentId,
    deposit,
    firstCall: { callId: `call_${n}_1`, amount: firstCall },
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
      const result = await vouch(db, { channelId, callId: `c1_${call}`, amount: usdc("0.001"), expected: channel?.vouched ?? -1n });
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
      Array.from({ length: 10 }, (_, index) => vouch(db, { channelId, callId: `c2_${index}`, amount: usdc("0.002"), expected: usdc("0.001") })),
    );
    expect(results.filter((result) => result.kind === "vouched")).toEqual([{ kind: "vouched", cumulative: usdc("0.003") }]);
    expect(results.filter((result) => result.kind === "moved")).toHaveLength(9);
    // The same call asked again gets its own voucher back, not a second one.
    const taken = results.findIndex((result) => result.kind === "vouched");
    expect(await vouch(db, { channelId, callId: `c2_${taken}`, amount: usdc("0.002"), expected: usdc("0.003") })).toEqual({ kind: "existing", cumulative: usdc("0.003") });
  });

  test("no voucher past the deposit, nor on a channel not open", async () => {
    const wallet = "0x00000000000000000000000000000000000000c3";
    const { channelId } = await openOne(wallet, usdc("0.005"), usdc("0.002"));
    expect(await vouch(db, { channelId, callId: "c3_early", amount: usdc("0.001"), expected: usdc("0.002") })).toEqual({ kind: "closed", state: "opening" });
    await markChannelOpen(db, channelId);
    expect(await vouch(db, { channelId, callId: "c3_2", amount: usdc("0.004"), expected: usdc("0.002") })).toEqual({ kind: "exhausted", left: usdc("0.003") });
    expect((await vouch(db, { channelId, callId: "c3_3", amount: usdc("0.003"), expected: usdc("0.002") })).kind).toBe("vouched");
    await markChannelClosing(db, channelId);
    expect(await vouch(db, { channelId, callId: "c3_4", amount: 0n, expected: usdc("0.005") })).toEqual({ kind: "closed", state: "closing" });
  });

  test("a service's larger charge counts as the voucher's; a close keeps what was claimed and releases the rest", async () => {
    const wallet = "0x00000000000000000000000000000000000000c4";
    const { channelId, depositPayment } = await openOne(wallet, usdc("0.08"), usdc("0.01"));
    await markSettled(db, { paymentId: depositPayment.paymentId, txHash: `0x${"d".repeat(64)}`, outcome: {} });
    await markChannelOpen(db, channelId);
    await markCallCharged(db, { callId: `call_${counter}_1`, charged: usdc("0.05") });
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
});
