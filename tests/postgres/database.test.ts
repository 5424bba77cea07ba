// The ledger's database on a real PostgreSQL server: instances starting together migrate it once,
// PGlite and PostgreSQL end with the same schema, and the connection string's TLS setting is the
// one the pool uses.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { openDatabase, type Database } from "@/lib/db";
import { migrations } from "@/lib/db/migrations";
import { createScratchDatabase, testServerUrl, type ScratchDatabase } from "@/tests/helpers/database";

const serverUrl = () => {
  const url = testServerUrl();
  if (!url) throw new Error("the PostgreSQL pass sets TEST_DATABASE_URL");
  return url;
};

let scratch: ScratchDatabase;
beforeAll(async () => {
  scratch = await createScratchDatabase(serverUrl());
});
afterAll(async () => {
  await scratch?.drop();
});

type Column = { table_name: string; column_name: string; data_type: string; is_nullable: string; column_default: string | null };

const schemaOf = (db: Database) =>
  Promise.all([
    db.query<Column>(
      `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
       WHERE table_schema = 'public' ORDER BY table_name, column_name`,
    ),
    db.query(`SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname`),
    db.query(
      `SELECT conrelid::regclass::text AS table_name, conname, pg_get_constraintdef(oid) AS definition
       FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND contype <> 'n' ORDER BY conname`,
    ),
  ]);

describe("PostgreSQL", () => {
  test("eight instances starting together against one new database migrate it exactly once", async () => {
    const instances = await Promise.all(Array.from({ length: 8 }, () => openDatabase({ url: scratch.url, dataDir: "memory://" })));
    try {
      const [first] = instances as [Database];
      const applied = await first.query<{ id: number }>("SELECT id FROM schema_migrations ORDER BY id");
      expect(applied.map((row) => row.id)).toEqual(migrations.map((migration) => migration.id));
      // Every instance works on the migrated schema.
      for (const db of instances) await expect(db.query("SELECT count(*)::int AS n FROM payments")).resolves.toEqual([{ n: 0 }]);
    } finally {
      await Promise.all(instances.map((db) => db.close()));
    }
  });

  // PGlite compiles its WebAssembly on open, which takes a while on a busy machine.
  test("PGlite and PostgreSQL have the same schema after migrating", { timeout: 120_000 }, async () => {
    const own = await createScratchDatabase(serverUrl());
    const postgres = await openDatabase({ url: own.url, dataDir: "memory://" });
    const pglite = await openDatabase({ dataDir: "memory://" });
    try {
      const [onPostgres, onPglite] = await Promise.all([schemaOf(postgres), schemaOf(pglite)]);
      expect(onPostgres[0].map((column) => column.column_name)).toContain("valid_before");
      expect(onPglite).toEqual(onPostgres);
    } finally {
      await Promise.all([postgres.close(), pglite.close()]);
      await own.drop();
    }
  });

  test("the connection string's sslmode decides TLS: required TLS is refused by a server without it", async () => {
    const withSslmode = (mode: string) => {
      const url = new URL(scratch.url);
      url.searchParams.set("sslmode", mode);
      return url.toString();
    };
    const plain = await openDatabase({ url: withSslmode("disable"), dataDir: "memory://" });
    await expect(plain.query("SELECT 1 AS one")).resolves.toEqual([{ one: 1 }]);
    await plain.close();
    await expect(openDatabase({ url: withSslmode("require"), dataDir: "memory://" })).rejects.toThrow(
      /does not support SSL/,
    );
  });

  test("a connection the server drops while idle is replaced, and the process keeps running", async () => {
    const db = await openDatabase({ url: scratch.url, dataDir: "memory://" });
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const admin = new pg.Client({ connectionString: scratch.url });
    await admin.connect();
    try {
      await db.query("SELECT 1");
      // What a database restart or a hosted server scaling to zero does to idle connections.
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()");
      await vi.waitFor(() => expect(logged).toHaveBeenCalledWith(expect.stringMatching(/^database: an idle connection failed/)));
      await expect(db.query("SELECT 2 AS two")).resolves.toEqual([{ two: 2 }]);
      expect(JSON.stringify(logged.mock.calls)).not.toContain(scratch.url);
    } finally {
      logged.mockRestore();
      await admin.end();
      await db.close();
    }
  });
});
