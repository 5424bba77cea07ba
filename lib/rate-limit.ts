// A small fixed-window rate limit for public reads, kept in this process's memory. It is an
// explicit, bounded cache: at most `maxClients` keys are remembered, expired windows are
// dropped first, then the oldest. Good enough to keep one client from hammering a read; the
// chat's cooldown, which must hold across processes, lives in the database instead. Also the
// one answer to "which client sent this request", for both.
import { isIP } from "node:net";
import type { ServerEnv } from "@/lib/env";
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

export type ClientAddressSettings = Pick<ServerEnv, "TRUSTED_PROXY_HOPS" | "CLIENT_IP_HEADER">;

/** The key of every client whose address no trusted source gives: they all share one count. */
export const UNKNOWN_CLIENT_KEY = "client:unknown";

/**
 * The key a request counts against: its client's address as the deployment's own proxy
 * reports it, or UNKNOWN_CLIENT_KEY when nothing trusted says. A route handler never sees the
 * socket, and a header the caller wrote proves nothing, so a deployment that trusts neither a
 * host header (CLIENT_IP_HEADER) nor its proxy hops (TRUSTED_PROXY_HOPS) counts all its clients
 * as one: strict, but a caller cannot get a fresh count by writing a new header.
 */
export function clientKey(request: Request, settings: ClientAddressSettings): string {
  const address = clientAddress(request, settings);
  return address ? `client:${address}` : UNKNOWN_CLIENT_KEY;
}

/**
 * The client's address from the sources the configuration trusts: the host's own header if
 * one is named, else the X-Forwarded-For entry that the outermost of TRUSTED_PROXY_HOPS
 * proxies appended (that many from the right; what stands left of it the caller may have
 * written). An IPv6 address stands for its /64, which one subscriber holds whole.
 */
export function clientAddress(request: Request, { TRUSTED_PROXY_HOPS: hops, CLIENT_IP_HEADER: header }: ClientAddressSettings): string | undefined {
  if (header) {
    // A host that sets the header replaces any the caller sent; were it appended to, the
    // host's own entry is the last one.
    const fromHost = normalizeAddress(listOf(request.headers.get(header)).at(-1));
    if (fromHost) return fromHost;
  }
  if (hops > 0) {
    const forwarded = listOf(request.headers.get("x-forwarded-for"));
    // Fewer entries than trusted proxies: the request did not come through all of them.
    if (forwarded.length >= hops) return normalizeAddress(forwarded[forwarded.length - hops]);
  }
  return undefined;
}

function listOf(value: string | null): string[] {
  return (value ?? "").split(",").map((entry) => entry.trim()).filter((entry) => entry.length > 0);
}

/** One spelling per client: ports and brackets removed, IPv4-mapped IPv6 as IPv4, IPv6 as its /64. */
function normalizeAddress(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  let value = raw;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed?.[1]) value = bracketed[1];
  else if (/^[\d.]+:\d+$/.test(value)) value = value.slice(0, value.lastIndexOf(":"));
  if (isIP(value) === 4) return value;
  // A zone (fe80::1%eth0) names the server's own interface, not the client.
  value = value.split("%")[0] ?? "";
  if (isIP(value) !== 6) return undefined;
  // The URL parser writes an IPv6 address in its one canonical, compressed form.
  const canonical = new URL(`http://[${value}]/`).hostname.slice(1, -1);
  const [head = "", tail = ""] = canonical.split("::");
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail ? tail.split(":") : [];
  const groups = canonical.includes("::")
    ? [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill("0"), ...tailGroups]
    : headGroups;
  if (groups.slice(0, 5).every((group) => group === "0") && groups[5] === "ffff") {
    const [high = 0, low = 0] = [groups[6], groups[7]].map((group) => Number.parseInt(group ?? "0", 16));
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
  }
  return `${groups.slice(0, 4).join(":")}::/64`;
}
