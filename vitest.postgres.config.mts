// The PostgreSQL pass (`npm run test:postgres`): the integration tests that touch the database
// (the ledger, the limits, the cooldowns, the concurrency, the payment flow, the MCP door, health, spent sign-in nonces) run again on a real
// PostgreSQL server, each in fresh databases of its own (tests/helpers/database.ts), plus the
// tests that only make sense there (tests/postgres/: migrations racing, TLS settings, two
// production instances sharing one database). DATABASE_URL names the server; the test user must
// be allowed to create databases. `.ci/with-postgres npm run test:postgres` starts a throwaway one.
import { defineConfig } from "vitest/config";
import base from "./vitest.config.mjs";

const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) {
  throw new Error(
    "npm run test:postgres needs DATABASE_URL: a PostgreSQL server where this user may create databases " +
      "(or run `.ci/with-postgres npm run test:postgres` to start a throwaway one)",
  );
}

// Spread rather than mergeConfig, which would add this list to the default one instead of replacing it.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      "tests/integration/payments/**/*.test.ts",
      "tests/integration/mcp/**/*.test.ts",
      "tests/integration/chat/handler.test.ts",
      "tests/integration/chat/offline-account-tools.test.ts",
      "tests/integration/health.test.ts",
      "tests/integration/session.test.ts",
      "tests/postgres/**/*.test.ts",
    ],
    // The tests open their own databases on the server; nothing reaches the server's default one.
    env: { TEST_DATABASE_URL: serverUrl, DATABASE_URL: "" },
  },
});
