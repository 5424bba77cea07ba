// The schema, as an ordered list of migrations that run once each, on PGlite and Postgres alike.
import type { Database } from "./client";

type Migration = { id: number; name: string; sql: string };

export const migrations: readonly Migration[] = [
  {
    id: 1,
    name: "chat cooldowns",
    sql: `
      CREATE TABLE chat_cooldowns (
        client_key text PRIMARY KEY,
        last_message_at timestamptz NOT NULL
      );
    `,
  },
];

// Any fixed number: it only has to be the same in every process that migrates this database.
const MIGRATION_LOCK = 402_402;

export async function migrate(db: Database): Promise<void> {
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
      await tx.query(migration.sql);
      await tx.query("INSERT INTO schema_migrations (id, name) VALUES ($1, $2)", [migration.id, migration.name]);
    }
  });
}
