// POST /api/channels (docs/contract.md, section 15): closing a pay-as-you-go channel, or taking its
// deposit back without the service. The steps live in lib/account/channels-request.ts.
import { getDatabase } from "@/lib/db";
import { serverEnv } from "@/lib/env";
import { createChannelsRateLimit, handleChannelsRequest } from "@/lib/account/channels-request";

export const dynamic = "force-dynamic";

// This process's count of requests per client: an explicit, bounded cache.
const rateLimit = createChannelsRateLimit();

export function POST(request: Request): Promise<Response> {
  return handleChannelsRequest(request, { env: serverEnv, database: getDatabase, rateLimit, log: (message, details) => console.error(`[channels] ${message}`, details ?? "") });
}
