// The ledger on a real database (in-memory PGlite, or PostgreSQL in its pass): reservations
// against rolling limits, idempotency, and concurrency.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Database } from "@/lib/db";
import {
  claimSweep,
  findLimitBreach,
  findPayment,
  isKnownTxHash,
  knownTxHashes,
  markFailed,
  markPending,
  markSettled,
  reservePayment,
  countedByPeriod,
  unfinishedPayments,
  type NewPayment,
} from "@/lib/payments/ledger";
import type { SpendingLimits } from "@/lib/payments/limits";
import { parseUsd } from "@/lib/money";
import { sweepIfDue } from "@/lib/payments/sweep";
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
const limits: SpendingLimits = { daily: usdc("0.03"), weekly: usdc("1"), monthly: usdc("5"), perPayment: usdc("0.02") };
let counter = 0;
const payment = (wallet: string, amount: bigint, extra: Partial<NewPayment> = {}): NewPayment => {
  counter += 1;
  return {
    paymentId: `pay_${counter}`,
    wallet,
    network: "eip155:31337",
    asset: "0x0000000000000000000000000000000000000001",
    payTo: "0x0000000000000000000000000000000000000002",
    amount,
    nonce: `0x${counter.toString(16).padStart(64, "0")}`,
    serviceName: "Weather",
    serviceUrl: "http://127.0.0.1:4100/weather",
    ...extra,
  };
};

describe("ledger", () => {
  test("ten concurrent approvals against a daily limit for three pay exactly three", async () => {
    const wallet = "0x00000000000000000000000000000000000000A1";
    const results = await Promise.all(
      Array.from({ length: 10 }, () => reservePayment(db, { payment: payment(wallet, usdc("0.01")), limits })),
    );
    expect(results.filter((result) => result.kind === "reserved")).toHaveLength(3);
    const refused = results.filter((result) => result.kind === "limit-exceeded");
    expect(refused).toHaveLength(7);
    expect(refused[0]?.kind === "limit-exceeded" && refused[0].breach.limit).toBe("daily");
    const [day] = await countedByPeriod(db, { wallet, limits });
    expect(day).toEqual({ period: "day", counted: usdc("0.03"), limit: usdc("0.03"), remaining: 0n });
  });

  test("the same payment id or nonce never reserves twice and returns the first record", async () => {
    const wallet = "0x00000000000000000000000000000000000000a2";
    const first = payment(wallet, usdc("0.01"));
    expect((await reservePayment(db, { payment: first, limits })).kind).toBe("reserved");
    const again = await reservePayment(db, { payment: first, limits });
    expect(again.kind).toBe("existing");
    const sameNonce = await reservePayment(db, { payment: { ...payment(wallet, usdc("0.01")), nonce: first.nonce }, limits });
    expect(sameNonce.kind === "existing" && sameNonce.record.paymentId).toBe(first.paymentId);
    const [day] = await countedByPeriod(db, { wallet: wallet.toUpperCase().replace("0X", "0x"), limits });
    expect(day?.counted).toBe(usdc("0.01"));
  });

  test("a failed payment releases its reservation; a settled one keeps counting", async () => {
    const wallet = "0x00000000000000000000000000000000000000a3";
    const a = payment(wallet, usdc("0.02"));
    const b = payment(wallet, usdc("0.01"));
    await reservePayment(db, { payment: a, limits });
    await reservePayment(db, { payment: b, limits });
    expect((await findLimitBreach(db, { wallet, amount: usdc("0.01"), limits }))?.limit).toBe("daily");
    await markFailed(db, { paymentId: a.paymentId, failureCode: "payment-failed", outcome: { status: "failed" } });
    await markSettled(db, { paymentId: b.paymentId, txHash: "0xabc", outcome: { status: "delivered" } });
    expect(await findLimitBreach(db, { wallet, amount: usdc("0.02"), limits })).toBeUndefined();
    const [day] = await countedByPeriod(db, { wallet, limits });
    expect(day?.counted).toBe(usdc("0.01"));
  });

  test("periods roll: yesterday's spending counts for the week but not the day", async () => {
    const wallet = "0x00000000000000000000000000000000000000a4";
    const now = new Date();
    const yesterday = new Date(now.getTime() - 25 * 60 * 60 * 1000);
    await reservePayment(db, { payment: payment(wallet, usdc("0.02")), limits, now: yesterday });
    const spending = await countedByPeriod(db, { wallet, limits, now });
    expect(spending.map((entry) => [entry.period, entry.counted])).toEqual([
      ["day", 0n],
      ["week", usdc("0.02")],
      ["month", usdc("0.02")],
    ]);
  });

  test("a payment above the per-payment limit is refused whatever else remains", async () => {
    const breach = await findLimitBreach(db, { wallet: "0x00000000000000000000000000000000000000a5", amount: usdc("0.021"), limits });
    expect(breach).toEqual({ limit: "perPayment", limitAmount: usdc("0.02"), spent: 0n, amount: usdc("0.021") });
  });

  test("a settlement keeps its first time, and its transaction hash is known whatever the case", async () => {
    const first = payment("0x00000000000000000000000000000000000000a6", usdc("0.01"));
    await reservePayment(db, { payment: first, limits });
    const hash = `0x${"Ab".repeat(32)}`;
    const settledAt = new Date(Date.now() - 60_000);
    await markSettled(db, { paymentId: first.paymentId, txHash: hash, outcome: {}, now: settledAt });
    await markSettled(db, { paymentId: first.paymentId, txHash: hash, outcome: {} });
    expect((await findPayment(db, first.paymentId))?.settledAt).toEqual(settledAt);

    expect(await isKnownTxHash(db, hash.toLowerCase())).toBe(true);
    expect(await isKnownTxHash(db, `0x${"cd".repeat(32)}`)).toBe(false);
    expect(await knownTxHashes(db, [hash.toUpperCase().replace("0X", "0x"), `0x${"cd".repeat(32)}`])).toEqual(new Set([hash.toLowerCase()]));
    expect(await knownTxHashes(db, [])).toEqual(new Set());
  });

  test("a pending payment stays counted until it is settled or released, and a settled one is never released", async () => {
    const wallet = "0x00000000000000000000000000000000000000A7";
    const validBefore = new Date(Date.now() + 600_000);
    const pending = payment(wallet, usdc("0.02"), { validBefore, fromBlock: 123n });
    const settled = payment(wallet, usdc("0.01"));
    await reservePayment(db, { payment: pending, limits });
    await reservePayment(db, { payment: settled, limits });
    await markPending(db, { paymentId: pending.paymentId, outcome: { status: "failed" } });
    expect(await findPayment(db, pending.paymentId)).toMatchObject({ status: "pending", validBefore, fromBlock: 123n });
    // Both count: the daily limit is reached.
    expect((await findLimitBreach(db, { wallet, amount: 1n, limits }))?.limit).toBe("daily");
    await markSettled(db, { paymentId: settled.paymentId, txHash: `0x${"c".repeat(64)}`, outcome: {} });
    await markFailed(db, { paymentId: settled.paymentId, failureCode: "expired", outcome: {} });
    expect((await findPayment(db, settled.paymentId))?.status).toBe("settled");
    await markFailed(db, { paymentId: pending.paymentId, failureCode: "expired", outcome: {} });
    expect((await findPayment(db, pending.paymentId))?.status).toBe("failed");
    expect(await findLimitBreach(db, { wallet, amount: usdc("0.02"), limits })).toBeUndefined();
  });

  test("the sweep sees pending payments and reservations whose request is over, not fresh ones", async () => {
    const wallet = "0x00000000000000000000000000000000000000A8";
    const old = payment(wallet, 1n);
    const fresh = payment(wallet, 1n);
    const waiting = payment(wallet, 1n);
    await reservePayment(db, { payment: old, limits, now: new Date(Date.now() - 10 * 60_000) });
    await reservePayment(db, { payment: fresh, limits });
    await reservePayment(db, { payment: waiting, limits });
    await markPending(db, { paymentId: waiting.paymentId, outcome: {} });
    const seen = (await unfinishedPayments(db, { reservedBefore: new Date(Date.now() - 2 * 60_000), limit: 100 })).map((record) => record.paymentId);
    expect(seen).toEqual(expect.arrayContaining([old.paymentId, waiting.paymentId]));
    expect(seen).not.toContain(fresh.paymentId);
  });

  test("a sweep is claimed once a minute, whoever asks", async () => {
    const start = new Date("2030-01-01T00:00:00Z");
    const at = (seconds: number) => new Date(start.getTime() + seconds * 1000);
    await db.query("DELETE FROM ledger_sweeps");
    const claims = await Promise.all([0, 0, 0].map(() => claimSweep(db, { now: start, every: 60_000 })));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await claimSweep(db, { now: at(30), every: 60_000 })).toBe(false);
    expect(await claimSweep(db, { now: at(61), every: 60_000 })).toBe(true);
  });

  test("a process asks the database about the sweep once per due time, not on every request", async () => {
    const start = new Date("2031-01-01T00:00:00Z");
    const at = (seconds: number) => new Date(start.getTime() + seconds * 1000);
    const env = parseServerEnv({});
    await db.query("DELETE FROM ledger_sweeps");
    // Two processes on one database: each its own view of it, counting what it asks about sweeps.
    const processOn = () => {
      const asked: string[] = [];
      const view: Database = {
        query: (sql, params) => {
          if (sql.includes("ledger_sweeps")) asked.push(sql);
          return db.query(sql, params);
        },
        transaction: (work) => db.transaction(work),
        close: async () => undefined,
      };
      return { asked, sweep: (seconds: number) => sweepIfDue({ db: view, env, now: at(seconds) }) };
    };
    const first = processOn();
    const second = processOn();

    expect(await first.sweep(0)).toBeDefined();
    for (const seconds of [1, 10, 59]) expect(await first.sweep(seconds)).toBeUndefined();
    expect(first.asked).toHaveLength(1);

    // The other process runs the next sweep; the first learns when it is next due, once.
    expect(await second.sweep(61)).toBeDefined();
    expect(await first.sweep(62)).toBeUndefined();
    expect(first.asked).toHaveLength(3);
    for (const seconds of [70, 120]) expect(await first.sweep(seconds)).toBeUndefined();
    expect(first.asked).toHaveLength(3);
    expect(await first.sweep(121)).toBeDefined();
    expect(first.asked).toHaveLength(4);
  });
});
