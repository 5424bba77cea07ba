/**
 * `npm run demo`: the sandbox, then the app in production mode wired to it (demo-setup.ts), and
 * then what a person needs: the address to open, the demo wallet, where the sandbox's details
 * are. Builds only when the build is missing, older than the sources, or was not made for the
 * sandbox (NEXT_PUBLIC_* values are baked in at build time). Ctrl-C or SIGTERM stops the app's
 * whole process group (`next start` forks a child server) and the sandbox, leaving nothing behind.
 */
import type { ChildProcess } from "node:child_process";
import { beginDemoLedger, demoAppEnv, demoLedger, demoReadyLines } from "./demo-setup";
import { startSandbox, type Sandbox } from "./index";
import { infoFilePath } from "./info";
import { onShutdown } from "./lifecycle";
import { ensureBuild, productBuild, SANDBOX_PUBLIC_ENV, startNext, stopGroup, waitForApp } from "./next-app";
import { assertPortFree, moveTakenAppPort, portsFromEnv, portVariable, SANDBOX_HOST } from "./ports";

const ROOT = process.cwd();
const SKIP_BUILD = process.argv.includes("--skip-build");

async function main(): Promise<void> {
  // A usual port something else holds (another app on 3000, a node on 8545) is swapped for a
  // free one, said here; a port the person set with its variable must be free.
  const appPort = await moveTakenAppPort(portsFromEnv().app, { movable: !process.env[portVariable("app")], onMoved: (note) => console.log(note) });
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
    console.log("Starting the sandbox: a local chain with USDC, a facilitator, a registry and paid services...");
    sandbox = await startSandbox({ quiet: true, chainClock: true, ports: { app: appPort }, moveTakenPorts: { onMoved: (note) => console.log(note) } });
    const { info } = sandbox;
    const infoFile = infoFilePath();
    const env = demoAppEnv({ info, appPort, infoFile, env: process.env });
    const ledger = demoLedger(process.env);
    await beginDemoLedger(ledger);

    if (!SKIP_BUILD) await ensureBuild(productBuild(ROOT, SANDBOX_PUBLIC_ENV), { env });

    console.log(`Starting the app on ${SANDBOX_HOST}:${appPort}...`);
    app = startNext({ root: ROOT, port: appPort, host: SANDBOX_HOST, env });
    app.once("exit", (code) => {
      if (!stopping) {
        console.error(`The app stopped (exit code ${code}); stopping the sandbox.`);
        void shutdown(1);
      }
    });
    await waitForApp(`http://${SANDBOX_HOST}:${appPort}/`, app);

    for (const line of demoReadyLines(info, infoFile, ledger)) console.log(line);
  } catch (error) {
    console.error(`Demo failed: ${error instanceof Error ? error.message : String(error)}`);
    await shutdown(1);
  }
}

await main();
