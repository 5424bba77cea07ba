// /api/mcp/payments/{paymentId} (docs/contract.md, section 11): the approval view's read of a
// payment an AI app asked for, and its approval with the wallet's signature. The steps live in
// lib/remote/approval-by-link.ts.
import { after } from "next/server";
import { getDatabase } from "@/lib/db";
import { serverEnv } from "@/lib/env";
import { handleMcpPaymentRequest } from "@/lib/remote/approval-by-link";
import { createApprovalGate } from "@/lib/payments";

export const maxDuration = 50;
export const dynamic = "force-dynamic";

// This process's count of approval checks per client: an explicit, bounded cache.
const approvalGate = createApprovalGate();

type Context = { params: Promise<{ paymentId: string }> };

const handle = async (request: Request, { params }: Context) =>
  handleMcpPaymentRequest(request, (await params).paymentId, { env: serverEnv, database: getDatabase, approvalGate, keepAlive: after });

export { handle as GET, handle as POST };
