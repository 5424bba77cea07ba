// The process's database, opened on first use from the validated environment and kept.
import path from "node:path";
import { serverEnv } from "@/lib/env";
import { openDatabase, type Database } from "./client";

export type { Database, Queryable, Row } from "./client";
export { openDatabase } from "./client";

let opening: Promise<Database> | undefined;

export function getDatabase(): Promise<Database> {
  if (!opening) {
    const env = serverEnv();
    opening = openDatabase({ url: env.DATABASE_URL, dataDir: path.resolve(env.DATA_DIR, "pglite") });
    // A failed open is not cached: the next request tries again.
    opening.catch(() => {
      opening = undefined;
    });
  }
  return opening;
}
