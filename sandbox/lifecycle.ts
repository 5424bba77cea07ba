/**
 * Stopping the foreground commands (`npm run sandbox`, `npm run demo`) however they are ended:
 * Ctrl-C, SIGTERM, SIGHUP, or the death of a launcher above them. `npm run` passes SIGTERM to
 * its shell only, and the shell exits without passing it on, so this process also watches its
 * launchers (Linux /proc; elsewhere only its own parent) and stops when one of them is gone.
 */
import { readFileSync } from "node:fs";

type ProcessState = { parent: number; zombie: boolean };

function stateOf(pid: number): ProcessState | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis are plain.
    const [state, parent] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { parent: Number(parent), zombie: state === "Z" || state === "X" };
  } catch {
    return undefined;
  }
}

/** Up to `depth` ancestors with the parent each had at start; a changed parent means one died. */
function launchers(depth: number): Array<{ pid: number; parent: number }> {
  const chain: Array<{ pid: number; parent: number }> = [];
  let pid = process.ppid;
  while (pid > 1 && chain.length < depth) {
    const state = stateOf(pid);
    if (!state) break;
    chain.push({ pid, parent: state.parent });
    pid = state.parent;
  }
  return chain;
}

/** Calls `stop` once, on the first signal or when a launcher (up to 3 levels up) exits. */
export function onShutdown(stop: (reason: string) => Promise<void> | void): void {
  let stopping = false;
  const trigger = (reason: string) => {
    if (stopping) return;
    stopping = true;
    clearInterval(watchdog);
    void Promise.resolve(stop(reason)).finally(() => process.exit(0));
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => trigger(signal));

  const initialParent = process.ppid;
  const watched = launchers(3);
  const watchdog = setInterval(() => {
    if (process.ppid !== initialParent) return trigger("launcher exited");
    for (const { pid, parent } of watched) {
      const state = stateOf(pid);
      if (!state || state.zombie || state.parent !== parent) return trigger("launcher exited");
    }
  }, 1_000);
  watchdog.unref();
}
