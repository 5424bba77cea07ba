/**
 * `npm run bench:phone`: only the bench's phone phase (bench/lighthouse.ts), to weigh a change to
 * the page without the rest of `npm run bench`. Builds this checkout when its build is stale, then
 * runs Lighthouse's mobile preset on the empty chat and on a quote as the bench does, and prints
 * each page's medians. With `--versus`, another checkout (a worktree of another commit, with its
 * own node_modules) is built and served beside this one, each by its own Next, and the two are
 * measured in turns.
 *
 *   npm run bench:phone -- [runs, default 5] [--versus=<checkout>] [--page=quote|empty] [--reports=<folder>]
 *
 * `--reports` keeps each run's whole Lighthouse report (JSON), to read what a score is made of, the
 * load's trace beside it (`.trace.json`, which Chrome DevTools' Performance panel opens) and its
 * network log (`.devtoolslog.json`): with the trace, what Lighthouse's simulation is computed from,
 * so that its estimates can be computed again and taken apart.
 */
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureBuild, productBuild } from "@/sandbox/next-app";
import { onShutdown } from "@/sandbox/lifecycle";
import { compareLighthouse, PHONE_MARKS, type PhoneBuild, type PhonePageName } from "./lighthouse";
import { appEnv, createTeardown } from "./servers";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const log = (line: string) => console.log(`[phone] ${line}`);

function option(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv.find((argument) => argument.startsWith(prefix))?.slice(prefix.length);
}

async function main(): Promise<void> {
  const runs = Number(process.argv.slice(2).find((argument) => /^\d+$/.test(argument)) ?? 5);
  const versus = option("versus");
  const page = option("page");
  if (page !== undefined && page !== "quote" && page !== "empty") throw new Error(`--page is quote or empty, not ${page}`);
  const pages: PhonePageName[] | undefined = page === "quote" ? ["quote"] : page === "empty" ? ["empty chat"] : undefined;
  const reportDir = option("reports");
  if (reportDir) await mkdir(resolve(reportDir), { recursive: true });

  const teardown = createTeardown();
  onShutdown(async (reason) => {
    log(`${reason}: stopping the servers...`);
    await teardown.run();
  });
  // As bench/run.ts builds the product: no public values.
  await ensureBuild(productBuild(ROOT, {}), { env: appEnv({}), log });
  const builds: PhoneBuild[] = [{ name: "this checkout", root: ROOT }];
  if (versus) {
    const root = resolve(versus);
    await ensureBuild(productBuild(root, {}), { env: appEnv({}), log });
    builds.push({ name: "versus", root });
  }
  log(`load average ${loadavg().map((value) => value.toFixed(2)).join(" ")}; 1 warm-up + ${runs} runs per page${versus ? ", the builds in turns" : ""}...`);
  const dataRoot = await mkdtemp(join(tmpdir(), "x402-bench-phone-data-"));
  try {
    const result = await compareLighthouse({
      teardown,
      // Each server its own PGlite folder: PGlite is one process's database.
      builds: builds.map((build, index) => ({ ...build, env: { DATA_DIR: join(dataRoot, String(index)) } })),
      // As bench/run.ts serves the product.
      env: {
        PAYMENT_TOKEN_SECRET: randomBytes(32).toString("base64"),
        APP_URL: "https://bench.example",
        CLIENT_IDENTITY: "shared",
        CHAT_COOLDOWN_SECONDS: "0",
        X402_DISCOVERY_URLS: undefined,
        DATABASE_URL: undefined,
      },
      runs,
      ...(pages ? { pages } : {}),
      log,
      ...(reportDir ? { reportDir: resolve(reportDir) } : {}),
    });
    log(`${result.settings}; marks: ${Object.entries(PHONE_MARKS).map(([category, mark]) => `${category} ${mark}`).join(", ")}`);
    for (const build of result.builds) {
      for (const measured of build.pages) {
        const { scores, totalBlockingTimeMs: tbt, largestContentfulPaintMs: lcp } = measured;
        log(
          `${builds.length > 1 ? `${build.name}, ` : ""}${measured.page}: performance ${scores.performance.median} (${scores.performance.min}-${scores.performance.max}), ` +
            `TBT ${tbt.median.toFixed(0)} ms (${tbt.min.toFixed(0)}-${tbt.max.toFixed(0)}), LCP ${lcp.median.toFixed(0)} ms, ` +
            `accessibility ${scores.accessibility.median}, best practices ${scores["best-practices"].median}, benchmark index ${measured.runs.map((run) => run.benchmarkIndex.toFixed(0)).join(" ")}`,
        );
      }
    }
    log(`load average ${loadavg().map((value) => value.toFixed(2)).join(" ")}`);
  } finally {
    await teardown.run();
    await rm(dataRoot, { recursive: true, force: true });
  }
}

try {
  await main();
  process.exit(0);
} catch (error) {
  console.error(`[phone] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
}
