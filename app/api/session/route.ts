// /api/session (docs/contract.md, section 9): who is signed in and a sign-in nonce (GET), signing in with the
// wallet (POST, EIP-4361), signing out (DELETE). The work lives in lib/session.ts.
import { getDatabase } from "@/lib/db";
import { serverEnv } from "@/lib/env";
import { createSessionRateLimit, handleSessionRequest } from "@/lib/session";

export const dynamic = "force-dynamic";

// This process's count of requests per client: an explicit, bounded cache.
const deps = { env: serverEnv, database: getDatabase, rateLimit: createSessionRateLimit(), log: (message: string, details?: Record<string, unknown>) => console.error(`[session] ${message}`, details ?? "") };

export function GET(request: Request): Promise<Response> {
  return handleSessionRequest(request, deps);
}

export function POST(request: Request): Promise<Response> {
  return handleSessionRequest(request, deps);
}

export function DELETE(request: Request): Promise<Response> {
  return handleSessionRequest(request, deps);
}
