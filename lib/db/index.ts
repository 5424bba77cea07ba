// The process's database, opened on first use from the validated environment and kept.
import path from "node:path";
import { serverEnv } from "@/lib/env";
import { processState } from "@/lib/process-state";
import { openDatabase, type Database } from "./client";

export type { Database, Queryable, Row } from "./client";
export { openDatabase } from "./client";

// One per process (lib/process-state.ts): the start-up hook begins the open while the server
// loads its routes, and the routes use what it opened (PGlite is one process's; a pool is one
// per process).
const state = processState("database", () => ({ opening: undefined as Promise<Database> | undefined }));

/** Where PGlite keeps the ledger under a data folder (DATA_DIR). */
export const pgliteFolder = (dataDir: string): string => path.resolve(dataDir, "pglite");

export function getDatabase(): Promise<Database> {
  let { opening } = state;
  if (!opening) {
    const env = serverEnv();
    opening = openDatabase({ url: env.DATABASE_URL, dataDir: pgliteFolder(env.DATA_DIR) });
    state.opening = opening;
    // A failed open is not cached: the next request tries again.
    opening.catch(() => {
      if (state.opening === opening) state.opening = undefined;
    });
  }
  return opening;
}
