/**
 * `npm run demo`: the sandbox, then the app in production mode wired to it. Builds only when
 * the build is missing, older than the sources, or was not made for the sandbox (NEXT_PUBLIC_*
 * values are baked in at build time). Ctrl-C or SIGTERM stops the app's whole process group
 * (`next start` forks a child server) and the sandbox, leaving nothing behind.
 */
import type { ChildProcess } from "node:child_process";
import { resolve } from "node:path";
import { startSandbox, type Sandbox } from "./index";
import { chainEnvOf, infoFilePath, mppServicesOf } from "./info";
import { onShutdown } from "./lifecycle";
import { ensureBuild, productBuild, SANDBOX_PUBLIC_ENV, startNext, stopGroup, waitForApp } from "./next-app";
import { assertPortFree, portsFromEnv, portVariable, SANDBOX_HOST } from "./ports";

const ROOT = process.cwd();
const SKIP_BUILD = process.argv.includes("--skip-build");

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
      // The sandbox's MPP services, by their OpenAPI documents, beside any named already.
      MPP_SERVICES: [...new Set([...mppServicesOf(info), ...(process.env.MPP_SERVICES ?? "").split(",").map((url) => url.trim()).filter(Boolean)])].join(","),
      ...chainEnvOf(info),
      // The sandbox's services and registry listen on 127.0.0.1, which the app calls only when
      // allowed (docs/contract.md, section 6): on their own ports, and no other (anvil's unlocked accounts
      // answer on that address too). An allow-list already set is kept as it is.
      X402_ALLOW_PRIVATE_ADDRESSES: process.env.X402_ALLOW_PRIVATE_ADDRESSES?.trim() || sandboxAllowance(info),
      SANDBOX_INFO_FILE: infoFilePath(),
      // The one origin sign-ins and access grants are for, and every link the server hands out
      // names (docs/contract.md, section 6): the address printed below.
      APP_URL: info.appUrl,
    };

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

    console.log("");
    console.log(`Registry     ${info.registryUrl}  (X402_DISCOVERY_URLS)`);
    console.log(`MPP services ${mppServicesOf(info).join(", ")}  (MPP_SERVICES)`);
    console.log(`Chain        ${info.rpcUrl}  (RPC_URL_${info.chainId})`);
    console.log(`Sandbox info ${resolve(infoFilePath())}`);
    console.log(`Ready: ${info.appUrl}`);
  } catch (error) {
    console.error(`Demo failed: ${error instanceof Error ? error.message : String(error)}`);
    await shutdown(1);
  }
}

await main();

/** The sandbox's own loopback services and registry, each on its own port: `127.0.0.1:4101,...`. */
function sandboxAllowance(info: { registryUrl: string; services: ReadonlyArray<{ url: string }> }): string {
  const ports = new Set([info.registryUrl, ...info.services.map((service) => service.url)].map((url) => new URL(url).port));
  return [...ports].map((port) => `${SANDBOX_HOST}:${port}`).join(",");
}
