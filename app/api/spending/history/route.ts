// GET /api/spending/history?wallet=…: the signed-in person's payments, a page at a time, or all
// of them as CSV (format=csv). The steps live in lib/account/payment-history.ts.
import { getDatabase } from "@/lib/db";
import { serverEnv } from "@/lib/env";
import { handleHistoryRequest } from "@/lib/account/payment-history";
import { createSpendingRateLimit } from "@/lib/account/spending-request";

export const dynamic = "force-dynamic";

// This process's count of requests per client: an explicit, bounded cache.
const rateLimit = createSpendingRateLimit();

export function GET(request: Request): Promise<Response> {
  return handleHistoryRequest(request, { env: serverEnv, database: getDatabase, rateLimit });
}
