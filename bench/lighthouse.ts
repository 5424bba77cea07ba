// The chat page on a phone: Lighthouse's mobile preset (its default configuration: a phone's
// screen, simulated slow 4G and a CPU four times slower, calibrated to this host: see below) in the Chromium the end-to-end tests
// drive, against the production build on the sandbox as `npm run demo` serves it (the offline
// model, the sandbox's demo wallet among the wallets). Two pages, measured in turns, each run in a
// fresh browser profile:
//   - the empty chat: a first visit, nothing stored;
//   - a quote: the page is opened, the sandbox demo wallet connected and a paid question asked, as
//     a person would, until the quote card waits for approval; then Lighthouse loads the page again
//     in that tab. The conversation comes back from the tab's sessionStorage (Lighthouse's storage
//     reset clears caches, service workers and file systems, not web storage) and the wallet
//     reconnects: what a person who reloads, or comes back to, a pending quote sees, with the
//     metrics of a real page load rather than of a click.
// The servers and the sandbox's chain run at a lower CPU priority than the browser: a phone shares
// its CPU with no server. The CPU slowdown is Lighthouse's 4× on the desktop it is meant for, and
// more on a faster host (phoneCpuSlowdown, from Lighthouse's benchmark index of this host, measured
// in the same browser before the runs), so a faster machine does not measure a faster phone.
// Per run: the three scores, the largest contentful paint and the total blocking time, and the
// audits that cost points in a category under its mark; per page, the medians.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import lighthouse, { type Flags, type Result } from "lighthouse";
import { throttling } from "lighthouse/core/config/constants.js";
import { pageFunctions } from "lighthouse/core/lib/page-functions.js";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { SANDBOX_DEMO_WALLET } from "@/components/wallet/sandbox-wallet";
import { startSandbox } from "@/sandbox";
import { infoFilePath, writeInfoFile } from "@/sandbox/info";
import { e2eBrowser } from "@/tests/e2e/browser";
import { sandboxEnv } from "@/tests/helpers/paid-chat";
import { LIGHTHOUSE_HOST_INDEX, phoneCpuSlowdown, yieldCpu } from "./process-cpu";
import { startApp, type Teardown } from "./servers";
import { spread, type Spread } from "./stats";

/** The issue's marks, in Lighthouse's 0-100 scores. */
export const PHONE_MARKS = { performance: 95, accessibility: 100, "best-practices": 95 } as const;
export type PhoneCategory = keyof typeof PHONE_MARKS;
const CATEGORIES = Object.keys(PHONE_MARKS) as PhoneCategory[];

/** Answered by the offline model with a quote from the sandbox's weather service. */
export const QUOTE_PROMPT = "What's the weather in London?";

export type FailingAudit = { category: PhoneCategory; id: string; title: string; score: number; displayValue?: string };

export type LighthouseRun = {
  scores: Record<PhoneCategory, number>;
  firstContentfulPaintMs: number;
  largestContentfulPaintMs: number;
  totalBlockingTimeMs: number;
  cumulativeLayoutShift: number;
  /** Lighthouse's measure of this machine's speed (1,500-2,000 on the desktop its 4× CPU slowdown is meant for; the bench scales the slowdown on a faster host). */
  benchmarkIndex: number;
  /** The element the largest contentful paint was of, as Lighthouse describes it. */
  lcpElement?: string;
  /** In each category under its mark, the audits that cost it points. */
  failing: FailingAudit[];
  warnings: string[];
};

export type LighthousePage = {
  page: "empty chat" | "quote";
  path: string;
  runs: LighthouseRun[];
  scores: Record<PhoneCategory, Spread>;
  largestContentfulPaintMs: Spread;
  totalBlockingTimeMs: Spread;
  /** The run with the median performance score. */
  medianRun: LighthouseRun;
};

export type LighthouseResult = {
  lighthouse: string;
  chromium: string;
  /** Lighthouse's settings as it ran: form factor, screen and throttling. */
  settings: string;
  runsPerPage: number;
  /** What is asked on the quote's page. */
  prompt: string;
  pages: LighthousePage[];
};

const FLAGS: Flags = { logLevel: "error", output: "json", onlyCategories: [...CATEGORIES] };

/** Lighthouse's flags with its mobile preset's throttling, the CPU slowed `cpuSlowdownMultiplier` times. */
const flagsWith = (cpuSlowdownMultiplier: number): Flags => ({ ...FLAGS, throttling: { ...throttling.mobileSlow4G, cpuSlowdownMultiplier } });

const numeric = (lhr: Result, id: string): number => lhr.audits[id]?.numericValue ?? Number.NaN;

function lcpElementOf(lhr: Result): string | undefined {
  // Lighthouse names the element in its LCP breakdown: a list of a table of phases, then the node.
  const details = lhr.audits["lcp-breakdown-insight"]?.details;
  if (details?.type !== "list") return undefined;
  for (const item of details.items) {
    if (item.type === "node") return item.nodeLabel ? `${item.snippet ?? item.selector} ("${item.nodeLabel}")` : item.snippet;
  }
  return undefined;
}

function runOf(lhr: Result): LighthouseRun {
  const scores = Object.fromEntries(
    CATEGORIES.map((category) => [category, Math.round((lhr.categories[category]?.score ?? 0) * 100)]),
  ) as Record<PhoneCategory, number>;
  const failing: FailingAudit[] = CATEGORIES.filter((category) => scores[category] < PHONE_MARKS[category]).flatMap((category) =>
    (lhr.categories[category]?.auditRefs ?? []).flatMap((ref) => {
      const audit = lhr.audits[ref.id];
      // Performance's score is its metrics'; its insights (weight 0) say where the time went.
      const counts = ref.weight > 0 || (category === "performance" && ref.group !== "hidden");
      if (!audit || !counts || audit.score === null || audit.score >= 1) return [];
      if (audit.scoreDisplayMode !== "binary" && audit.scoreDisplayMode !== "numeric" && audit.scoreDisplayMode !== "metricSavings") return [];
      return [{ category, id: ref.id, title: audit.title, score: audit.score, ...(audit.displayValue ? { displayValue: audit.displayValue } : {}) }];
    }),
  );
  const lcpElement = lcpElementOf(lhr);
  return {
    scores,
    firstContentfulPaintMs: numeric(lhr, "first-contentful-paint"),
    largestContentfulPaintMs: numeric(lhr, "largest-contentful-paint"),
    totalBlockingTimeMs: numeric(lhr, "total-blocking-time"),
    cumulativeLayoutShift: numeric(lhr, "cumulative-layout-shift"),
    benchmarkIndex: lhr.environment.benchmarkIndex,
    ...(lcpElement ? { lcpElement } : {}),
    failing,
    warnings: lhr.runWarnings,
  };
}

async function audit(page: Page, url: string, flags: Flags, report?: string): Promise<Result> {
  const result = await lighthouse(url, flags, undefined, page);
  if (!result) throw new Error(`Lighthouse gave no result for ${url}`);
  const { lhr } = result;
  if (report) {
    await writeFile(report, typeof result.report === "string" ? result.report : JSON.stringify(lhr));
    // The load's trace beside it, to read its main thread's tasks (Chrome DevTools' Performance panel opens it).
    await writeFile(report.replace(/\.report\.json$/, ".trace.json"), JSON.stringify(result.artifacts.Trace));
    // Its network log, from which Lighthouse's simulation builds the load's graph of requests.
    await writeFile(report.replace(/\.report\.json$/, ".devtoolslog.json"), JSON.stringify(result.artifacts.DevtoolsLog));
  }
  if (lhr.runtimeError) throw new Error(`Lighthouse on ${url}: ${lhr.runtimeError.code}: ${lhr.runtimeError.message}`);
  return lhr;
}

/** Lighthouse's benchmark index of this host, in the browser that measures: the highest of five
 * readings, since a moment when another process takes the CPU reads the host slower, which would ask
 * less of the page. */
async function hostBenchmarkIndex(browser: Browser): Promise<number> {
  const tab = await browser.newPage();
  try {
    const readings: number[] = [];
    for (let reading = 0; reading < 5; reading++) readings.push(await tab.evaluate(pageFunctions.computeBenchmarkIndex));
    return Math.max(...readings);
  } finally {
    await tab.close();
  }
}

const CONNECT_BUTTON = '[data-testid="wallet-connect"] button:not([disabled])';
const QUOTE_CARD = '[data-testid="message"][data-role="assistant"][data-state="done"] [data-testid="payment-card"][data-status="awaiting-signature"]';

/** Whether the top bar holds the wallet's account (RainbowKit's own button, no longer "Connect Wallet"). */
const walletConnected = () =>
  document.querySelector('[data-testid="wallet-connect"]')?.getAttribute("data-state") === "ready" &&
  ![...document.querySelectorAll('[data-testid="wallet-connect"] button')].some((button) => /connect wallet/i.test(button.textContent ?? ""));

/** As a person would: connect the sandbox demo wallet, ask, and wait for the quote card. */
async function askForQuote(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/`, { waitUntil: "load" });
  // The wallet libraries load after the page; a disabled placeholder holds the button's place.
  // A click that lands while RainbowKit's modal is still opening may close it unconnected: try again.
  for (let attempt = 1; ; attempt++) {
    await page.locator(CONNECT_BUTTON).setTimeout(60_000).click();
    await page.locator(`::-p-aria([name="${SANDBOX_DEMO_WALLET.name}"][role="button"])`).setTimeout(15_000).click();
    const connected = await page.waitForFunction(walletConnected, { timeout: 15_000 }).then(
      () => true,
      () => false,
    );
    if (connected) break;
    if (attempt === 3) throw new Error(`the ${SANDBOX_DEMO_WALLET.name} did not connect`);
    await page.keyboard.press("Escape");
  }
  await page.locator('[data-testid="composer-input"]').fill(QUOTE_PROMPT);
  await page.locator('[data-testid="send-button"]:not([disabled])').click();
  await page.waitForSelector(QUOTE_CARD, { timeout: 60_000 });
}

async function inFreshProfile<T>(browser: Browser, work: (page: Page) => Promise<T>): Promise<T> {
  const context = await browser.createBrowserContext();
  try {
    return await work(await context.newPage());
  } finally {
    await context.close();
  }
}

/** Lighthouse now and then fails to record a load's trace (NO_NAVSTART, NO_FCP) on a busy machine: such a run is made again. */
async function retried<T>(log: (line: string) => void, work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt === attempts) throw error;
      log(`  run failed (${error instanceof Error ? error.message : String(error)}); once more`);
    }
  }
}

function pageResult(page: LighthousePage["page"], path: string, runs: LighthouseRun[]): LighthousePage {
  const byPerformance = [...runs].sort((a, b) => a.scores.performance - b.scores.performance);
  const medianRun = byPerformance[Math.floor((byPerformance.length - 1) / 2)];
  if (!medianRun) throw new Error(`no Lighthouse runs for the ${page}`);
  return {
    page,
    path,
    runs,
    scores: Object.fromEntries(CATEGORIES.map((category) => [category, spread(runs.map((run) => run.scores[category]))])) as Record<
      PhoneCategory,
      Spread
    >,
    largestContentfulPaintMs: spread(runs.map((run) => run.largestContentfulPaintMs)),
    totalBlockingTimeMs: spread(runs.map((run) => run.totalBlockingTimeMs)),
    medianRun,
  };
}

/** A production build to measure: its checkout, and what its server adds to the shared environment. */
export type PhoneBuild = { name: string; root: string; env?: Record<string, string | undefined> };

export type PhonePageName = LighthousePage["page"];

export type LighthouseComparison = Omit<LighthouseResult, "pages"> & { builds: { name: string; pages: LighthousePage[] }[] };

/**
 * Several builds measured in turns, each served by its own `next start` on one sandbox: a change's
 * before and after side by side, under the same load of a shared machine. The order of the builds
 * turns round every round, so neither always follows the other.
 */
export async function compareLighthouse({
  teardown,
  builds,
  env,
  runs,
  pages = ["empty chat", "quote"],
  log = () => undefined,
  reportDir,
}: {
  teardown: Teardown;
  builds: PhoneBuild[];
  env: Record<string, string | undefined>;
  runs: number;
  pages?: PhonePageName[];
  log?: (line: string) => void;
  /** Where to keep each run's whole Lighthouse report (JSON), to read what a score is made of. */
  reportDir?: string;
}): Promise<LighthouseComparison> {
  const dataDir = await mkdtemp(join(tmpdir(), "x402-bench-phone-"));
  const sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  const forgetSandbox = teardown.add(sandbox.stop);
  const apps: Awaited<ReturnType<typeof startApp>>[] = [];
  let browser: Browser | undefined;
  try {
    // The sandbox's description file makes the page offer its demo wallet, as in `npm run demo`.
    await writeInfoFile(sandbox.info, dataDir);
    for (const build of builds) {
      apps.push(
        await startApp({
          teardown,
          name: `${build.name} (sandbox, for Lighthouse)`,
          root: build.root,
          env: { ...env, ...sandboxEnv(sandbox), SANDBOX_INFO_FILE: infoFilePath(dataDir), MODEL_PROVIDER: "offline", ...build.env },
          probe: { path: "/api/chat", body: JSON.stringify({ messages: [{ role: "user", content: "hello" }] }) },
        }),
      );
    }
    const chromium = e2eBrowser();
    browser = await puppeteer.launch({
      executablePath: chromium.executablePath,
      headless: true,
      // As Playwright launches it for the tests: without Chromium's own sandbox (the tests run as root).
      args: [...chromium.args, "--no-sandbox"],
      ...(chromium.env ? { env: chromium.env } : {}),
    });
    const openBrowser = browser;
    const forgetBrowser = teardown.add(() => openBrowser.close());
    // The servers and the sandbox's chain yield the CPU to the browser, as on a phone, which shares
    // its CPU with no server: on a machine of two cores, their work for the page (its HTML, its API
    // calls and the chain's reads) would otherwise stretch the page's tasks that Lighthouse times.
    const browserPid = browser.process()?.pid;
    const yielded = browserPid === undefined ? 0 : yieldCpu([browserPid]);
    const measured = builds.map(() => new Map<PhonePageName, LighthouseRun[]>(pages.map((page) => [page, []])));
    let settings = "";
    let lighthouseVersion = "";
    const performance = (lhr: Result) => Math.round((lhr.categories.performance?.score ?? 0) * 100);
    // Every round at the slowdown this host's benchmark index calls for.
    const hostIndex = await hostBenchmarkIndex(openBrowser);
    const flags = flagsWith(phoneCpuSlowdown(hostIndex));
    // One unmeasured load of each page first: the server's first render and the route's code.
    for (let round = 0; round <= runs; round++) {
      const order = builds.map((_, index) => index);
      if (round % 2 === 1) order.reverse();
      const lines: string[] = [];
      for (const index of order) {
        const origin = (apps[index] as (typeof apps)[number]).origin;
        const prefix = builds.length > 1 ? `${(builds[index] as PhoneBuild).name} ` : "";
        const report = (name: string) => (reportDir ? join(reportDir, `${prefix.replace(/\W+/g, "-")}${name}-${round}.report.json`) : undefined);
        for (const page of pages) {
          const lhr =
            page === "empty chat"
              ? await retried(log, () => inFreshProfile(openBrowser, (tab) => audit(tab, `${origin}/`, flags, report("empty-chat"))))
              : await retried(log, () =>
                  inFreshProfile(openBrowser, async (tab) => {
                    await askForQuote(tab, origin);
                    const result = await audit(tab, `${origin}/`, flags, report("quote"));
                    // The page Lighthouse measured must be the quote's, brought back from the session.
                    if (!(await tab.$('[data-testid="payment-card"][data-status="awaiting-signature"]'))) {
                      throw new Error("after Lighthouse's load of the page, the quote was not on it");
                    }
                    return result;
                  }),
                );
          if (round === 0) {
            if (!settings) {
              lighthouseVersion = lhr.lighthouseVersion;
              const { formFactor, screenEmulation, throttling: applied, throttlingMethod } = lhr.configSettings;
              settings =
                `${formFactor}, ${screenEmulation.width}×${screenEmulation.height} at ${screenEmulation.deviceScaleFactor}×, ` +
                `${throttlingMethod} throttling: ${applied.rttMs} ms RTT, ${Math.round((applied.throughputKbps ?? 0) / 1024 * 10) / 10} Mbps, ` +
                `CPU ${applied.cpuSlowdownMultiplier}× slower (Lighthouse's 4× for a host of benchmark index up to ${LIGHTHOUSE_HOST_INDEX}; this host's ${Math.round(hostIndex)})` +
                (yielded > 0 ? `; the servers and the chain (${yielded} processes) at a lower CPU priority than the browser` : "");
            }
            lines.push(`${prefix}${page} ${performance(lhr)}`);
            continue;
          }
          const run = runOf(lhr);
          measured[index]?.get(page)?.push(run);
          lines.push(
            `${prefix}${page} ${CATEGORIES.map((category) => run.scores[category]).join("/")}, LCP ${run.largestContentfulPaintMs.toFixed(0)} ms, TBT ${run.totalBlockingTimeMs.toFixed(0)} ms`,
          );
        }
      }
      log(`  ${round === 0 ? "warm-up" : `round ${round}`}: ${lines.join(" | ")}`);
    }
    const version = await openBrowser.version();
    await openBrowser.close();
    forgetBrowser();
    const paths: Record<PhonePageName, string> = { "empty chat": "/", quote: "/ (a quote brought back from the session)" };
    return {
      lighthouse: lighthouseVersion,
      chromium: `${version} (${chromium.source}: ${chromium.executablePath})`,
      settings,
      runsPerPage: runs,
      prompt: QUOTE_PROMPT,
      builds: builds.map((build, index) => ({
        name: build.name,
        pages: pages.map((page) => pageResult(page, paths[page], measured[index]?.get(page) ?? [])),
      })),
    };
  } finally {
    await browser?.close().catch(() => undefined);
    for (const app of apps) await app.stop();
    await sandbox.stop();
    forgetSandbox();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The bench's phase: this checkout's build, both pages. */
export async function measureLighthouse({
  root,
  ...rest
}: {
  teardown: Teardown;
  root: string;
  env: Record<string, string | undefined>;
  runs: number;
  log?: (line: string) => void;
  reportDir?: string;
}): Promise<LighthouseResult> {
  const { builds, ...common } = await compareLighthouse({ ...rest, builds: [{ name: "product", root }] });
  return { ...common, pages: builds[0]?.pages ?? [] };
}
