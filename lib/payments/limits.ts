// The person's spending limits for one request: what the client sent, with the server's
// configured default for every field it left out. Amounts in micro-dollars.
import type { ServerEnv } from "@/lib/env";
import { parseUsd } from "@/lib/money";

export type SpendingLimits = { daily: bigint; weekly: bigint; monthly: bigint; perPayment: bigint };

type LimitsInput = Partial<SpendingLimits> | undefined;
type LimitDefaults = Pick<
  ServerEnv,
  "DEFAULT_LIMIT_DAILY" | "DEFAULT_LIMIT_WEEKLY" | "DEFAULT_LIMIT_MONTHLY" | "DEFAULT_LIMIT_PER_PAYMENT"
>;

export function resolveLimits(input: LimitsInput, defaults: LimitDefaults): SpendingLimits {
  const fallback = (value: string) => parseUsd(value) ?? 0n;
  return {
    daily: input?.daily ?? fallback(defaults.DEFAULT_LIMIT_DAILY),
    weekly: input?.weekly ?? fallback(defaults.DEFAULT_LIMIT_WEEKLY),
    monthly: input?.monthly ?? fallback(defaults.DEFAULT_LIMIT_MONTHLY),
    perPayment: input?.perPayment ?? fallback(defaults.DEFAULT_LIMIT_PER_PAYMENT),
  };
}
