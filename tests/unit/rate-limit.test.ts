// The in-memory rate limit of public reads: a fixed window per client, a Retry-After that
// counts down, and a bounded memory.
import { describe, expect, test } from "vitest";
import { AppError } from "@/lib/errors";
import { clientIp, createRateLimiter } from "@/lib/rate-limit";

const at = (ms: number) => new Date(1_700_000_000_000 + ms);

function refusal(take: () => void): AppError {
  try {
    take();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("the request was allowed");
}

describe("rate limit", () => {
  test("allows the limit per window, then refuses with Retry-After until the window ends", () => {
    const limiter = createRateLimiter({ limit: 3, windowMs: 60_000 });
    for (let index = 0; index < 3; index += 1) limiter.take("a", at(index * 1000));
    const error = refusal(() => limiter.take("a", at(20_500)));
    expect([error.status, error.code, error.headers["Retry-After"]]).toEqual([429, "rate-limited", "40"]);
    expect(error.details).toEqual({ retryAfterSeconds: 40 });
    expect(error.message).toMatchInlineSnapshot(`"Too many requests. Please wait 40 s and try again."`);
    // Another client has its own window; the first one's opens again after a minute.
    limiter.take("b", at(20_500));
    limiter.take("a", at(60_000));
  });

  test("remembers at most maxClients clients, dropping expired windows first, then the oldest", () => {
    const limiter = createRateLimiter({ limit: 1, windowMs: 60_000, maxClients: 2 });
    limiter.take("old", at(0));
    limiter.take("a", at(30_000));
    limiter.take("b", at(61_000)); // "old" has expired and makes room; "a" is still limited
    expect(refusal(() => limiter.take("a", at(61_000))).code).toBe("rate-limited");
    limiter.take("c", at(62_000)); // full of live windows: the oldest ("a") is forgotten
    limiter.take("a", at(62_000));
  });

  test("the client is the first X-Forwarded-For address, else X-Real-IP", () => {
    const request = (headers: Record<string, string>) => new Request("http://localhost/", { headers });
    expect(clientIp(request({ "x-forwarded-for": " 198.51.100.7 , 10.0.0.1" }))).toBe("198.51.100.7");
    expect(clientIp(request({ "x-real-ip": "198.51.100.8" }))).toBe("198.51.100.8");
    expect(clientIp(request({}))).toBe("unknown");
  });
});
