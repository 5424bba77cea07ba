// GET /api/spending?wallet=0x… (docs/contract.md, section 9): a wallet's settled spending per rolling period
// and its recent payments. The steps live in lib/account/spending-request.ts.
import { after } from "next/server";
import { getDatabase } from "@/lib/db";
import { serverEnv } from "@/lib/env";
import { createSpendingRateLimit, handleSpendingRequest } from "@/lib/account/spending-request";

export const dynamic = "force-dynamic";

// This process's count of requests per client: an explicit, bounded cache.
const rateLimit = createSpendingRateLimit();

export function GET(request: Request): Promise<Response> {
  return handleSpendingRequest(request, { env: serverEnv, database: getDatabase, rateLimit, keepAlive: after });
}
