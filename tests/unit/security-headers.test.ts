import { unstable_doesMiddlewareMatch } from "next/experimental/testing/server";
import { describe, expect, test } from "vitest";
import nextConfig from "@/next.config";
import { config as proxyConfig } from "@/proxy";
import { browserRpcUrls, walletNetworks } from "@/lib/chain/wallet-networks";
import { parseServerEnv } from "@/lib/env";
import { API_CONTENT_SECURITY_POLICY, contentSecurityPolicy, newNonce, originSource } from "@/lib/security-headers";

const directive = (policy: string, name: string) =>
  policy.split("; ").find((part) => part.startsWith(`${name} `))?.split(" ").slice(1);

describe("content security policy", () => {
  test("WalletConnect's relay, APIs and verify frame are allowed only when WalletConnect is configured", () => {
    const without = contentSecurityPolicy({ nonce: "n" });
    expect(directive(without, "connect-src")).toEqual(["'self'"]);
    expect(directive(without, "frame-src")).toEqual(["'none'"]);
    const withWalletConnect = contentSecurityPolicy({ nonce: "n", walletConnect: true });
    expect(directive(withWalletConnect, "connect-src")).toEqual(
      expect.arrayContaining(["wss://relay.walletconnect.com", "wss://relay.walletconnect.org", "https://*.walletconnect.com", "https://*.walletconnect.org"]),
    );
    expect(directive(withWalletConnect, "frame-src")).toEqual(["https://verify.walletconnect.com", "https://verify.walletconnect.org"]);
    expect(directive(withWalletConnect, "frame-ancestors")).toEqual(["'none'"]);
  });

  test("scripts need the response's nonce; only the development server may evaluate code", () => {
    const nonce = newNonce();
    expect(nonce).not.toBe(newNonce());
    const production = directive(contentSecurityPolicy({ nonce }), "script-src");
    expect(production).toEqual(["'self'", `'nonce-${nonce}'`, "'strict-dynamic'"]);
    expect(directive(contentSecurityPolicy({ nonce, development: true }), "script-src")).toContain("'unsafe-eval'");
  });

  test("the page may read the sandbox RPC and known chains' public endpoints, never a configured paid RPC", () => {
    const env = parseServerEnv({
      X402_NETWORKS: "eip155:8453,eip155:31337",
      RPC_URL_8453: "https://base.example.com/v2/secret-key",
      RPC_URL_31337: "http://127.0.0.1:18745",
      USDC_ADDRESS_31337: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    });
    const sources = browserRpcUrls(walletNetworks(env)).flatMap((url) => originSource(url) ?? []);
    expect(sources).toEqual(["https://mainnet.base.org", "http://127.0.0.1:18745"]);
    expect(directive(contentSecurityPolicy({ nonce: "n", connectSources: sources }), "connect-src")).toEqual(["'self'", ...sources]);
  });
});

describe("the API's policy", () => {
  const directives = (policy: string) =>
    new Map(policy.split("; ").map((part) => [part.split(" ")[0] ?? "", part.split(" ").slice(1)]));

  test("allows nothing at all, and is at least as strict as the pages' policy on every directive it shares", () => {
    const api = directives(API_CONTENT_SECURITY_POLICY);
    for (const [name, sources] of api) expect(sources, name).toEqual(["'none'"]);
    // Every fetch directive of the page falls back to default-src, which allows nothing here.
    expect(api.get("default-src")).toEqual(["'none'"]);
    expect(api.get("frame-ancestors")).toEqual(["'none'"]);
    expect(api.get("base-uri")).toEqual(["'none'"]);
    expect(api.get("form-action")).toEqual(["'none'"]);
    expect([...api.keys()].filter((name) => !directives(contentSecurityPolicy({ nonce: "n" })).has(name))).toEqual([]);
  });

  test("every API route gets it from the configuration, every page from the proxy with a nonce", async () => {
    const rules = (await nextConfig.headers?.()) ?? [];
    const apiRule = rules.find((rule) => rule.headers.some((header) => header.key === "Content-Security-Policy"));
    expect(apiRule?.source).toBe("/api/:path*");
    expect(apiRule?.headers).toEqual([{ key: "Content-Security-Policy", value: API_CONTENT_SECURITY_POLICY }]);
    const runsProxy = (url: string) => unstable_doesMiddlewareMatch({ config: proxyConfig, url });
    for (const url of ["/api/chat", "/api/spending?wallet=0x1", "/api/health", "/api", "/api/unknown"]) expect(runsProxy(url), url).toBe(false);
    for (const url of ["/", "/tx/eip155:8453/0xab", "/apiary", "/settings"]) expect(runsProxy(url), url).toBe(true);
  });
});
