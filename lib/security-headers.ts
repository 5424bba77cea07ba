// The security headers of every page and route: the content security policy, and the fixed
// headers that do not depend on the request (framing, sniffing, referrer, browser features).
// Framework-free and import-free, so that next.config.ts and the proxy can both use it.
//
// Scripts: Next's App Router bootstraps with inline `<script>` tags and then loads its chunks by
// creating script elements. A per-request nonce with 'strict-dynamic' allows exactly those and
// nothing injected; the alternative, 'unsafe-inline', would let any injected inline script run
// in a page that asks a wallet to sign payments. Nonces make every page render per request,
// which costs nothing here: the chat page already renders per request (it reads the running
// server's configuration), and so does the transaction page (it reads the chain). The one
// prerendered page, the 404 of an unknown address, shows its text without running its scripts.
// Styles: server-rendered `style` attributes and RainbowKit's theme `<style>` need
// 'unsafe-inline' for styles; styles cannot run code.

export type ContentSecurityPolicyParameters = {
  /** A fresh random value per response; Next puts it on its own script tags. */
  nonce: string;
  /** Origins the page itself fetches from besides its own: the chains' RPC endpoints it reads. */
  connectSources?: readonly string[];
  /** WalletConnect's relay, APIs and verify frame, only when WalletConnect is configured. */
  walletConnect?: boolean;
  /** `next dev` evaluates code for fast refresh and error overlays; a production build never does. */
  development?: boolean;
};

/**
 * WalletConnect (RainbowKit's walletConnectWallet over @walletconnect/ethereum-provider): its
 * relay over WebSocket, its HTTPS APIs (rpc, pulse, explorer, keys, verify...) and the Verify
 * API's iframe, as WalletConnect's own CSP guidance lists them.
 */
export const WALLETCONNECT_SOURCES = {
  connect: [
    "https://*.walletconnect.com",
    "https://*.walletconnect.org",
    "wss://relay.walletconnect.com",
    "wss://relay.walletconnect.org",
    "wss://*.walletconnect.com",
    "wss://*.walletconnect.org",
    "https://*.web3modal.com",
    "https://*.web3modal.org",
  ],
  frame: ["https://verify.walletconnect.com", "https://verify.walletconnect.org"],
  img: ["https://*.walletconnect.com", "https://*.walletconnect.org"],
} as const;

export function contentSecurityPolicy({
  nonce,
  connectSources = [],
  walletConnect = false,
  development = false,
}: ContentSecurityPolicyParameters): string {
  const directives: Record<string, string[]> = {
    "default-src": ["'self'"],
    // 'self' and https: are ignored by browsers that understand 'strict-dynamic'; older ones fall back to them.
    "script-src": ["'self'", `'nonce-${nonce}'`, "'strict-dynamic'", ...(development ? ["'unsafe-eval'"] : [])],
    "style-src": ["'self'", "'unsafe-inline'"],
    "img-src": ["'self'", "data:", "blob:", ...(walletConnect ? WALLETCONNECT_SOURCES.img : [])],
    "font-src": ["'self'", "data:"],
    "connect-src": ["'self'", ...new Set(connectSources), ...(walletConnect ? WALLETCONNECT_SOURCES.connect : [])],
    "frame-src": walletConnect ? [...WALLETCONNECT_SOURCES.frame] : ["'none'"],
    "worker-src": ["'self'", "blob:"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
  };
  return Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(" ")}`)
    .join("; ");
}

/** The origin of a URL, as a CSP source; undefined for anything that is not http(s) or ws(s). */
export function originSource(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return ["http:", "https:", "ws:", "wss:"].includes(parsed.protocol) ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The policy of every API response (`/api/*`): JSON and line streams, never a document that runs
 * anything, so nothing may load, embed, frame, or be submitted from them. Stricter on every
 * directive than the pages' policy, and the same on every response, so it is a fixed header
 * (next.config.ts) and the API skips the proxy's per-request work.
 */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The routes that answer with API_CONTENT_SECURITY_POLICY, as a next.config.ts `headers()` source. */
export const API_ROUTES_SOURCE = "/api/:path*";

/** A random nonce: 128 bits, base64. */
export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

/** The script nonce of a page's policy (the request's, as the proxy set it), for a page's own inline script. */
export function nonceOf(policy: string | null): string | undefined {
  return policy ? /'nonce-([^']+)'/.exec(policy)?.[1] : undefined;
}

/** Headers that are the same on every response, static files included. */
export const fixedSecurityHeaders: ReadonlyArray<{ key: string; value: string }> = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  // Older browsers' form of frame-ancestors 'none'.
  { key: "X-Frame-Options", value: "DENY" },
  // Transaction hashes sit in this app's URLs, and nothing here needs a Referer: send none.
  { key: "Referrer-Policy", value: "no-referrer" },
  // No page here needs the camera, the microphone, location, USB or the browser's payment handler.
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=(), usb=()" },
  { key: "Cross-Origin-Opener-Policy", value: "same-origin-allow-popups" },
];
