// Which Chromium the end-to-end tests drive, so that `npm install && npm test` works on a machine
// without a system browser (Playwright's own download may be unreachable). In order:
//   1. CHROMIUM_PATH, when set;
//   2. the system Chromium (/usr/bin/chromium, /usr/bin/chromium-browser): the well-tested one;
//   3. a Chromium installed by `npx playwright install chromium`;
//   4. the Chromium shipped inside the @sparticuz/chromium npm package, unpacked once into the
//      temporary folder with the NSS libraries and fonts it comes with.
// E2E_BROWSER=system|playwright|sparticuz forces one of the last three.
//
// The Playwright config is evaluated synchronously (in the runner and again in each worker), so
// the package's asynchronous unpacking runs in a child process, once per machine and version.
import { execFileSync } from "node:child_process";
import { accessSync, constants, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "@playwright/test";

export type BrowserSource = "CHROMIUM_PATH" | "system" | "playwright" | "sparticuz";

export type ResolvedBrowser = {
  source: BrowserSource;
  executablePath: string;
  /** Flags this browser needs on top of the suite's own. */
  args: string[];
  /** The browser process's whole environment when it needs variables of its own (Playwright's
   * `env` launch option replaces the environment rather than adding to it). */
  env?: Record<string, string>;
};

function environmentWith(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  return { ...env, ...extra };
}

const SYSTEM_PATHS = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];
const FORCEABLE: BrowserSource[] = ["system", "playwright", "sparticuz"];

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function systemChromium(): string | undefined {
  return SYSTEM_PATHS.find(isExecutableFile);
}

function playwrightChromium(): string | undefined {
  const path = chromium.executablePath();
  return isExecutableFile(path) ? path : undefined;
}

/**
 * Unpacks @sparticuz/chromium into `<tmp>/e2e-sparticuz-chromium-<version>` (the browser, its fonts
 * and the NSS libraries built for it) unless that folder is already there. It unpacks into a
 * scratch folder renamed into place at the end, so an interrupted run never leaves half a binary
 * that a later run would trust.
 */
function sparticuzChromium(): ResolvedBrowser {
  const require = createRequire(import.meta.url);
  // The package exports only its entry point (build/index.js); its archives are in ../bin.
  const entry = require.resolve("@sparticuz/chromium");
  const packageDir = dirname(dirname(entry));
  const { version } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version: string };
  const home = join(tmpdir(), `e2e-sparticuz-chromium-${version}`);

  if (!isExecutableFile(join(home, "chromium"))) {
    const scratch = mkdtempSync(`${home}.unpacking-`);
    try {
      // The package unpacks into os.tmpdir(), which follows TMPDIR; the NSS libraries (al2023)
      // are only unpacked by the package on Amazon Linux, so ask for them explicitly.
      const script = [
        `const { default: chromium, inflate } = await import(${JSON.stringify(pathToFileURL(entry).href)});`,
        `await chromium.executablePath(${JSON.stringify(join(packageDir, "bin"))});`,
        `await inflate(${JSON.stringify(join(packageDir, "bin", "al2023.tar.br"))});`,
      ].join("\n");
      execFileSync(process.execPath, ["--input-type=module", "--eval", script], {
        env: { ...process.env, TMPDIR: scratch },
        stdio: ["ignore", "ignore", "inherit"],
        timeout: 120_000,
      });
      // The package's fonts.conf points at /tmp/fonts; this one points at the fonts unpacked
      // here, plus the system's when there are any.
      writeFileSync(
        join(scratch, "fonts", "fonts.conf"),
        [
          '<?xml version="1.0"?>',
          '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
          "<fontconfig>",
          `  <dir>${join(home, "fonts")}</dir>`,
          "  <dir>/usr/share/fonts</dir>",
          `  <cachedir>${join(home, "fonts-cache")}</cachedir>`,
          "</fontconfig>",
          "",
        ].join("\n"),
      );
      try {
        renameSync(scratch, home);
      } catch (error) {
        // Another process unpacked it first: use theirs.
        if (!isExecutableFile(join(home, "chromium"))) throw error;
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }

  const libraries = join(home, "al2023", "lib");
  return {
    source: "sparticuz",
    executablePath: join(home, "chromium"),
    // The package's binary is a headless shell built for AWS Lambda. Its own recommended flags
    // (chromium.args) also turn off web security, site isolation and mixed-content blocking,
    // which would let the page do what no person's browser allows, so only the zygote is
    // dropped: nothing else is needed to run it as root outside Lambda.
    args: ["--no-zygote"],
    env: environmentWith({
      LD_LIBRARY_PATH: [libraries, process.env.LD_LIBRARY_PATH].filter(Boolean).join(":"),
      FONTCONFIG_PATH: join(home, "fonts"),
    }),
  };
}

function resolve(): ResolvedBrowser {
  const forced = process.env.E2E_BROWSER?.trim();
  if (forced) {
    if (!FORCEABLE.includes(forced as BrowserSource)) {
      throw new Error(`E2E_BROWSER must be one of ${FORCEABLE.join(", ")}, got "${forced}"`);
    }
    if (forced === "sparticuz") return sparticuzChromium();
    const path = forced === "system" ? systemChromium() : playwrightChromium();
    if (!path) throw new Error(`E2E_BROWSER=${forced}, but no such Chromium is installed`);
    return { source: forced as BrowserSource, executablePath: path, args: [] };
  }

  const configured = process.env.CHROMIUM_PATH?.trim();
  if (configured) {
    if (!isExecutableFile(configured)) throw new Error(`CHROMIUM_PATH=${configured} is not an executable file`);
    return { source: "CHROMIUM_PATH", executablePath: configured, args: [] };
  }
  const system = systemChromium();
  if (system) return { source: "system", executablePath: system, args: [] };
  const installed = playwrightChromium();
  if (installed) return { source: "playwright", executablePath: installed, args: [] };
  return sparticuzChromium();
}

function describe(browser: ResolvedBrowser): string {
  let version = "";
  try {
    version = execFileSync(browser.executablePath, ["--version"], {
      env: { ...process.env, ...browser.env },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 15_000,
    }).trim();
  } catch {
    version = "version unknown";
  }
  return `e2e browser: ${version} (${browser.source}: ${browser.executablePath})`;
}

let resolved: ResolvedBrowser | undefined;

/** The browser for this run; announced once, by the runner (workers evaluate the config too). */
export function e2eBrowser(): ResolvedBrowser {
  if (!resolved) {
    resolved = resolve();
    if (process.env.TEST_WORKER_INDEX === undefined) console.log(describe(resolved));
  }
  return resolved;
}
