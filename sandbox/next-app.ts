/**
 * A Next.js app in production mode, for `npm run demo` and `npm run bench`: build it only when
 * the build is missing, older than its sources, or was made with other public (`NEXT_PUBLIC_*`)
 * values, which Next bakes in at build time; start `next start` in its own process group (it
 * forks a child server) and stop the whole group; wait until the app answers 200.
 */
import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { utimes, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";

export type NextAppBuild = {
  /** The app's folder: where its `app/` and `.next/` are. */
  root: string;
  /** Folders and files under `root` whose changes make a build stale. */
  sources: string[];
  /** The public values the build must be made with. */
  publicEnv: Record<string, string>;
  /** A script under `root` that `npm run build` runs after `next build`, run here too when the checkout has it. */
  afterBuild?: string;
};

/** Written after a build made here: the public values it was made with. */
const BUILD_ENV_MARKER = "build-env.json";

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === "node_modules" || entry.startsWith(".")) continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

const canonical = (values: Record<string, string>) =>
  JSON.stringify(Object.fromEntries(Object.entries(values).sort(([a], [b]) => a.localeCompare(b))));

/** Why the app needs building, or undefined when its build is fresh. */
export function buildStaleReason({ root, sources, publicEnv }: NextAppBuild): string | undefined {
  const buildId = join(root, ".next", "BUILD_ID");
  const marker = join(root, ".next", BUILD_ENV_MARKER);
  if (!existsSync(buildId)) return "no build yet";
  const built = statSync(buildId).mtimeMs;
  if (!existsSync(marker) || statSync(marker).mtimeMs < built) return "the last build was made elsewhere";
  if (readFileSync(marker, "utf8") !== canonical(publicEnv)) return "the last build was made with other public values";
  const newestSource = Math.max(...sources.map((source) => newestMtime(join(root, source))));
  return newestSource > built ? "sources changed since the last build" : undefined;
}

/**
 * Dates the build by when it began, not when it ended: a source saved while `next build` ran
 * may not be in it, and must make it stale.
 */
export async function dateBuildFromItsStart(root: string, startedAt: Date): Promise<void> {
  await utimes(join(root, ".next", "BUILD_ID"), startedAt, startedAt);
}

/** Records the public values a build in `root` was made with. */
export function writeBuildEnvMarker(root: string, publicEnv: Record<string, string>): Promise<void> {
  return writeFile(join(root, ".next", BUILD_ENV_MARKER), canonical(publicEnv));
}

/** The Next that `root`'s own code sees: another checkout with its own node_modules must be built
 * and served by its own copy, or its pages would meet two copies of React. */
export function nextBin(root: string): string {
  return createRequire(join(root, "package.json")).resolve("next/dist/bin/next");
}

type RunOptions = { cwd: string; env: NodeJS.ProcessEnv; stdio: StdioOptions };

function runNode(args: string[], options: RunOptions, name = args[0]): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, args, options);
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolvePromise() : reject(new Error(`${name} exited with code ${code}`))));
  });
}

const runNext = (args: string[], options: RunOptions) => runNode([nextBin(options.cwd), ...args], options, `next ${args[0]}`);

export type EnsureBuildReturnType = { built: false } | { built: true; reason: string; seconds: number };

/** Builds the app when its build is stale; `env` must hold `build.publicEnv`'s values. */
export async function ensureBuild(
  build: NextAppBuild,
  { env, stdio = "inherit", log = console.log }: { env: NodeJS.ProcessEnv; stdio?: StdioOptions; log?: (line: string) => void },
): Promise<EnsureBuildReturnType> {
  const reason = buildStaleReason(build);
  if (!reason) return { built: false };
  log(`Building ${build.root} (${reason})...`);
  const startedAt = Date.now();
  await runNext(["build"], { cwd: build.root, env: { ...env, ...build.publicEnv }, stdio });
  const afterBuild = build.afterBuild && join(build.root, build.afterBuild);
  if (afterBuild && existsSync(afterBuild)) await runNode([afterBuild, build.root], { cwd: build.root, env, stdio });
  await dateBuildFromItsStart(build.root, new Date(startedAt));
  await writeBuildEnvMarker(build.root, build.publicEnv);
  const seconds = (Date.now() - startedAt) / 1000;
  log(`Built in ${seconds.toFixed(0)} s.`);
  return { built: true, reason, seconds };
}

/** `next start` in its own process group, so that stopping it also stops the server it forks. */
export function startNext({
  root,
  port,
  host,
  env,
  stdio = "inherit",
}: {
  root: string;
  port: number;
  host: string;
  env: NodeJS.ProcessEnv;
  stdio?: StdioOptions;
}): ChildProcess {
  return spawn(process.execPath, [nextBin(root), "start", "-p", String(port), "-H", host], {
    cwd: root,
    env,
    stdio,
    detached: true,
  });
}

/** Stops `next start`'s whole process group: SIGTERM, then SIGKILL after 5 s. */
export function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return Promise.resolve();
  const pid = child.pid;
  return new Promise((resolvePromise) => {
    const signalGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-pid, signal);
      } catch {
        // the group is already gone
      }
    };
    const killer = setTimeout(() => signalGroup("SIGKILL"), 5_000);
    child.once("exit", () => {
      clearTimeout(killer);
      // The forked server may outlive its parent by a moment; make sure the group is gone.
      signalGroup("SIGKILL");
      resolvePromise();
    });
    signalGroup("SIGTERM");
  });
}

async function fetchStatus(url: string): Promise<number> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  await response.body?.cancel();
  return response.status;
}

/** Waits until `probe` (by default a GET of `url`) answers 200; fails if the app exits first. */
export async function waitForApp(
  url: string,
  child: ChildProcess,
  {
    timeoutMs = 90_000,
    intervalMs = 500,
    probe = fetchStatus,
  }: { timeoutMs?: number; intervalMs?: number; probe?: (url: string) => Promise<number> } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`next start exited with code ${child.exitCode}`);
    try {
      if ((await probe(url)) === 200) return;
    } catch {
      // not up yet
    }
    await new Promise((resolvePromise) => setTimeout(resolvePromise, intervalMs));
  }
  throw new Error(`the app did not answer 200 on ${url} within ${timeoutMs / 1000} s`);
}

/** The product app at `root`: what its build depends on. */
/** What `npm run build` runs after `next build`: the compile hints (bin/compile-hints.mjs). */
const PRODUCT_AFTER_BUILD = "bin/compile-hints.mjs";

export function productBuild(root: string, publicEnv: Record<string, string>): NextAppBuild {
  return {
    root,
    sources: ["app", "components", "lib", "public", "next.config.ts", "proxy.ts", "instrumentation.ts", "package.json", "tsconfig.json", PRODUCT_AFTER_BUILD],
    publicEnv,
    afterBuild: PRODUCT_AFTER_BUILD,
  };
}

/** The public values a sandbox build bakes in (`npm run demo`, the end-to-end and multi-instance tests). */
export const SANDBOX_PUBLIC_ENV = { NEXT_PUBLIC_SANDBOX: "1" } as const;
