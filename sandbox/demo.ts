/**
 * `npm run demo`: the sandbox, then the app in production mode wired to it. Builds only when
 * the build is missing, older than the sources, or was not made for the sandbox (NEXT_PUBLIC_*
 * values are baked in at build time). Ctrl-C or SIGTERM stops the app's whole process group
 * (`next start` forks a child server) and the sandbox, leaving nothing behind.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { startSandbox, type Sandbox } from "./index";
import { infoFilePath } from "./info";
import { onShutdown } from "./lifecycle";
import { assertPortFree, portsFromEnv, portVariable, SANDBOX_HOST } from "./ports";

const ROOT = process.cwd();
const SOURCE_DIRS = ["app", "components", "lib", "public"];
const SOURCE_FILES = ["next.config.ts", "package.json", "tsconfig.json"];
const BUILD_ID = join(ROOT, ".next", "BUILD_ID");
/** Written after a build made here, with the sandbox's public variables. */
const SANDBOX_BUILD_MARKER = join(ROOT, ".next", "sandbox-build.json");
const SKIP_BUILD = process.argv.includes("--skip-build");

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

function buildIsStale(): string | undefined {
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

function run(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [nextBin(), ...args], { env, stdio: "inherit" });
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolvePromise() : reject(new Error(`next ${args[0]} exited with code ${code}`)),
    );
  });
}

function stopGroup(child: ChildProcess): Promise<void> {
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

async function waitForApp(url: string, child: ChildProcess): Promise<void> {
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

async function main(): Promise<void> {
  const appPort = portsFromEnv().app;
  await assertPortFree(appPort, portVariable("app"));

  let sandbox: Sandbox | undefined;
  let app: ChildProcess | undefined;
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    if (app) await stopGroup(app);
    if (sandbox) await sandbox.stop();
    process.exit(code);
  };
  onShutdown(async (reason) => {
    console.log(`\n${reason}: stopping the app and the sandbox...`);
    await shutdown(0);
  });

  try {
    sandbox = await startSandbox({ quiet: false });
    const { info } = sandbox;
    const extraRegistries = (process.env.X402_DISCOVERY_URLS ?? "")
      .split(",")
      .map((url) => url.trim())
      .filter((url) => url && url !== info.registryUrl);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(appPort),
      X402_DISCOVERY_URLS: [info.registryUrl, ...extraRegistries].join(","),
      X402_NETWORKS: info.network,
      [`RPC_URL_${info.chainId}`]: info.rpcUrl,
      [`USDC_ADDRESS_${info.chainId}`]: info.usdc.address,
      // The sandbox's services listen on 127.0.0.1, which the app calls only when allowed
      // (SPEC section 6); an allow-list already set is kept as it is.
      X402_ALLOW_PRIVATE_ADDRESSES: process.env.X402_ALLOW_PRIVATE_ADDRESSES?.trim() || SANDBOX_HOST,
      NEXT_PUBLIC_SANDBOX: "1",
      SANDBOX_INFO_FILE: infoFilePath(),
    };

    const staleReason = SKIP_BUILD ? undefined : buildIsStale();
    if (staleReason) {
      console.log(`Building the app (${staleReason})...`);
      const startedAt = Date.now();
      await run(["build"], env);
      await writeFile(SANDBOX_BUILD_MARKER, JSON.stringify({ NEXT_PUBLIC_SANDBOX: "1" }));
      console.log(`Built in ${((Date.now() - startedAt) / 1000).toFixed(0)} s.`);
    }

    console.log(`Starting the app on ${SANDBOX_HOST}:${appPort}...`);
    app = spawn(process.execPath, [nextBin(), "start", "-p", String(appPort), "-H", SANDBOX_HOST], {
      env,
      stdio: "inherit",
      // Its own process group, so stopping it also stops the server `next start` forks.
      detached: true,
    });
    app.once("exit", (code) => {
      if (!stopping) {
        console.error(`The app stopped (exit code ${code}); stopping the sandbox.`);
        void shutdown(1);
      }
    });
    await waitForApp(`http://${SANDBOX_HOST}:${appPort}/`, app);

    console.log("");
    console.log(`Registry     ${info.registryUrl}  (X402_DISCOVERY_URLS)`);
    console.log(`Chain        ${info.rpcUrl}  (RPC_URL_${info.chainId})`);
    console.log(`Sandbox info ${resolve(infoFilePath())}`);
    console.log(`Ready: ${info.appUrl}`);
  } catch (error) {
    console.error(`Demo failed: ${error instanceof Error ? error.message : String(error)}`);
    await shutdown(1);
  }
}

await main();
