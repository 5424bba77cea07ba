// One `GET /api/sweep` request (docs/contract.md, section 14, "Late money is found"): a host's
// scheduler (Vercel Cron, or any that sends a bearer secret) runs the sweep of unfinished payments
// when nobody visits, so on a serverless host, where no timer lives between requests, money a
// service collects late is still found within minutes. Only with CRON_SECRET, compared in constant
// time; the sweep itself still runs at most once a minute across every instance.
import { createHash, timingSafeEqual } from "node:crypto";
import type { Database } from "@/lib/db";
import type { ServerEnv } from "@/lib/env";
import { AppError, toAppError } from "@/lib/errors";
import { sweepIfDue } from "@/lib/payments/sweep";

export type SweepRequestDependencies = {
  env: () => ServerEnv;
  database: () => Promise<Database>;
  now?: () => Date;
  log?: (message: string, details?: Record<string, unknown>) => void;
};

const noStore = { "Cache-Control": "no-store" };

/** Whether the request carries `Authorization: Bearer <secret>`, compared by digest so its length tells nothing. */
function bearerMatches(request: Request, secret: string): boolean {
  const given = request.headers.get("authorization") ?? "";
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(given), digest(`Bearer ${secret}`));
}

export async function handleSweepRequest(request: Request, deps: SweepRequestDependencies): Promise<Response> {
  try {
    const env = deps.env();
    if (!env.CRON_SECRET) throw new AppError("not-found", "No scheduled sweep is configured here: set CRON_SECRET to enable it.");
    if (!bearerMatches(request, env.CRON_SECRET)) throw new AppError("unauthorized", "The scheduled sweep needs Authorization: Bearer CRON_SECRET.");
    const now = deps.now?.();
    const report = await sweepIfDue({ db: await deps.database(), env, ...(now ? { now } : {}), ...(deps.log ? { log: deps.log } : {}) });
    // Not due: another instance (or a visit) swept within the minute.
    return Response.json(report ? { swept: true, report } : { swept: false }, { headers: noStore });
  } catch (error) {
    const appError = toAppError(error);
    if (appError.status >= 500) deps.log?.("sweep request failed", { code: appError.code });
    const response = appError.toResponse();
    response.headers.set("Cache-Control", "no-store");
    return response;
  }
}
