// `/api/mcp/grants` (docs/contract.md, section 11): POST turns a grant the wallet signed into the
// bearer token an AI app holds (shown once; the server keeps no copy). It starts no session: a
// grant is passed around (an app's configuration, a log), and a session is started only by
// signing in or approving a payment. DELETE revokes a grant, for the wallet's own session only.
import { z } from "zod";
import type { Database } from "@/lib/db";
import type { ServerEnv } from "@/lib/env";
import { AppError, toAppError } from "@/lib/errors";
import { readJsonBody } from "@/lib/net/request-body";
import { clientKey, createRateLimiter, type RateLimiter } from "@/lib/rate-limit";
import { sessionWallet } from "@/lib/session";
import { issueGrantToken, revokeGrant } from "./grant-token";

export type GrantsDependencies = {
  env: () => ServerEnv;
  database: () => Promise<Database>;
  rateLimit: RateLimiter;
  now?: () => Date;
  log?: (message: string, details?: Record<string, unknown>) => void;
};

export const createGrantsRateLimit = (): RateLimiter => createRateLimiter({ limit: 20, windowMs: 60_000, maxClients: 10_000 });

// `validUntil` is what the page knows of the grant; the revocation outlasts any grant's end whatever it says.
const revokeSchema = z.object({ id: z.string().regex(/^[0-9a-f]{32}$/), validUntil: z.number().int().positive().optional() }).strict();
const noStore = { "Cache-Control": "no-store" };

export async function handleGrantsRequest(request: Request, deps: GrantsDependencies): Promise<Response> {
  const now = deps.now?.() ?? new Date();
  try {
    const env = deps.env();
    deps.rateLimit.take(clientKey(request, env), now);
    if (request.method !== "POST" && request.method !== "DELETE") throw new AppError("bad-request", "Create a grant with POST, revoke one with DELETE.");
    const json = await readJsonBody(request, { expected: "{ grant, chainId, signature } to create a grant, { id } to revoke one" });
    if (request.method === "POST") {
      const { token, grant } = await issueGrantToken(await deps.database(), json, { env, now });
      return Response.json({ token, grant }, { status: 201, headers: noStore });
    }
    const parsed = revokeSchema.safeParse(json);
    if (!parsed.success) throw new AppError("bad-request", "Send the grant to revoke as { id }.");
    const wallet = sessionWallet(request, env, now);
    if (!wallet) throw new AppError("unauthorized", "Sign in with the wallet that gave the grant to revoke it.");
    await revokeGrant(await deps.database(), { id: parsed.data.id, wallet, now });
    return Response.json({ revoked: parsed.data.id }, { headers: noStore });
  } catch (error) {
    const appError = toAppError(error);
    if (appError.status >= 500) deps.log?.("grants request failed", { code: appError.code });
    const response = appError.toResponse();
    response.headers.set("Cache-Control", "no-store");
    return response;
  }
}
