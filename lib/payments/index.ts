// The payment core's front door (README, "One payment core, doors in front, rails behind"). A
// door opens it once per request and makes two calls: `quote` (request A: call the service and,
// on HTTP 402, quote the payment for the wallet to sign) and `approve` (request B: check the
// wallet's answer, pay, tell how it went). Each gives a typed result and the payment's updates as
// they happen; the door sets a small policy (what its quotes are bound to, its gate and cooldown,
// the agent budget it allows) and turns what comes back into its own wire format and words.
// The sweep of unfinished payments, the reconciliation with the chain and the ledger's records
// happen inside.
//
// Light to load: each half of the core (the rails, the chains' and the x402 packages' code) is
// loaded by the first call that needs it, so a first "hello" never waits for it
// (bench/RESULTS.md, cold start).
import type { Database } from "@/lib/db";
import type { ServerEnv } from "@/lib/env";
import { createRateLimiter, type RateLimiter } from "@/lib/rate-limit";
import type { ApprovalResult, ApprovePaymentParameters } from "./approve";
import type { QuotePaymentParameters, QuoteResult } from "./quote";
import { startRun, type PaymentRun } from "./run";
import { sweepInBackground, type KeepAlive } from "./sweep";

export type { ApprovalPolicy, ApprovalResult } from "./approve";
export type { DoorPolicy } from "./policy";
export type { QuotePolicy, QuoteResult, QuotedUpdate } from "./quote";
export type { PaymentRun } from "./run";
export type { ApprovalInput } from "./approval";
export type { PaymentReport } from "./delivery";
export type { KeepAlive } from "./sweep";

export type OpenPaymentsParameters = {
  db: Database;
  env: ServerEnv;
  /** The door's clock (tests); the wall clock by default. */
  now?: Date;
  log?: (message: string, details?: Record<string, unknown>) => void;
  /** Where the host keeps the function alive for the sweep this starts (Next's `after()`). */
  keepAlive?: KeepAlive;
};

export type Payments = {
  /** Request A. */
  quote(parameters: Omit<QuotePaymentParameters, "db" | "env">): PaymentRun<QuoteResult>;
  /** Request B. Resolves once it is known whether the payment goes; its updates and report follow in the result's run. */
  approve(parameters: Omit<ApprovePaymentParameters, "db" | "env" | "log">): Promise<ApprovalResult>;
};

/**
 * The core for one request of a door. Opening it keeps the ledger's unfinished payments
 * reconciled: at most once a minute, in the background, driven by requests rather than a timer.
 */
export function openPayments({ db, env, now, log, keepAlive }: OpenPaymentsParameters): Payments {
  sweepInBackground({ db, env, ...(now ? { now } : {}), ...(log ? { log } : {}), keepAlive });
  return {
    quote: (parameters) =>
      startRun(async (emit) => {
        const { quotePayment } = await import("./quote");
        return quotePayment({ ...parameters, db, env }, emit);
      }),
    async approve(parameters) {
      const { approvePayment } = await import("./approve");
      return approvePayment({ ...parameters, db, env, ...(log ? { log } : {}) });
    },
  };
}

/** 30 approval checks a minute per client: far above a person approving quotes, far below a flood. One per process, for every door. */
export const createApprovalGate = (): RateLimiter => createRateLimiter({ limit: 30, windowMs: 60_000, maxClients: 10_000 });
