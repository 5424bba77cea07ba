// End-to-end tests: the production build (`next build` + `next start`) with the offline model,
// driven in the system Chromium (Playwright's own browser download does not work on these
// machines; see /work/shared/STACK.md).
import { defineConfig } from "@playwright/test";
import { cooldownSeconds } from "./tests/e2e/settings";

const port = Number(process.env.E2E_PORT ?? 3107);
// 127.0.0.1 rather than localhost: the browser and the test's own requests then reach the server
// from the same address, which is what the server's per-IP cooldown counts.
const baseURL = `http://127.0.0.1:${port}`;
const dataDir = ".data/e2e";

export default defineConfig({
  testDir: "tests/e2e",
  globalSetup: "./tests/e2e/global-setup.ts",
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 45_000,
  expect: { timeout: 10_000 },
  reporter: [["list"]],
  use: {
    baseURL,
    browserName: "chromium",
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  webServer: {
    // The data folder is removed by the command itself, not in a globalSetup: Playwright starts
    // the web server before globalSetup runs, and a database must not vanish under a live server.
    command: `rm -rf ${dataDir} && npx next build && npx next start -p ${port} -H 127.0.0.1`,
    url: baseURL,
    timeout: 240_000,
    // Always a fresh server, so the ledger and cooldowns start empty.
    reuseExistingServer: false,
    stderr: "pipe",
    // Playwright starts the command in its own process group and signals the whole group, so the
    // child server that `next start` forks is stopped too (SIGKILL if SIGTERM is not enough).
    gracefulShutdown: { signal: "SIGTERM", timeout: 5_000 },
    env: {
      MODEL_PROVIDER: "offline",
      DATA_DIR: dataDir,
      CHAT_COOLDOWN_SECONDS: String(cooldownSeconds),
      NEXT_TELEMETRY_DISABLED: "1",
    },
  },
});
