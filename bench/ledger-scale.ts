/**
 * The ledger at scale: the three reads and writes every payment makes of it (pre-flight's limit
 * check, the reservation, and `GET /api/spending`'s report), timed through lib/payments as the
 * routes call them, on an empty ledger and then on one of 1,000,000 payments over 10,000
 * wallets: a typical wallet (about 90 payments over a year) and one agent wallet with 100,000
 * (about 1,700 a day for 60 days). Seeded in SQL with the totals trigger off, then the totals
 * made as the migration makes them from an existing ledger, then ANALYZE, as a grown database
 * would be. In a PGlite of this process, or a fresh database on DATABASE_URL's server.
 */
import { performance } from "node:perf_hooks";
import { openDatabase, type Database } from "@/lib/db";
import { migrations } from "@/lib/db/migrations";
import { parseServerEnv } from "@/lib/env";
import { findLimitBreach, reservePayment } from "@/lib/payments/ledger";
import { getSpendingReport } from "@/lib/payments/spending-report";
import { createScratchDatabase } from "@/tests/helpers/database";
import { spread, type Spread } from "./stats";

export const LEDGER_PAYMENTS = 1_000_000;
export const LEDGER_WALLETS = 10_000;
export const HEAVY_PAYMENTS = 100_000;
const SAMPLES = 30;

const HEAVY = `0x${"ab".repeat(20)}`;
const TYPICAL = `0x${(4_242).toString(16).padStart(40, "0")}`;
const generous = { daily: 10n ** 12n, weekly: 10n ** 12n, monthly: 10n ** 12n, perPayment: 10n ** 12n };

export type LedgerPath = "pre-flight" | "reservation" | "GET /api/spending";
export type LedgerScaleResult = {
  database: string;
  payments: number;
  wallets: number;
  heavyPayments: number;
  seedSeconds: number;
  paths: Array<{ path: LedgerPath; emptyMs: Spread; typicalMs: Spread; heavyMs: Spread }>;
};

async function samples(run: (index: number) => Promise<unknown>): Promise<Spread> {
  // One untimed run: the statement's first plan and the pages it reads.
  await run(-1);
  const taken: number[] = [];
  for (let index = 0; index < SAMPLES; index += 1) {
    const started = performance.now();
    await run(index);
    taken.push(performance.now() - started);
  }
  return spread(taken);
}

async function timePaths(db: Database, wallet: string, tag: string): Promise<Record<LedgerPath, Spread>> {
  const env = parseServerEnv({ MODEL_PROVIDER: "offline" });
  return {
    "pre-flight": await samples(() => findLimitBreach(db, { wallet, amount: 1_000n, limits: generous })),
    reservation: await samples((index) =>
      reservePayment(db, {
        payment: {
          paymentId: `pay_bench_${tag}_${index}`,
          wallet,
          network: "eip155:31337",
          asset: "0xa",
          payTo: "0xb",
          amount: 1_000n,
          nonce: `0xbench${tag}${index}`,
          serviceName: "Bench",
          serviceUrl: "http://bench.example",
        },
        limits: generous,
      }),
    ),
    "GET /api/spending": await samples(() => getSpendingReport({ db, env, wallet, history: true })),
  };
}

async function seed(db: Database): Promise<void> {
  const totals = migrations.find((migration) => migration.id === 8)?.statements.filter((statement) => statement.trimStart().startsWith("INSERT INTO ledger_totals")) ?? [];
  await db.query("ALTER TABLE payments DISABLE TRIGGER payments_totals");
  await db.query(
    `INSERT INTO payments (payment_id, wallet, network, asset, pay_to, amount, nonce, service_name, service_url, status, tx_hash, created_at, updated_at, settled_at)
     SELECT 'seed_' || g,
            CASE WHEN g <= $1 THEN $2 ELSE '0x' || lpad(to_hex(g % ($3 - 1) + 1), 40, '0') END,
            'eip155:8453', '0xa', '0xb', 1000 + (g % 5000), 'seed_n' || g, 'Service ' || (g % 50), 'https://service' || (g % 50) || '.example',
            CASE WHEN g % 20 = 0 THEN 'failed' ELSE 'settled' END,
            CASE WHEN g % 20 = 0 THEN NULL ELSE '0x' || md5(g::text) || md5((g + 1)::text) END,
            t, t, CASE WHEN g % 20 = 0 THEN NULL ELSE t + interval '3 seconds' END
     FROM generate_series(1, $4) AS g,
          LATERAL (SELECT now() - (CASE WHEN g <= $1 THEN (g % 60) ELSE (g % 365) END) * interval '1 day' - (g % 86400) * interval '1 second' AS t) AS at`,
    [HEAVY_PAYMENTS, HEAVY, LEDGER_WALLETS, LEDGER_PAYMENTS],
  );
  for (const statement of totals) await db.query(statement);
  await db.query("ALTER TABLE payments ENABLE TRIGGER payments_totals");
  await db.query("ANALYZE");
}

export async function measureLedgerAtScale({ database, serverUrl }: { database: "PGlite" | "PostgreSQL"; serverUrl?: string }): Promise<LedgerScaleResult> {
  const scratch = database === "PostgreSQL" && serverUrl ? await createScratchDatabase(serverUrl) : undefined;
  const db = await openDatabase(scratch ? { url: scratch.url, dataDir: "memory://" } : { dataDir: "memory://" });
  try {
    const empty = await timePaths(db, TYPICAL, "empty");
    // The empty run's reservations go, so the seeded ledger is exactly what it says.
    await db.query("DELETE FROM payments");
    await db.query("DELETE FROM ledger_totals");
    const started = performance.now();
    await seed(db);
    const seedSeconds = Math.round((performance.now() - started) / 100) / 10;
    const typical = await timePaths(db, TYPICAL, "typical");
    const heavy = await timePaths(db, HEAVY, "heavy");
    const paths = (["pre-flight", "reservation", "GET /api/spending"] as const).map((path) => ({ path, emptyMs: empty[path], typicalMs: typical[path], heavyMs: heavy[path] }));
    return { database, payments: LEDGER_PAYMENTS, wallets: LEDGER_WALLETS, heavyPayments: HEAVY_PAYMENTS, seedSeconds, paths };
  } finally {
    await db.close();
    await scratch?.drop();
  }
}

// `npx tsx bench/ledger-scale.ts`: this part alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const only = process.env.LEDGER_ONLY;
  for (const database of (["PGlite", ...(process.env.DATABASE_URL ? ["PostgreSQL" as const] : [])] as const).filter((name) => !only || name === only)) {
    const result = await measureLedgerAtScale({ database, ...(process.env.DATABASE_URL ? { serverUrl: process.env.DATABASE_URL } : {}) });
    console.log(JSON.stringify(result, null, 2));
  }
}
