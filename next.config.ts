import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // PGlite loads its WebAssembly and data files from its own package folder at run time.
  serverExternalPackages: ["@electric-sql/pglite", "pg"],
  poweredByHeader: false,
  // A self-contained server in .next/standalone (only the files it needs), for the Dockerfile.
  output: "standalone",
};

export default nextConfig;
