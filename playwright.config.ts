// End-to-end tests: the production build on the local sandbox (`sandbox/demo.ts`, what
// `npm run demo` runs: a chain, USDC, a facilitator, a registry and paid services, then
// `next build` when needed + `next start` wired to them) with the offline model, driven in
// Chromium: the system's when there is one, else the one the @sparticuz/chromium npm package ships
// (tests/e2e/browser.ts; Playwright's own browser download is not needed).
import { defineConfig } from "@playwright/test";
import { e2eBrowser } from "./tests/e2e/browser";
import { sandboxPorts } from "./tests/e2e/sandbox";
import { cooldownSeconds } from "./tests/e2e/settings";

const browser = e2eBrowser();

const port = Number(process.env.E2E_PORT ?? 3107 + Number(process.env.E2E_PORT_OFFSET ?? 0));
// 127.0.0.1 rather than localhost: the browser and the test's own requests then reach the server
// from the same address, which is what the server's per-client cooldown counts.
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
      executablePath: browser.executablePath,
      ...(browser.env && { env: browser.env }),
      args: [
        ...browser.args,
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
    // The launcher builds only when the build is stale or was not made for the sandbox, and
    // starts the app on 127.0.0.1:PORT once the sandbox is up.
    command: `rm -rf ${dataDir} && npx tsx sandbox/demo.ts`,
    url: baseURL,
    timeout: 240_000,
    // Always a fresh server, so the ledger and cooldowns start empty.
    reuseExistingServer: false,
    stderr: "pipe",
    // Playwright signals the command's process group; the launcher then stops the app's own
    // process group and the sandbox (anvil included), which takes a few seconds.
    gracefulShutdown: { signal: "SIGTERM", timeout: 15_000 },
    env: {
      PORT: String(port),
      // The origin the browser opens, which sign-ins and access grants must name.
      APP_URL: baseURL,
      ...sandboxPorts,
      MODEL_PROVIDER: "offline",
      DATA_DIR: dataDir,
      CHAT_COOLDOWN_SECONDS: String(cooldownSeconds),
      // The tests stand in for one proxy in front of the app. `next start` writes the socket's
      // address (127.0.0.1) into X-Forwarded-For when a request brings none, and a test that
      // needs a client of its own sends one address there, as a proxy would append it
      // (tests/e2e/wallet.ts, global-setup.ts). Without this every request would count as the
      // one unknown client, and tests with wallets of their own would wait on each other.
      TRUSTED_PROXY_HOPS: "1",
      NEXT_TELEMETRY_DISABLED: "1",
    },
  },
});
