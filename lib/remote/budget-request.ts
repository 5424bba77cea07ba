// `/api/mcp/budget` (docs/contract.md, sections 11 and 15): a page open with an agent budget, or a
// channel key, says so. POST `{ agentBudget, threshold }` (the grant as the chat sends it; the
// confirmation threshold in USDC atomic units) and/or `{ channelKey }` for the wallet's own
// session: kept for WATCH_FRESH_MS, and answered with the apps' quotes waiting for the page (those
// made for the budget, and calls on the wallet's channels). DELETE: the page stops paying them.
import { z } from "zod";
import { sameAddress } from "@/lib/address";
import { evmAddressSchema } from "@/lib/chain/addresses";
import { agentBudgetSchema } from "@/lib/chain/delegation-schema";
import type { Database } from "@/lib/db";
import type { ServerEnv } from "@/lib/env";
import { AppError, toAppError } from "@/lib/errors";
import { readJsonBody } from "@/lib/net/request-body";
import { clientKey, createRateLimiter, type RateLimiter } from "@/lib/rate-limit";
import { sessionWallet } from "@/lib/session";
import { quotesForBudget, stopWatching, watchBudget } from "./budget-watch";

export type BudgetDoorDependencies = {
  env: () => ServerEnv;
  database: () => Promise<Database>;
  rateLimit: RateLimiter;
  now?: () => Date;
};

/** A page calls every few seconds: room for a few tabs, not for a flood. */
export const createBudgetWatchRateLimit = (): RateLimiter => createRateLimiter({ limit: 90, windowMs: 60_000, maxClients: 10_000 });

const watchSchema = z
  .strictObject({
    agentBudget: agentBudgetSchema.optional(),
    threshold: z.string().regex(/^(0|[1-9]\d{0,12})$/, "a whole number of USDC atomic units").optional(),
    /** The page's channel key for the wallet (docs/contract.md, section 15). */
    channelKey: evmAddressSchema.optional(),
  })
  .refine((body) => body.agentBudget !== undefined || body.channelKey !== undefined, "names neither an agent budget nor a channel key");

export async function handleBudgetWatchRequest(request: Request, deps: BudgetDoorDependencies): Promise<Response> {
  const now = deps.now?.() ?? new Date();
  try {
    const env = deps.env();
    deps.rateLimit.take(clientKey(request, env), now);
    const wallet = sessionWallet(request, env, now);
    if (!wallet) throw new AppError("unauthorized", "Sign in with the wallet to let its agent budget pay its AI apps' small payments.");
    const db = await deps.database();
    if (request.method === "DELETE") {
      await stopWatching(db, wallet);
      return Response.json({ watching: false }, { headers: { "Cache-Control": "no-store" } });
    }
    if (request.method !== "POST") throw new AppError("bad-request", "Watch with POST, stop with DELETE.");
    const json = await readJsonBody(request, { expected: "{ agentBudget, threshold } and/or { channelKey }" });
    const parsed = watchSchema.safeParse(json);
    if (!parsed.success) throw new AppError("bad-request", "Send { agentBudget, threshold }, { channelKey }, or both.");
    const { agentBudget, threshold, channelKey } = parsed.data;
    if (agentBudget && !sameAddress(agentBudget.wallet, wallet)) throw new AppError("bad-request", "This agent budget is another wallet's.");
    // The grant's signature is checked when a quote would use it, as in the chat.
    await watchBudget(db, { wallet, grant: agentBudget, threshold: threshold === undefined ? undefined : BigInt(threshold), channelKey, now });
    return Response.json({ watching: true, quotes: await quotesForBudget(db, wallet, now) }, { headers: { "Cache-Control": "no-store" } });
  } catch (error) {
    const response = toAppError(error).toResponse();
    response.headers.set("Cache-Control", "no-store");
    return response;
  }
}
