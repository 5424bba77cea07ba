/**
 * `npm run sandbox`: the sandbox alone, in the foreground, until Ctrl-C or SIGTERM.
 */
import { startSandbox } from "./index";
import { onShutdown } from "./lifecycle";

const startedAt = Date.now();
const sandbox = await startSandbox().catch((error: unknown) => {
  console.error(`Sandbox failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
console.log(`Sandbox ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s. Ctrl-C stops it.`);

onShutdown(async (reason) => {
  console.log(`\n${reason}: stopping the sandbox...`);
  await sandbox.stop();
});
