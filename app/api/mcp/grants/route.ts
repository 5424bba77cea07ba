// /api/mcp/grants (docs/contract.md, section 11): access grants for AI apps, made and revoked in
// the page. The steps live in lib/remote/grants-request.ts.
import { getDatabase } from "@/lib/db";
import { serverEnv } from "@/lib/env";
import { createGrantsRateLimit, handleGrantsRequest } from "@/lib/remote/grants-request";

export const dynamic = "force-dynamic";

// This process's count of requests per client: an explicit, bounded cache.
const rateLimit = createGrantsRateLimit();

const handle = (request: Request) => handleGrantsRequest(request, { env: serverEnv, database: getDatabase, rateLimit });

export { handle as DELETE, handle as POST };
