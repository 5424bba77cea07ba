// The database the ledger and the cooldown live in: embedded PGlite in a folder by default, a
// real Postgres when DATABASE_URL is set. Both are reached through one small interface, so
// every query is plain SQL that runs on either.
import type { PoolConfig } from "pg";
import { migrate } from "./migrations";
import type { Database, Row } from "./queryable";

export type { Database, Queryable, Row } from "./queryable";

export type OpenDatabaseParameters = {
  /** A postgres:// URL; unset means PGlite. */
  url?: string | undefined;
  /** PGlite's data folder, or `memory://` for a database that lives only in this process. */
  dataDir: string;
};

export async function openDatabase({ url, dataDir }: OpenDatabaseParameters): Promise<Database> {
  const db = url ? await openPostgres(url) : await openPglite(dataDir);
  await migrate(db);
  return db;
}

async function openPglite(dataDir: string): Promise<Database> {
  const { PGlite } = await import("@electric-sql/pglite");
  if (dataDir !== "memory://") {
    const { mkdir } = await import("node:fs/promises");
    await mkdir(dataDir, { recursive: true });
  }
  const pg = await PGlite.create(dataDir);
  return {
    async query<T extends Row>(sql: string, params: unknown[] = []) {
      return (await pg.query<T>(sql, params)).rows;
    },
    transaction(work) {
      return pg.transaction((tx) =>
        work({
          async query<T extends Row>(sql: string, params: unknown[] = []) {
            return (await tx.query<T>(sql, params)).rows;
          },
        }),
      );
    },
    close: () => pg.close(),
  };
}

/**
 * Pool settings for a server that may run as many short-lived instances, each with its own pool:
 * few connections per instance (a hosted PostgreSQL allows a few dozen in all), idle ones closed
 * soon so a frozen or finished instance does not hold them, and a bounded wait for a connection.
 * TLS is the connection string's own: `sslmode` (and `sslrootcert`, `uselibpqcompat`) in the URL
 * are honoured as written, never overridden here.
 */
export function postgresPoolConfig(url: string): PoolConfig {
  return {
    connectionString: url,
    max: 5,
    idleTimeoutMillis: 10_000,
    connectionTimeoutMillis: 10_000,
    // An instance with only idle connections left may exit (serverless hosts freeze or end it).
    allowExitOnIdle: true,
  };
}

async function openPostgres(url: string): Promise<Database> {
  const { default: pg } = await import("pg");
  const pool = new pg.Pool(postgresPoolConfig(url));
  // A server that drops an idle connection (a restart, a hosted database scaling to zero) must
  // not crash the process: the pool discards that connection and opens a new one when needed.
  pool.on("error", (error) => {
    console.error(`database: an idle connection failed and was discarded (${error.message})`);
  });
  return {
    async query<T extends Row>(sql: string, params: unknown[] = []) {
      return (await pool.query(sql, params)).rows as T[];
    },
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await work({
          async query<T extends Row>(sql: string, params: unknown[] = []) {
            return (await client.query(sql, params)).rows as T[];
          },
        });
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
