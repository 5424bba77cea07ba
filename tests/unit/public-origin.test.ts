// The origin an AI app's approval link names: where the person reaches the app, not the address
// the server listens on; a proxy's forwarded host and scheme only when a proxy is trusted.
import { describe, expect, test } from "vitest";
import { publicOrigin } from "@/lib/net/public-origin";

const request = (headers: Record<string, string>) => new Request("http://localhost:3000/api/mcp", { headers });

describe("publicOrigin", () => {
  test("the Host the request came to, not the listening address", () => {
    expect(publicOrigin(request({ host: "127.0.0.1:3107" }), { TRUSTED_PROXY_HOPS: 0 })).toBe("http://127.0.0.1:3107");
  });
  test("behind a trusted proxy, the host and scheme it forwarded", () => {
    const forwarded = request({ host: "10.0.0.5:3000", "x-forwarded-host": "pay.example.com", "x-forwarded-proto": "https" });
    expect(publicOrigin(forwarded, { TRUSTED_PROXY_HOPS: 1 })).toBe("https://pay.example.com");
    // Without a trusted proxy the forwarded headers are anyone's words.
    expect(publicOrigin(forwarded, { TRUSTED_PROXY_HOPS: 0 })).toBe("http://10.0.0.5:3000");
  });
  test("a Host that is not a host name falls back to the request's own origin", () => {
    expect(publicOrigin(request({ host: "evil.example/path?x=" }), { TRUSTED_PROXY_HOPS: 0 })).toBe("http://localhost:3000");
  });
});
