// The reference app: the framework's floor and the AI SDK's default chat route, built and
// served like the product (`next build`, `next start`) so that the bench compares framework to
// framework. The repository root is the bundler's root: the bare route uses the product's line
// encoder, and the packages live in the root's node_modules.
import { fileURLToPath } from "node:url";
import type { NextConfig } from "next";

const repositoryRoot = fileURLToPath(new URL("../..", import.meta.url));

const nextConfig: NextConfig = {
  poweredByHeader: false,
  turbopack: { root: repositoryRoot },
  outputFileTracingRoot: repositoryRoot,
};

export default nextConfig;
