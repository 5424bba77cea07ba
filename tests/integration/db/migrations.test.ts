// The migration check at each start: a database that is already current costs one read, with no
// lock, no transaction and no DDL; a new one is migrated in full.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Database } from "@/lib/db";
import { migrate, migrations } from "@/lib/db/migrations";
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
});
