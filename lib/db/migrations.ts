// The schema, as an ordered list of migrations that run once each, on PGlite and Postgres alike.
import type { Database } from "./client";

// Each statement runs on its own: the extended query protocol takes one statement at a time.
type Migration = { id: number; name: string; statements: string[] };

export const migrations: readonly Migration[] = [
  {
    id: 1,
    name: "chat cooldowns",
    statements: [
      `CREATE TABLE chat_cooldowns (
        client_key text PRIMARY KEY,
        last_message_at timestamptz NOT NULL
      )`,
    ],
  },
  {
    id: 2,
    name: "payment ledger",
    // One row per approved payment: reserved before the service is paid, then settled (with
    // its transaction) or failed/released. Amounts are atomic units of the asset, never floats.
    statements: [
      `CREATE TABLE payments (
        payment_id text PRIMARY KEY,
        wallet text NOT NULL,
        network text NOT NULL,
        asset text NOT NULL,
        pay_to text NOT NULL,
        amount numeric(78, 0) NOT NULL CHECK (amount >= 0),
        nonce text NOT NULL UNIQUE,
        service_name text NOT NULL,
        service_url text NOT NULL,
        status text NOT NULL CHECK (status IN ('reserved', 'settled', 'failed')),
        tx_hash text,
        failure_code text,
        outcome jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
      "CREATE INDEX payments_by_wallet ON payments (wallet, created_at DESC)",
    ],
  },
  {
    id: 3,
    name: "settlement time and transaction lookup",
    // When a payment settled (rows settled before this column existed read as their creation
    // time), and tx hashes findable by value: a hash the ledger holds is not a pasted key.
    statements: [
      "ALTER TABLE payments ADD COLUMN settled_at timestamptz",
      "CREATE INDEX payments_by_tx_hash ON payments (lower(tx_hash)) WHERE tx_hash IS NOT NULL",
    ],
  },
  {
    id: 4,
    name: "reconciliation against the chain",
    // `pending`: the signed authorization went to the service, which neither delivered nor
    // collected it yet; it stays counted until the chain shows it used (settled) or expired
    // unused (failed). valid_before and from_block say until when, and where to look for it.
    // checked_at rotates the sweep over unfinished rows; ledger_sweeps spaces sweeps out
    // across every process that shares the database.
    statements: [
      "ALTER TABLE payments DROP CONSTRAINT IF EXISTS payments_status_check",
      "ALTER TABLE payments ADD CONSTRAINT payments_status_check CHECK (status IN ('reserved', 'pending', 'settled', 'failed'))",
      "ALTER TABLE payments ADD COLUMN valid_before timestamptz",
      "ALTER TABLE payments ADD COLUMN from_block numeric(78, 0)",
      "ALTER TABLE payments ADD COLUMN checked_at timestamptz",
      "CREATE INDEX payments_unfinished ON payments (checked_at NULLS FIRST) WHERE status IN ('reserved', 'pending')",
      `CREATE TABLE ledger_sweeps (
        id integer PRIMARY KEY,
        last_run_at timestamptz NOT NULL
      )`,
    ],
  },
  {
    id: 5,
    name: "agent budget payers",
    // Who signed the transfer: null for the wallet itself, else the session address of the
    // wallet's agent budget. The payment still belongs to the wallet (its limits, its history);
    // the chain knows it by its payer, and a budget's use is the sum of its payer's payments.
    statements: [
      "ALTER TABLE payments ADD COLUMN payer text",
      "CREATE INDEX payments_by_payer ON payments (payer) WHERE payer IS NOT NULL",
    ],
  },
  {
    id: 6,
    name: "AI app access over MCP",
    // The server keeps no copy of an access grant, only the ids of those revoked (until they
    // would have expired anyway). A payment an AI app asked for waits here for the person's
    // approval in the page: its quote (with the approval token), the grant's limits, and, once
    // known, how it ended and the service's data, for the app to fetch.
    statements: [
      `CREATE TABLE mcp_grant_revocations (
        grant_id text NOT NULL,
        wallet text NOT NULL,
        valid_until timestamptz NOT NULL,
        revoked_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (grant_id, wallet)
      )`,
      `CREATE TABLE mcp_payments (
        payment_id text PRIMARY KEY,
        grant_id text NOT NULL,
        app_label text NOT NULL,
        wallet text NOT NULL,
        grant_valid_until timestamptz NOT NULL,
        limits jsonb NOT NULL,
        quote jsonb NOT NULL,
        expires_at timestamptz NOT NULL,
        result jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      )`,
      "CREATE INDEX mcp_payments_by_created ON mcp_payments (created_at)",
    ],
  },
  {
    id: 7,
    name: "signed receipts",
    // A service's signed receipt for a settled payment (x402 `offer-receipt`), kept as received
    // with its signed offer, its format, the key that signed it and the verdict: verified, or
    // unverified with the reason (lib/payments/receipt.ts). Null when the service gave none.
    statements: ["ALTER TABLE payments ADD COLUMN receipt jsonb"],
  },
];

// Any fixed number: it only has to be the same in every process that migrates this database.
const MIGRATION_LOCK = 402_402;

export async function migrate(db: Database): Promise<void> {
  // Every start but the first after an upgrade: one read, without the lock or any DDL.
  if (await isCurrent(db)) return;
  await db.transaction(async (tx) => {
    // Two processes starting at once against one Postgres must not both migrate.
    await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await tx.query(`
      CREATE TABLE IF NOT EXISTS schema_migrations (
        id integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )
    `);
    const applied = new Set(
      (await tx.query<{ id: number }>("SELECT id FROM schema_migrations")).map((row) => row.id),
    );
    for (const migration of migrations) {
      if (applied.has(migration.id)) continue;
      for (const statement of migration.statements) await tx.query(statement);
      await tx.query("INSERT INTO schema_migrations (id, name) VALUES ($1, $2)", [migration.id, migration.name]);
    }
  });
}

/** Whether every migration is recorded as applied; false on a database that has none yet. */
async function isCurrent(db: Database): Promise<boolean> {
  let rows: Array<{ id: number }>;
  try {
    rows = await db.query<{ id: number }>("SELECT id FROM schema_migrations");
  } catch {
    return false;
  }
  const applied = new Set(rows.map((row) => row.id));
  return migrations.every((migration) => applied.has(migration.id));
}
