import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // PGlite loads its WebAssembly and data files from its own package folder at run time.
  // undici is loaded from node_modules as it is: the outbound fetch (lib/net) relies on its
  // connector, which a bundled copy need not keep intact.
  serverExternalPackages: ["@electric-sql/pglite", "pg", "undici"],
  poweredByHeader: false,
};

export default nextConfig;
