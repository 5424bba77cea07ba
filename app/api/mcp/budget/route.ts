// /api/mcp/budget (docs/contract.md, section 11): a page open with an agent budget pays its AI
// apps' small quotes. The steps live in lib/remote/budget-request.ts.
import { getDatabase } from "@/lib/db";
import { serverEnv } from "@/lib/env";
import { createBudgetWatchRateLimit, handleBudgetWatchRequest } from "@/lib/remote/budget-request";

export const dynamic = "force-dynamic";

// This process's count of requests per client: an explicit, bounded cache.
const rateLimit = createBudgetWatchRateLimit();

const handle = (request: Request) => handleBudgetWatchRequest(request, { env: serverEnv, database: getDatabase, rateLimit });

export { handle as DELETE, handle as POST };
