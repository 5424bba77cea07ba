// GET /api/sweep (docs/contract.md, section 14): a host's scheduler runs the sweep of unfinished
// payments. The steps live in lib/cron/sweep-request.ts.
import { getDatabase } from "@/lib/db";
import { serverEnv } from "@/lib/env";
import { handleSweepRequest } from "@/lib/cron/sweep-request";

export const maxDuration = 50;
export const dynamic = "force-dynamic";

export function GET(request: Request): Promise<Response> {
  return handleSweepRequest(request, { env: serverEnv, database: getDatabase, log: (message, details) => console.error(`[sweep] ${message}`, details ?? "") });
}
