// The ledger's hourly and daily totals (migration 8) against the payments themselves: through
// reservations, settlements, failures and pendings at random times (on the hour and the day
// included), every rolling window the limits and the spending report read adds up to exactly
// what the payments hold, to the atomic unit; the totals made from an existing ledger when the
// migration runs are the ones the trigger keeps; and on a ledger of many payments the hot paths
// read indexes, never the whole payments table.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Database } from "@/lib/db";
import { countedSinceQuery, migrations } from "@/lib/db/migrations";
import {
  countedByPeriod,
  countedSince,
  findPayment,
  markFailed,
  markPending,
  markSettled,
  paymentHistory,
  recentPayments,
  reservePayment,
  settledPayments,
  settledByPeriod,
  type NewPayment,
} from "@/lib/payments/ledger";
import type { SpendingLimits } from "@/lib/payments/limits";
import { openTestDatabase } from "@/tests/helpers/database";

let db: Database;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(async () => {
  await db.close();
});

const open: SpendingLimits = { daily: 10n ** 15n, weekly: 10n ** 15n, monthly: 10n ** 15n, perPayment: 10n ** 15n };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A small deterministic random source, so a failure is found again. */
function randomSource(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state % below;
  };
}

let counter = 0;
const newPayment = (wallet: string, amount: bigint): NewPayment => {
  counter += 1;
  return { paymentId: `pay_t${counter}`, wallet, network: "eip155:31337", asset: "0xa", payTo: "0xb", amount, nonce: `0xn${counter}`, serviceName: "S", serviceUrl: "http://s" };
};

async function directCounted(wallet: string, since: Date): Promise<bigint> {
  const [row] = await db.query<{ sum: string }>(
    "SELECT COALESCE(SUM(amount), 0)::text AS sum FROM payments WHERE wallet = $1 AND status IN ('reserved', 'pending', 'settled') AND created_at > $2",
    [wallet, since.toISOString()],
  );
  return BigInt(row?.sum ?? "0");
}

async function directSettled(wallet: string, since: Date): Promise<bigint> {
  const [row] = await db.query<{ sum: string }>(
    "SELECT COALESCE(SUM(amount), 0)::text AS sum FROM payments WHERE wallet = $1 AND status = 'settled' AND COALESCE(settled_at, created_at) > $2",
    [wallet, since.toISOString()],
  );
  return BigInt(row?.sum ?? "0");
}

describe("the ledger's totals", () => {
  test("every window adds up to the payments, through every change of status", async () => {
    const random = randomSource(402);
    const wallet = "0x00000000000000000000000000000000000a11ce";
    const base = Date.UTC(2026, 10, 1, 0, 0, 0);
    const times: number[] = [];
    for (let i = 0; i < 300; i += 1) {
      // Many on the hour and on the day exactly; the rest anywhere in 40 days.
      const kind = random(4);
      const at = kind === 0 ? base + random(40 * 24) * HOUR : kind === 1 ? base + random(40) * DAY : base + random(40 * DAY);
      times.push(at);
      const amount = BigInt(1 + random(5_000_000));
      const reserved = await reservePayment(db, { payment: newPayment(wallet, amount), limits: open, now: new Date(at) });
      if (reserved.kind !== "reserved") throw new Error("not reserved");
      const id = reserved.record.paymentId;
      const fate = random(5);
      const later = new Date(at + random(3 * DAY));
      if (fate === 0) await markSettled(db, { paymentId: id, txHash: `0x${"1".repeat(63)}${i % 10}`, outcome: {}, now: later });
      if (fate === 1) await markFailed(db, { paymentId: id, failureCode: "payment-failed", outcome: {} });
      if (fate === 2) await markPending(db, { paymentId: id, outcome: {}, now: later });
      if (fate === 3) {
        await markPending(db, { paymentId: id, outcome: {}, now: later });
        await markSettled(db, { paymentId: id, txHash: null, outcome: {}, now: new Date(later.getTime() + HOUR) });
      }
      // fate 4: stays reserved.
    }
    const windows = [
      ...times.slice(0, 60).map((at) => new Date(at)),
      ...times.slice(60, 90).map((at) => new Date(at - 1)),
      ...Array.from({ length: 40 }, (_, day) => new Date(base + day * DAY)),
      ...Array.from({ length: 40 }, () => new Date(base - DAY + random(45 * DAY))),
    ];
    for (const since of windows) {
      expect(await countedSince(db, wallet, since), `counted since ${since.toISOString()}`).toBe(await directCounted(wallet, since));
      // Settled sums come by rolling period: a day back from a day after `since` starts at `since`.
      const now = new Date(since.getTime() + DAY);
      const settled = await settledByPeriod(db, wallet, now);
      expect(settled.day, `settled since ${since.toISOString()}`).toBe(await directSettled(wallet, since));
      expect(settled.week, `settled in the week to ${now.toISOString()}`).toBe(await directSettled(wallet, new Date(now.getTime() - 7 * DAY)));
      expect(settled.month, `settled in the month to ${now.toISOString()}`).toBe(await directSettled(wallet, new Date(now.getTime() - 30 * DAY)));
    }
    const now = new Date(base + 35 * DAY + 5 * HOUR + 17_000);
    const periods = await countedByPeriod(db, { wallet, limits: open, now });
    expect(periods.map((entry) => entry.counted)).toEqual(
      await Promise.all([DAY, 7 * DAY, 30 * DAY].map((span) => directCounted(wallet, new Date(now.getTime() - span)))),
    );
  });

  test("the totals the migration makes from an existing ledger are the ones the trigger keeps", async () => {
    const kept = await db.query("SELECT wallet, measure, span, starts_at, amount::text FROM ledger_totals WHERE amount <> 0 ORDER BY 1, 2, 3, 4");
    const migration = migrations.find((entry) => entry.id === 8);
    const backfill = migration?.statements.filter((statement) => statement.trimStart().startsWith("INSERT INTO ledger_totals")) ?? [];
    expect(backfill).toHaveLength(2);
    await db.transaction(async (tx) => {
      await tx.query("DELETE FROM ledger_totals");
      for (const statement of backfill) await tx.query(statement);
    });
    expect(await db.query("SELECT wallet, measure, span, starts_at, amount::text FROM ledger_totals WHERE amount <> 0 ORDER BY 1, 2, 3, 4")).toEqual(kept);
  });

  test("on a ledger of many payments, limits, reservations and spending read indexes, never the whole table", async () => {
    const heavy = "0x00000000000000000000000000000000000b0b00";
    await db.query(
      `INSERT INTO payments (payment_id, wallet, network, asset, pay_to, amount, nonce, service_name, service_url, status, tx_hash, created_at, updated_at, settled_at)
       SELECT 'bulk_' || g, CASE WHEN g % 20 = 0 THEN $1 ELSE '0x' || lpad(to_hex(g % 997 + 1), 40, '0') END, 'eip155:31337', '0xa', '0xb', 1000,
              'bulk_n' || g, 'S', 'http://s', CASE WHEN g % 10 = 0 THEN 'failed' ELSE 'settled' END, '0x' || md5(g::text) || md5((g + 1)::text),
              now() - (g % 90) * interval '1 day', now(), now() - (g % 90) * interval '1 day'
       FROM generate_series(1, 40000) g`,
      [heavy],
    );
    await db.query("ANALYZE payments");
    await db.query("ANALYZE ledger_totals");
    const explain = async (sql: string, params: unknown[]) =>
      (await db.query<{ "QUERY PLAN": string }>(`EXPLAIN ${sql}`, params)).map((row) => row["QUERY PLAN"]).join("\n");
    // The statements the ledger runs on the hot paths, as it runs them.
    const captured: Array<{ sql: string; params: unknown[] }> = [];
    const recording = {
      query: (sql: string, params: unknown[] = []) => {
        captured.push({ sql, params });
        return db.query(sql, params);
      },
    } as unknown as Database;
    await countedByPeriod(recording, { wallet: heavy, limits: open });
    await settledByPeriod(recording, heavy);
    await paymentHistory(recording, heavy, { limit: 25 });
    await settledPayments(recording, heavy, 10);
    await recentPayments(recording, heavy, 10);
    await findPayment(recording, "bulk_8");
    expect(captured.length).toBeGreaterThanOrEqual(6);
    for (const { sql, params } of captured) {
      const plan = await explain(sql, params);
      expect(plan, `${sql}\n${plan}`).not.toMatch(/Seq Scan on payments/);
    }
    // What counts against the limits is read inside migration 9's function, whose kept plan is
    // the generic one, made without the values: it too must read the indexes.
    const since = new Date(Date.now() - 30 * DAY).toISOString();
    await db.query("SET plan_cache_mode = force_generic_plan");
    try {
      await db.query(`PREPARE counted_since (text[], timestamptz) AS ${countedSinceQuery}`);
      const plan = await explain(`EXECUTE counted_since('{${heavy}}', '${since}')`, []);
      await db.query("DEALLOCATE counted_since");
      expect(plan).toMatch(/Index Cond: \(\(wallet = ANY \(\$1\)\)/);
      expect(plan).not.toMatch(/Seq Scan/);
    } finally {
      await db.query("RESET plan_cache_mode");
    }
  });
});
