/**
 * The app as a process: the production build (made only when it is missing, older than the
 * sources, or was not made for the sandbox, whose NEXT_PUBLIC_* values are baked in at build
 * time), `next start` in a process group of its own, a wait until it answers, and a stop that
 * takes the whole group (`next start` forks a child server). Used by `npm run demo` and by the
 * tests that run several app instances.
 */
import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";

const ROOT = process.cwd();
const SOURCE_DIRS = ["app", "components", "lib", "public"];
const SOURCE_FILES = ["next.config.ts", "package.json", "tsconfig.json", "instrumentation.ts"];
const BUILD_ID = join(ROOT, ".next", "BUILD_ID");
/** Written after a build made here, with the sandbox's public variables. */
const SANDBOX_BUILD_MARKER = join(ROOT, ".next", "sandbox-build.json");
/** The public variables a sandbox build bakes in. */
export const SANDBOX_PUBLIC_ENV = { NEXT_PUBLIC_SANDBOX: "1" } as const;

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

/** Why the build must be made again, or undefined when the one there serves. */
export function buildIsStale(): string | undefined {
  if (!existsSync(BUILD_ID)) return "no build yet";
  const built = statSync(BUILD_ID).mtimeMs;
  if (!existsSync(SANDBOX_BUILD_MARKER) || statSync(SANDBOX_BUILD_MARKER).mtimeMs < built) {
    return "the last build was not made for the sandbox";
  }
  const newestSource = Math.max(
    ...SOURCE_DIRS.map((dir) => newestMtime(join(ROOT, dir))),
    ...SOURCE_FILES.map((file) => newestMtime(join(ROOT, file))),
  );
  return newestSource > built ? "sources changed since the last build" : undefined;
}

function nextBin(): string {
  return createRequire(import.meta.url).resolve("next/dist/bin/next");
}

function runNext(args: string[], env: NodeJS.ProcessEnv, stdio: StdioOptions): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [nextBin(), ...args], { env, stdio });
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolvePromise() : reject(new Error(`next ${args[0]} exited with code ${code}`)),
    );
  });
}

/** Builds the app for the sandbox when the build there does not serve; says why it built, if it did. */
export async function ensureSandboxBuild(
  env: NodeJS.ProcessEnv,
  { stdio = "inherit", onBuild }: { stdio?: StdioOptions; onBuild?: (reason: string) => void } = {},
) {
  const staleReason = buildIsStale();
  if (!staleReason) return undefined;
  onBuild?.(staleReason);
  await runNext(["build"], { ...env, ...SANDBOX_PUBLIC_ENV }, stdio);
  await writeFile(SANDBOX_BUILD_MARKER, JSON.stringify(SANDBOX_PUBLIC_ENV));
  return staleReason;
}

/** `next start` on host:port, in its own process group, so stopping it also stops the server it forks. */
export function startApp({ port, host, env, stdio = "inherit" }: { port: number; host: string; env: NodeJS.ProcessEnv; stdio?: StdioOptions }): ChildProcess {
  return spawn(process.execPath, [nextBin(), "start", "-p", String(port), "-H", host], { env, stdio, detached: true });
}

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

export async function waitForApp(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`next start exited with code ${child.exitCode}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      await response.body?.cancel();
      if (response.status === 200) return;
    } catch {
      // not up yet
    }
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 500));
  }
  throw new Error(`the app did not answer 200 on ${url} within 90 s`);
}
