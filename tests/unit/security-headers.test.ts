import { describe, expect, test } from "vitest";
import { browserRpcUrls, walletNetworks } from "@/lib/chain/wallet-networks";
import { parseServerEnv } from "@/lib/env";
import { contentSecurityPolicy, newNonce, originSource } from "@/lib/security-headers";

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
