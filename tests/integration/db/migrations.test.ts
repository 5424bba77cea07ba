// The migration check at each start: a database that is already current costs one read, with no
// lock, no transaction and no DDL; a new one is migrated in full; one migrated while migration 12
// had an earlier form is brought to its last.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Database } from "@/lib/db";
import { migrate, migrations } from "@/lib/db/migrations";
import { channelsOf, channelsToSettle } from "@/lib/payments/ledger/channels";
import { openTestDatabase } from "@/tests/helpers/database";

let db: Database;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(async () => {
  await db.close();
});

describe("migrations", () => {
  test("a new database gets every migration, once", async () => {
    const applied = await db.query<{ id: number }>("SELECT id FROM schema_migrations ORDER BY id");
    expect(applied.map((row) => row.id)).toEqual(migrations.map((migration) => migration.id));
  });

  test("a current database is checked with one read, without a transaction", async () => {
    const asked: string[] = [];
    let transactions = 0;
    const watched: Database = {
      query: (sql, params) => {
        asked.push(sql);
        return db.query(sql, params);
      },
      transaction: (work) => {
        transactions += 1;
        return db.transaction(work);
      },
      close: async () => undefined,
    };
    await migrate(watched);
    expect(asked).toEqual(["SELECT id FROM schema_migrations"]);
    expect(transactions).toBe(0);
  });

  test("a database migrated by an earlier form of migration 12 gets what that form lacked: its channels can be read and swept", async () => {
    const old = await openTestDatabase();
    try {
      // Migration 12 as it first reached main: channels without `claimed`, the AI apps' watch
      // without a channel key and with a budget always set; nothing recorded after it.
      await old.query("ALTER TABLE channels DROP COLUMN claimed");
      await old.query("ALTER TABLE mcp_budget_watch DROP COLUMN channel_key, ALTER COLUMN budget SET NOT NULL, ALTER COLUMN threshold SET NOT NULL");
      await old.query("DELETE FROM schema_migrations WHERE id > 12");
      await expect(channelsToSettle(old)).rejects.toThrow(/claimed/);

      await migrate(old);
      const columns = await old.query<{ table_name: string; column_name: string; is_nullable: string }>(
        "SELECT table_name, column_name, is_nullable FROM information_schema.columns WHERE table_name IN ('channels', 'mcp_budget_watch') AND column_name IN ('claimed', 'requirements', 'channel_key', 'budget')",
      );
      expect(columns.map((column) => `${column.table_name}.${column.column_name} ${column.is_nullable}`).sort()).toEqual([
        "channels.claimed YES",
        "channels.requirements NO",
        "mcp_budget_watch.budget YES",
        "mcp_budget_watch.channel_key YES",
      ]);
      expect(await channelsToSettle(old)).toEqual([]);
      expect(await channelsOf(old, "0x0000000000000000000000000000000000000001")).toEqual([]);
    } finally {
      await old.close();
    }
  });
});

