// The process's database, opened from the validated environment once and kept: by the server's
// start-up hook (instrumentation.ts), so that the first request finds it open or on its way, or
// else on first use. Next bundles the start-up hook apart from the routes, each with its own
// copy of this module, so the one open database is kept on the process (one PGlite per folder).
import path from "node:path";
import { serverEnv } from "@/lib/env";
import { openDatabase, type Database } from "./client";

export type { Database, Queryable, Row } from "./client";
export { openDatabase } from "./client";

const processWide = globalThis as typeof globalThis & { __x402Database?: Promise<Database> | undefined };

export function getDatabase(): Promise<Database> {
  if (!processWide.__x402Database) {
    const env = serverEnv();
    const opening = openDatabase({ url: env.DATABASE_URL, dataDir: path.resolve(env.DATA_DIR, "pglite") });
    processWide.__x402Database = opening;
    // A failed open is not cached: the next request tries again.
    opening.catch(() => {
      if (processWide.__x402Database === opening) processWide.__x402Database = undefined;
    });
  }
  return processWide.__x402Database;
}
