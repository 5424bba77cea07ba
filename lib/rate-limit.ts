// A small fixed-window rate limit for public reads, kept in this process's memory. It is an
// explicit, bounded cache: at most `maxClients` keys are remembered, expired windows are
// dropped first, then the oldest. Good enough to keep one client from hammering a read; the
// chat's cooldown, which must hold across processes, lives in the database instead.
import { AppError } from "@/lib/errors";

export type RateLimiterParameters = {
  /** Requests allowed per key in one window. */
  limit: number;
  windowMs: number;
  /** How many keys are remembered at most. */
  maxClients?: number;
};

export type RateLimiter = {
  /** Counts one request for `key`; throws `rate-limited` with Retry-After once the window is used up. */
  take(key: string, now?: Date): void;
};

type Window = { count: number; resetAt: number };

export function createRateLimiter({ limit, windowMs, maxClients = 10_000 }: RateLimiterParameters): RateLimiter {
  const windows = new Map<string, Window>();

  const makeRoom = (now: number) => {
    if (windows.size < maxClients) return;
    for (const [key, window] of windows) if (window.resetAt <= now) windows.delete(key);
    // Still full: forget the oldest windows (a Map iterates in insertion order).
    for (const key of windows.keys()) {
      if (windows.size < maxClients) break;
      windows.delete(key);
    }
  };

  return {
    take(key, at = new Date()) {
      const now = at.getTime();
      let window = windows.get(key);
      if (!window || window.resetAt <= now) {
        windows.delete(key);
        makeRoom(now);
        window = { count: 0, resetAt: now + windowMs };
        windows.set(key, window);
      }
      if (window.count >= limit) {
        const retryAfterSeconds = Math.max(1, Math.ceil((window.resetAt - now) / 1000));
        throw new AppError("rate-limited", `Too many requests. Please wait ${retryAfterSeconds} s and try again.`, {
          details: { retryAfterSeconds },
          headers: { "Retry-After": String(retryAfterSeconds) },
        });
      }
      window.count += 1;
    },
  };
}

/** The client a request counts against: the first address in X-Forwarded-For, else X-Real-IP. */
export function clientIp(request: Request): string {
  const forwarded = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim();
  return forwarded || request.headers.get("x-real-ip")?.trim() || "unknown";
}
