// Runs before every page: gives each response its content security policy, with a fresh script
// nonce that Next reads from the request's policy and puts on its own scripts, and the chains'
// RPC endpoints the page reads from (the sandbox's loopback RPC when the app runs on the
// sandbox), which are the running server's configuration, not the build machine's.
// The headers that never change are set in next.config.ts, static files included, and so is the
// API's policy: a JSON or stream answer runs no scripts and needs no nonce, and the API's
// requests skip this proxy's per-request work.
import { NextResponse, type NextRequest } from "next/server";
import { contentSecurityPolicy, newNonce, originSource } from "@/lib/security-headers";

type PolicySources = { connectSources: string[]; walletConnect: boolean };

// The configuration does not change while the server runs: read it once.
let sources: Promise<PolicySources> | undefined;

async function policySources(): Promise<PolicySources> {
  // Loaded by the first page request: the server loads this proxy at start, and an API cold
  // start never runs it (the configuration's and the chains' code waits for a page).
  const [{ serverEnv }, { readDemoWallet }, { pageRpcUrls }] = await Promise.all([
    import("@/lib/env"),
    import("@/lib/chain/demo-wallet"),
    import("@/lib/chain/wallet-networks"),
  ]);
  const env = serverEnv();
  const demoWallet = await readDemoWallet(env);
  const urls = pageRpcUrls(env, demoWallet);
  return {
    connectSources: urls.flatMap((url) => originSource(url) ?? []),
    walletConnect: Boolean(process.env.NEXT_PUBLIC_WALLETCONNECT_PROJECT_ID),
  };
}

export async function proxy(request: NextRequest): Promise<NextResponse> {
  sources ??= policySources().catch((error: unknown) => {
    sources = undefined;
    throw error;
  });
  const policy = contentSecurityPolicy({
    nonce: newNonce(),
    ...(await sources),
    development: process.env.NODE_ENV === "development",
  });
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("Content-Security-Policy", policy);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("Content-Security-Policy", policy);
  return response;
}

export const config = {
  // Everything but the API and Next's own static files, which next.config.ts's fixed headers cover.
  matcher: ["/((?!api/|api$|_next/static|_next/image|favicon.ico).*)"],
};
