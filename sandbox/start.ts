/**
 * `npm run sandbox`: the sandbox alone, in the foreground, until Ctrl-C or SIGTERM.
 */
import { startSandbox } from "./index";

const startedAt = Date.now();
const sandbox = await startSandbox().catch((error: unknown) => {
  console.error(`Sandbox failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
console.log(`Sandbox ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s. Ctrl-C stops it.`);

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping the sandbox...`);
  await sandbox.stop();
  process.exit(0);
};
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
