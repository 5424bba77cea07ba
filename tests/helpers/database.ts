// Which database a test runs on. By default an in-memory PGlite. In the PostgreSQL pass
// (`npm run test:postgres`, which sets TEST_DATABASE_URL to a server where the test user may
// create databases) each open gets a fresh database of its own on that server, dropped when it
// is closed, so test files and tests never see each other's rows.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { openDatabase, type Database } from "@/lib/db";

/** The PostgreSQL server of the PostgreSQL pass, if this is that pass. */
export function testServerUrl(): string | undefined {
  return process.env.TEST_DATABASE_URL || undefined;
}

export type ScratchDatabase = {
  /** A connection string for the new, empty database. */
  url: string;
  /** Drops the database, disconnecting whoever is still on it. */
  drop(): Promise<void>;
};

async function onServer(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A new, empty database on the server at `serverUrl`. */
export async function createScratchDatabase(serverUrl: string): Promise<ScratchDatabase> {
  const name = `test_${randomBytes(8).toString("hex")}`;
  await onServer(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => onServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/** A migrated database for one test or test file: PGlite in memory, or a scratch PostgreSQL one. */
export async function openTestDatabase(): Promise<Database> {
  const serverUrl = testServerUrl();
  if (!serverUrl) return openDatabase({ dataDir: "memory://" });
  const scratch = await createScratchDatabase(serverUrl);
  const db = await openDatabase({ url: scratch.url, dataDir: "memory://" });
  return {
    ...db,
    async close() {
      await db.close();
      await scratch.drop();
    },
  };
}
