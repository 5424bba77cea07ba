import type { NextConfig } from "next";
import { API_CONTENT_SECURITY_POLICY, API_ROUTES_SOURCE, fixedSecurityHeaders } from "./lib/security-headers";

const nextConfig: NextConfig = {
  // PGlite loads its WebAssembly and data files from its own package folder at run time.
  // undici is loaded from node_modules as it is: the outbound fetch (lib/net) relies on its
  // connector, which a bundled copy need not keep intact. tiny-secp256k1 reads its WebAssembly
  // from its own folder too (lib/chain/recover-signer.ts).
  serverExternalPackages: ["@electric-sql/pglite", "pg", "undici", "tiny-secp256k1"],
  poweredByHeader: false,
  // The React Compiler (babel-plugin-react-compiler) memoizes the page's components: a change of
  // one state (the wallet reconnecting, its balance, a countdown's tick) renders what shows it,
  // not the whole chat again. On a phone the page's start is a run of such renders.
  reactCompiler: true,
  experimental: { preloadEntriesOnStart: false },
  // The headers that never change, on every response, and the API's fixed content security
  // policy; the pages' policy, which carries a per-request nonce and the running server's RPC
  // endpoints, is set in proxy.ts.
  async headers() {
    return [
      { source: "/:path*", headers: [...fixedSecurityHeaders] },
      { source: API_ROUTES_SOURCE, headers: [{ key: "Content-Security-Policy", value: API_CONTENT_SECURITY_POLICY }] },
    ];
  },
  // A self-contained server in .next/standalone (only the files it needs), for the Dockerfile,
  // which builds with NEXT_OUTPUT=standalone; `next start` (the demo, the tests) needs the usual output.
  ...(process.env.NEXT_OUTPUT === "standalone" ? { output: "standalone" as const } : {}),
};

export default nextConfig;
