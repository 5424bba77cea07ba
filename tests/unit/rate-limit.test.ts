// The in-memory rate limit of public reads: a fixed window per client, a Retry-After that
// counts down, and a bounded memory; and who the client is, from the sources the deployment
// trusts.
import { describe, expect, test } from "vitest";
import { AppError } from "@/lib/errors";
import { clientAddress, clientKey, createRateLimiter, UNKNOWN_CLIENT_KEY } from "@/lib/rate-limit";

const at = (ms: number) => new Date(1_700_000_000_000 + ms);
const request = (headers: Record<string, string>) => new Request("http://localhost/", { headers });

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

  test("without a trusted source every client is one: no header a caller writes gives a fresh count", () => {
    const settings = { TRUSTED_PROXY_HOPS: 0, CLIENT_IP_HEADER: undefined };
    for (const headers of [{}, { "x-forwarded-for": "198.51.100.7" }, { "x-real-ip": "198.51.100.8" }, { "x-vercel-forwarded-for": "198.51.100.9" }] as Record<string, string>[]) {
      expect(clientKey(request(headers), settings)).toBe(UNKNOWN_CLIENT_KEY);
    }
  });

  test("behind trusted proxies the client is the entry that many from the right of X-Forwarded-For", () => {
    const oneHop = { TRUSTED_PROXY_HOPS: 1, CLIENT_IP_HEADER: undefined };
    // What the caller wrote stands left of what the proxy appended.
    expect(clientAddress(request({ "x-forwarded-for": "6.6.6.6, 198.51.100.7" }), oneHop)).toBe("198.51.100.7");
    expect(clientAddress(request({ "x-forwarded-for": " 198.51.100.7 " }), oneHop)).toBe("198.51.100.7");
    const twoHops = { TRUSTED_PROXY_HOPS: 2, CLIENT_IP_HEADER: undefined };
    expect(clientAddress(request({ "x-forwarded-for": "6.6.6.6, 198.51.100.7, 10.0.0.2" }), twoHops)).toBe("198.51.100.7");
    // Fewer entries than proxies, no header, or not an address: nothing trusted says who it is.
    expect(clientKey(request({ "x-forwarded-for": "198.51.100.7" }), twoHops)).toBe(UNKNOWN_CLIENT_KEY);
    expect(clientKey(request({}), oneHop)).toBe(UNKNOWN_CLIENT_KEY);
    expect(clientKey(request({ "x-forwarded-for": "not-an-address" }), oneHop)).toBe(UNKNOWN_CLIENT_KEY);
  });

  test("a header the host sets is read when configured, and comes before the proxy hops", () => {
    const vercel = { TRUSTED_PROXY_HOPS: 0, CLIENT_IP_HEADER: "x-vercel-forwarded-for" };
    expect(clientAddress(request({ "x-vercel-forwarded-for": "198.51.100.9", "x-forwarded-for": "6.6.6.6" }), vercel)).toBe("198.51.100.9");
    expect(clientKey(request({ "x-forwarded-for": "6.6.6.6" }), vercel)).toBe(UNKNOWN_CLIENT_KEY);
    const both = { TRUSTED_PROXY_HOPS: 1, CLIENT_IP_HEADER: "x-real-ip" };
    expect(clientAddress(request({ "x-real-ip": "198.51.100.8", "x-forwarded-for": "198.51.100.1" }), both)).toBe("198.51.100.8");
    expect(clientAddress(request({ "x-forwarded-for": "198.51.100.1" }), both)).toBe("198.51.100.1");
  });

  test("one spelling per client: ports dropped, IPv4-mapped IPv6 as IPv4, an IPv6 address as its /64", () => {
    const oneHop = { TRUSTED_PROXY_HOPS: 1, CLIENT_IP_HEADER: undefined };
    const from = (entry: string) => clientAddress(request({ "x-forwarded-for": entry }), oneHop);
    expect(from("198.51.100.7:51234")).toBe("198.51.100.7");
    expect(from("::ffff:198.51.100.7")).toBe("198.51.100.7");
    expect(from("[2001:db8:1:2:aaaa::1]:443")).toBe("2001:db8:1:2::/64");
    // Another address of the same subscriber's /64 is the same client.
    expect(from("2001:DB8:1:2:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(from("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(from("2001:db8:1:3::1")).not.toBe(from("2001:db8:1:2::1"));
  });
});
