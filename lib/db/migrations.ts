// The schema, as an ordered list of migrations that run once each, on PGlite and Postgres alike.
import type { Database } from "./queryable";

// Each statement runs on its own: the extended query protocol takes one statement at a time.
type Migration = { id: number; name: string; statements: string[] };

/**
 * One rolling window's sum for a person's wallets (`wallets`, a text[]) since a moment (`since`),
 * read from the hourly and daily totals (migration 8) rather than the payments themselves: the
 * payments of at most the window's first hour, the hours to the next day, and the days after. A
 * few dozen rows whatever the window holds. `counted`: what the limits count (reserved, pending,
 * settled) by creation time; `settled`: what was settled, by settlement time. The ledger reads
 * the settled windows with it as it is (lib/payments/ledger.ts); migration 9's function runs the
 * counted one as written here, and a change to it is a new migration that replaces the function.
 */
export function windowSum(measure: "counted" | "settled", wallets: string, since: string): string {
  const [id, at, kept] =
    measure === "counted"
      ? [0, "created_at", "status IN ('reserved', 'pending', 'settled')"]
      : [1, "COALESCE(settled_at, created_at)", "status = 'settled'"];
  const nextHour = `(date_trunc('hour', ${since} AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 hour')`;
  const nextDay = `(date_trunc('day', ${since} AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 day')`;
  return `(SELECT COALESCE(SUM(amount), 0) FROM payments WHERE wallet = ANY(${wallets}) AND ${kept} AND ${at} > ${since} AND ${at} < ${nextHour})
    + (SELECT COALESCE(SUM(amount), 0) FROM ledger_totals WHERE wallet = ANY(${wallets}) AND measure = ${id} AND span = 0 AND starts_at >= ${nextHour} AND starts_at < ${nextDay})
    + (SELECT COALESCE(SUM(amount), 0) FROM ledger_totals WHERE wallet = ANY(${wallets}) AND measure = ${id} AND span = 1 AND starts_at >= ${nextDay})`;
}

/** The query of migration 9's `ledger_counted_since($1 wallets, $2 since)`, as it runs (the ledger's plan test reads it). */
export const countedSinceQuery = `SELECT ${windowSum("counted", "$1", "$2")}`;

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
      "CREATE INDEX mcp_payments_by_wallet ON mcp_payments (wallet, expires_at) WHERE result IS NULL",
      // A page open with an agent budget says so every few seconds: while it does, an app's small
      // quote is made for the budget's session key, which only that page holds, and it pays it.
      `CREATE TABLE mcp_budget_watch (
        wallet text PRIMARY KEY,
        budget jsonb NOT NULL,
        threshold numeric(78, 0) NOT NULL,
        seen_at timestamptz NOT NULL
      )`,
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
  {
    id: 8,
    name: "ledger totals by hour and day",
    // What a wallet's limits and spending read must not grow with its history: an agent paying a
    // tenth of a cent a call makes thousands of payments a day. Each payment's amount is added,
    // in the same transaction that writes it, to its wallet's totals for its hour and its day (UTC):
    // measure 0 counts what the limits count (reserved, pending and settled, at creation time),
    // measure 1 what was settled (at settlement time). A rolling window is then read as at most
    // one hour of payments at its start, the hours to the next day, and the days after: a few
    // dozen rows, however many payments the window holds (./ledger.ts). The trigger keeps them
    // exact through every change of status; the history is read newest first from its own index.
    statements: [
      `CREATE TABLE ledger_totals (
        wallet text NOT NULL,
        measure smallint NOT NULL,
        span smallint NOT NULL,
        starts_at timestamptz NOT NULL,
        amount numeric(78, 0) NOT NULL,
        PRIMARY KEY (wallet, measure, span, starts_at)
      )`,
      `CREATE FUNCTION ledger_totals_add(p_wallet text, p_measure smallint, p_at timestamptz, p_amount numeric) RETURNS void
       LANGUAGE plpgsql AS $$
       BEGIN
         INSERT INTO ledger_totals (wallet, measure, span, starts_at, amount)
           VALUES (p_wallet, p_measure, 0, date_trunc('hour', p_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', p_amount),
                  (p_wallet, p_measure, 1, date_trunc('day', p_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', p_amount)
           ON CONFLICT (wallet, measure, span, starts_at) DO UPDATE SET amount = ledger_totals.amount + EXCLUDED.amount;
       END $$`,
      `CREATE FUNCTION ledger_totals_follow() RETURNS trigger
       LANGUAGE plpgsql AS $$
       BEGIN
         IF TG_OP = 'UPDATE' AND NEW.status = OLD.status AND NEW.amount = OLD.amount AND NEW.wallet = OLD.wallet
            AND NEW.created_at = OLD.created_at AND NEW.settled_at IS NOT DISTINCT FROM OLD.settled_at THEN
           RETURN NULL;
         END IF;
         IF TG_OP IN ('UPDATE', 'DELETE') THEN
           IF OLD.status IN ('reserved', 'pending', 'settled') THEN PERFORM ledger_totals_add(OLD.wallet, 0::smallint, OLD.created_at, -OLD.amount); END IF;
           IF OLD.status = 'settled' THEN PERFORM ledger_totals_add(OLD.wallet, 1::smallint, COALESCE(OLD.settled_at, OLD.created_at), -OLD.amount); END IF;
         END IF;
         IF TG_OP IN ('INSERT', 'UPDATE') THEN
           IF NEW.status IN ('reserved', 'pending', 'settled') THEN PERFORM ledger_totals_add(NEW.wallet, 0::smallint, NEW.created_at, NEW.amount); END IF;
           IF NEW.status = 'settled' THEN PERFORM ledger_totals_add(NEW.wallet, 1::smallint, COALESCE(NEW.settled_at, NEW.created_at), NEW.amount); END IF;
         END IF;
         RETURN NULL;
       END $$`,
      "CREATE TRIGGER payments_totals AFTER INSERT OR UPDATE OR DELETE ON payments FOR EACH ROW EXECUTE FUNCTION ledger_totals_follow()",
      // The payments already recorded.
      `INSERT INTO ledger_totals (wallet, measure, span, starts_at, amount)
       SELECT wallet, 0, span, bucket, SUM(amount) FROM (
         SELECT wallet, amount, 0 AS span, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS bucket FROM payments WHERE status IN ('reserved', 'pending', 'settled')
         UNION ALL
         SELECT wallet, amount, 1, date_trunc('day', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' FROM payments WHERE status IN ('reserved', 'pending', 'settled')
       ) counted GROUP BY wallet, span, bucket`,
      `INSERT INTO ledger_totals (wallet, measure, span, starts_at, amount)
       SELECT wallet, 1, span, bucket, SUM(amount) FROM (
         SELECT wallet, amount, 0 AS span, date_trunc('hour', COALESCE(settled_at, created_at) AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS bucket FROM payments WHERE status = 'settled'
         UNION ALL
         SELECT wallet, amount, 1, date_trunc('day', COALESCE(settled_at, created_at) AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' FROM payments WHERE status = 'settled'
       ) settled GROUP BY wallet, span, bucket`,
      // A wallet's settled payments, newest settlement first: the history's pages and the recent list.
      "CREATE INDEX payments_settled_by_wallet ON payments (wallet, (COALESCE(settled_at, created_at)) DESC, payment_id DESC) WHERE status = 'settled'",
    ],
  },
  {
    id: 9,
    name: "what counts against the limits as a function",
    // What counts against a person's limits is read on every quote and every reservation. As
    // one statement of nine subqueries it was planned anew each time: 3-4 ms of PGlite's time on
    // an empty ledger, against 0.5 ms to run. Inside a PL/pgSQL function its plan is kept for the
    // connection (PostgreSQL's plan cache), and the statement that calls it is trivial to plan.
    // The kept plan is the generic one, made once for any wallet and window: left to choose,
    // PostgreSQL goes back to planning each call anew once the ledger has statistics (3 ms a
    // read on a PGlite of 200,000 payments, against 0.7 ms), and the generic plan reads the same
    // indexes (the ledger's plan test holds it to them). The settled windows, which only the
    // spending report reads, stay a statement: their generic plan measured twice as slow as a
    // fresh one for a typical wallet on a ledger of 1,000,000 payments.
    // The totals' trigger also leaves a measure alone when a change does not move it (a
    // reservation that settles still counts, at the same time, for the same amount): one upsert
    // where a settlement made three.
    statements: [
      `CREATE FUNCTION ledger_counted_since(text[], timestamptz) RETURNS numeric
       LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
       BEGIN
         RETURN (${countedSinceQuery});
       END $$`,
      `CREATE OR REPLACE FUNCTION ledger_totals_follow() RETURNS trigger
       LANGUAGE plpgsql AS $$
       DECLARE
         old_counted boolean := TG_OP <> 'INSERT' AND OLD.status IN ('reserved', 'pending', 'settled');
         new_counted boolean := TG_OP <> 'DELETE' AND NEW.status IN ('reserved', 'pending', 'settled');
         old_settled boolean := TG_OP <> 'INSERT' AND OLD.status = 'settled';
         new_settled boolean := TG_OP <> 'DELETE' AND NEW.status = 'settled';
         same_payment boolean := TG_OP = 'UPDATE' AND NEW.wallet = OLD.wallet AND NEW.amount = OLD.amount;
       BEGIN
         IF NOT (same_payment AND old_counted AND new_counted AND NEW.created_at = OLD.created_at) THEN
           IF old_counted THEN PERFORM ledger_totals_add(OLD.wallet, 0::smallint, OLD.created_at, -OLD.amount); END IF;
           IF new_counted THEN PERFORM ledger_totals_add(NEW.wallet, 0::smallint, NEW.created_at, NEW.amount); END IF;
         END IF;
         IF NOT (same_payment AND old_settled AND new_settled AND COALESCE(NEW.settled_at, NEW.created_at) = COALESCE(OLD.settled_at, OLD.created_at)) THEN
           IF old_settled THEN PERFORM ledger_totals_add(OLD.wallet, 1::smallint, COALESCE(OLD.settled_at, OLD.created_at), -OLD.amount); END IF;
           IF new_settled THEN PERFORM ledger_totals_add(NEW.wallet, 1::smallint, COALESCE(NEW.settled_at, NEW.created_at), NEW.amount); END IF;
         END IF;
         RETURN NULL;
       END $$`,
    ],
  },
  {
    id: 10,
    name: "spent sign-in nonces",
    // A sign-in's nonce is good once (lib/session.ts): each one used is kept here until it would
    // have expired, so every instance sharing the database refuses it a second time.
    statements: [
      `CREATE TABLE spent_sign_in_nonces (
        nonce text PRIMARY KEY,
        expires_at timestamptz NOT NULL
      )`,
      "CREATE INDEX spent_sign_in_nonces_by_expiry ON spent_sign_in_nonces (expires_at)",
    ],
  },
  {
    id: 11,
    name: "payment schemes and usage-priced maximums",
    // The scheme a payment was made in (x402 `exact` or `upto`, MPP's `evm` charge): which protocol
    // it was paid through, for its card, its history and its reconciliation; every row before is
    // `exact`. A usage-priced one (x402 `upto`) also records its maximum: `amount` stays what
    // counts against the limits (the maximum while reserved or pending, what the chain shows
    // settled once settled), so the totals' triggers need no change.
    statements: [
      "ALTER TABLE payments ADD COLUMN scheme text NOT NULL DEFAULT 'exact'",
      "ALTER TABLE payments ADD COLUMN max_amount numeric(78, 0) CHECK (max_amount IS NULL OR max_amount >= amount)",
    ],
  },
  {
    id: 12,
    name: "payment channels",
    // A pay-as-you-go channel (x402 `batch-settlement`): one deposit, then many calls paid by
    // cumulative vouchers. The deposit is an ordinary payment row (`deposit_payment_id`), which
    // counts in full against the limits while the channel can be claimed; the channel row keeps
    // what the ledger itself vouched (`vouched`, the last voucher's cumulative maximum, never the
    // service's figure) and what the services said they charged. Each call is a row of
    // channel_calls, listed in the history but outside the totals: its money is the deposit's.
    statements: [
      `CREATE TABLE channels (
        channel_id text PRIMARY KEY,
        wallet text NOT NULL,
        network text NOT NULL,
        config jsonb NOT NULL,
        requirements jsonb NOT NULL,
        service_name text NOT NULL,
        service_url text NOT NULL,
        deposit_payment_id text NOT NULL REFERENCES payments (payment_id),
        deposit numeric(78, 0) NOT NULL CHECK (deposit > 0),
        vouched numeric(78, 0) NOT NULL DEFAULT 0 CHECK (vouched >= 0 AND vouched <= deposit),
        charged numeric(78, 0) NOT NULL DEFAULT 0 CHECK (charged >= 0 AND charged <= vouched),
        state text NOT NULL CHECK (state IN ('opening', 'open', 'closing', 'withdrawing', 'closed')),
        withdraw_requested_at timestamptz,
        close_tx text,
        claimed numeric(78, 0) CHECK (claimed >= 0 AND claimed <= deposit),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
      "CREATE INDEX channels_by_wallet ON channels (wallet, created_at DESC)",
      `CREATE TABLE channel_calls (
        call_id text PRIMARY KEY,
        channel_id text NOT NULL REFERENCES channels (channel_id),
        amount numeric(78, 0) NOT NULL CHECK (amount >= 0),
        cumulative numeric(78, 0) NOT NULL CHECK (cumulative >= amount),
        charged numeric(78, 0),
        status text NOT NULL CHECK (status IN ('vouched', 'charged', 'failed')),
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
      "CREATE INDEX channel_calls_by_channel ON channel_calls (channel_id, created_at DESC)",
      // A page open for the wallet may hold a channel key without an agent budget: it signs the
      // vouchers of the wallet's AI apps' calls on a channel, as the budget's key pays their small quotes.
      "ALTER TABLE mcp_budget_watch ALTER COLUMN budget DROP NOT NULL, ALTER COLUMN threshold DROP NOT NULL, ADD COLUMN channel_key text",
    ],
  },
  {
    id: 13,
    name: "payment channels as migration 12 ends",
    // Migration 12 shipped in earlier forms, and a database migrated by one of them kept that form:
    // its channels had no `claimed` (every channel sweep and budget read then failed), its AI apps'
    // watch no channel key. This brings any of them to migration 12's last form; on a database
    // that has it, each statement changes nothing.
    statements: [
      "ALTER TABLE channels ADD COLUMN IF NOT EXISTS requirements jsonb NOT NULL DEFAULT '{}'::jsonb",
      "ALTER TABLE channels ALTER COLUMN requirements DROP DEFAULT",
      "ALTER TABLE channels ADD COLUMN IF NOT EXISTS claimed numeric(78, 0) CHECK (claimed >= 0 AND claimed <= deposit)",
      "ALTER TABLE mcp_budget_watch ALTER COLUMN budget DROP NOT NULL, ALTER COLUMN threshold DROP NOT NULL, ADD COLUMN IF NOT EXISTS channel_key text",
    ],
  },
  {
    id: 14,
    name: "holds drawn under every rule",
    // A channel is a hold: bound to the price it was opened at (`price`; a later call priced above
    // it asks the person), and looked at by the sweep in turn (`looked_at`, the last look; a look
    // that changed nothing waits longer each time, `look_after`), so channels stuck in one state
    // never keep the others from being looked at. Each call records what its approval was bound to
    // (`bound_to`: the door's binding, an AI app's grant), so the draws under a grant are counted
    // against that grant's limits, as its other payments are.
    // Each statement changes nothing where it already took effect, as migration 13's, so a
    // database brought back to an earlier form of migration 12 (migration 13's case) takes it too.
    statements: [
      "ALTER TABLE channels ADD COLUMN IF NOT EXISTS price numeric(78, 0) CHECK (price IS NULL OR price >= 0)",
      "ALTER TABLE channels ADD COLUMN IF NOT EXISTS looked_at timestamptz, ADD COLUMN IF NOT EXISTS look_after timestamptz, ADD COLUMN IF NOT EXISTS unchanged_looks integer NOT NULL DEFAULT 0",
      "CREATE INDEX IF NOT EXISTS channels_to_look_at ON channels (look_after NULLS FIRST, looked_at NULLS FIRST) WHERE state IN ('opening', 'closing', 'withdrawing')",
      "ALTER TABLE channel_calls ADD COLUMN IF NOT EXISTS bound_to text",
      "CREATE INDEX IF NOT EXISTS channel_calls_by_time ON channel_calls (created_at)",
    ],
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
