// POST /api/chat (docs/contract.md, section 2): validate, claim the cooldown, pick the model, stream the answer.
// The steps live in lib/chat/handler.ts; this file wires them to the process's configuration.
import { after } from "next/server";
import { handleChatRequest } from "@/lib/chat/handler";
import { createApprovalGate } from "@/lib/payments";
import { createChatTools } from "@/lib/chat/tools";
import { getDatabase } from "@/lib/db";
import { serverEnv } from "@/lib/env";

export const maxDuration = 50;
export const dynamic = "force-dynamic";

// This process's count of approval checks per client: an explicit, bounded cache.
const approvalGate = createApprovalGate();

export function POST(request: Request): Promise<Response> {
  return handleChatRequest(request, { env: serverEnv, database: getDatabase, createTools: createChatTools, approvalGate, keepAlive: after });
}
