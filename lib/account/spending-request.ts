// One `GET /api/spending?wallet=…` request (docs/contract.md, section 9): count it against the client's
// rate limit, validate the query, build the report, answer. Every answer, error or not, is
// JSON that no cache keeps.
import { z } from "zod";
import { addressNamespace, WALLET_FAMILIES, walletAddressSchema } from "@/lib/chain/addresses";
import type { Database } from "@/lib/db";
import type { ServerEnv } from "@/lib/env";
import { AppError, toAppError } from "@/lib/errors";
import { clientKey, createRateLimiter, type RateLimiter } from "@/lib/rate-limit";
import { isSignedInAs } from "@/lib/session";
import { getSpendingReport } from "@/lib/payments/spending-report";
import { sweepInBackground, type KeepAlive } from "@/lib/payments/sweep";

/**
 * The query: `wallet`, an EVM address (EIP-55 checksummed if mixed case) or a Solana address;
 * given twice, a person's EVM and Solana wallets, counted together as their limits are.
 */
export const spendingQuerySchema = z.object({
  wallet: z
    .array(walletAddressSchema)
    .min(1, "is required")
    .max(WALLET_FAMILIES.count, `must be given at most twice (${WALLET_FAMILIES.words})`)
    .refine((wallets) => new Set(wallets.map(addressNamespace)).size === wallets.length, "must name at most one wallet per chain family"),
});

export type SpendingQuery = z.infer<typeof spendingQuerySchema>;

/** A public read: 60 requests a minute per client (lib/rate-limit.ts `clientKey`). */
export const createSpendingRateLimit = (): RateLimiter => createRateLimiter({ limit: 60, windowMs: 60_000, maxClients: 10_000 });

export type SpendingDependencies = {
  env: () => ServerEnv;
  database: () => Promise<Database>;
  rateLimit: RateLimiter;
  now?: () => Date;
  log?: (message: string, details?: Record<string, unknown>) => void;
  /** Where the host keeps the function alive for the sweep a request starts (Next's `after()`). */
  keepAlive?: KeepAlive;
};

const noStore = { "Cache-Control": "no-store" };

const defaultLog = (message: string, details?: Record<string, unknown>) =>
  console.error(`[spending] ${message}`, details ?? "");

export async function handleSpendingRequest(request: Request, deps: SpendingDependencies): Promise<Response> {
  try {
    const env = deps.env();
    deps.rateLimit.take(clientKey(request, env), deps.now?.());
    const { wallet: wallets } = readSpendingQuery(request);
    const now = deps.now?.();
    const db = await deps.database();
    // A person looking at their spending keeps the unfinished payments reconciled too (at most
    // once a minute, in the background): money a service collects late is found when it matters.
    sweepInBackground({ db, env, ...(now ? { now } : {}), log: deps.log ?? defaultLog, keepAlive: deps.keepAlive });
    const report = await getSpendingReport({
      db,
      env,
      wallet: wallets,
      // Which payments, to which services: only for the wallets' own session. Anyone else gets
      // the totals, which the wallets' transfers on chain already make public.
      history: wallets.filter((wallet) => isSignedInAs(request, wallet, env, now)),
      ...(now ? { now } : {}),
    });
    return Response.json(report, { status: 200, headers: noStore });
  } catch (error) {
    const appError = toAppError(error);
    if (appError.status >= 500) (deps.log ?? defaultLog)("request failed", { code: appError.code, error: errorName(error) });
    const response = appError.toResponse();
    response.headers.set("Cache-Control", "no-store");
    return response;
  }
}

/** Reads and validates the query; throws `bad-request` naming what is wrong. */
export function readSpendingQuery(request: Request): SpendingQuery {
  const params = new URL(request.url).searchParams;
  const parsed = spendingQuerySchema.safeParse({ wallet: params.getAll("wallet") });
  if (parsed.success) return parsed.data;
  const reasons = [...new Set(parsed.error.issues.map((issue) => issue.message))];
  throw new AppError("bad-request", `The wallet query parameter ${reasons.join(" and ")}.`, {
    details: { fields: parsed.error.issues.map((issue) => ({ path: "wallet", message: issue.message })) },
  });
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}
