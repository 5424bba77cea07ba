import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: {
    include: ["tests/unit/**/*.test.ts", "tests/integration/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // @x402/next's ESM build imports "next/server" without its extension, which Node's ESM
    // resolver refuses outside a bundler; Vite resolves it when the package is inlined.
    server: { deps: { inline: ["@x402/next"] } },
  },
});
