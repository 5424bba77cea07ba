// GET /api/health: the database, the registries and each enabled network's RPC, with timings;
// 200 when all answer, 503 otherwise. The checks live in lib/health.ts.
import { getDatabase } from "@/lib/db";
import { serverEnv } from "@/lib/env";
import { createHealthHandler } from "@/lib/health";

export const dynamic = "force-dynamic";

// This process's last answer, kept a few seconds: an explicit, bounded cache.
const health = createHealthHandler({ env: serverEnv, database: getDatabase });

export function GET(): Promise<Response> {
  return health();
}
