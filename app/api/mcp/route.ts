// POST /api/mcp (docs/contract.md, section 11): the MCP door for AI apps that hold an access
// grant. The steps live in lib/mcp/handler.ts; this file wires them to the process's configuration.
import { after } from "next/server";
import { getDatabase } from "@/lib/db";
import { serverEnv } from "@/lib/env";
import { createMcpRateLimit, handleMcpRequest } from "@/lib/mcp/handler";

export const maxDuration = 50;
export const dynamic = "force-dynamic";

// This process's count of requests per grant: an explicit, bounded cache.
const rateLimit = createMcpRateLimit();

const handle = (request: Request) => handleMcpRequest(request, { env: serverEnv, database: getDatabase, rateLimit, keepAlive: after });

export { handle as DELETE, handle as GET, handle as POST };
