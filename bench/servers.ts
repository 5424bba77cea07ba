// The apps under test, each a `next start` of its production build on a free loopback port, with
// the time from spawn to its first 200 (the cold start) and the CPU its process tree has used.
import { performance } from "node:perf_hooks";
import { startNext, stopGroup, waitForApp } from "@/sandbox/next-app";
import { freePort, SANDBOX_HOST } from "@/sandbox/ports";
import { post, type Exchange } from "./http-client";
import { treeCpuSeconds } from "./process-cpu";

export type RunningApp = {
  name: string;
  origin: string;
  /** The `next start` process; its descendants are the server. */
  pid: number;
  /** From spawn to the status line of the first 200 on the probe route. */
  coldStartMs: number;
  /** The probe's first successful exchange. */
  firstAnswer: Exchange;
  cpuSeconds(): number;
  stop(): Promise<void>;
};

/** What must be stopped if the bench is interrupted: apps (their own process groups) and sandboxes. */
export type Teardown = {
  /** Registers a stop; returns a function that unregisters it once it has been run. */
  add(stop: () => Promise<void>): () => void;
  run(): Promise<void>;
};

export function createTeardown(): Teardown {
  const stops = new Set<() => Promise<void>>();
  return {
    add(stop) {
      stops.add(stop);
      return () => stops.delete(stop);
    },
    async run() {
      for (const stop of [...stops].reverse()) await stop().catch(() => undefined);
      stops.clear();
    },
  };
}

export type StartAppParameters = {
  teardown: Teardown;
  name: string;
  root: string;
  /** Values to set (a string) or to remove (undefined) on top of this process's environment. */
  env: Record<string, string | undefined>;
  /** The route polled until it answers 200, and the JSON body it is sent. */
  probe: { path: string; body: string };
};

const LOG_LINES_KEPT = 40;

export function appEnv(overrides: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

export async function startApp({ teardown, name, root, env, probe }: StartAppParameters): Promise<RunningApp> {
  const port = await freePort();
  const origin = `http://${SANDBOX_HOST}:${port}`;
  const output: string[] = [];
  const spawnedAt = performance.now();
  const child = startNext({ root, port, host: SANDBOX_HOST, env: appEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  const keep = (chunk: Buffer) => {
    output.push(...chunk.toString("utf8").split("\n").filter(Boolean));
    output.splice(0, Math.max(0, output.length - LOG_LINES_KEPT));
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const forget = teardown.add(() => stopGroup(child));
  const stop = async () => {
    await stopGroup(child);
    forget();
  };

  let firstAnswer: Exchange | undefined;
  try {
    await waitForApp(`${origin}${probe.path}`, child, {
      timeoutMs: 120_000,
      // Refused connections come back at once; a short interval keeps the cold start exact.
      intervalMs: 5,
      probe: async (url) => {
        const exchange = await post(new URL(url), probe.body, { timeoutMs: 30_000 });
        if (exchange.status === 200) firstAnswer = exchange;
        return exchange.status;
      },
    });
  } catch (error) {
    await stop();
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${name}: ${message}\n${output.join("\n")}`);
  }
  if (!firstAnswer || child.pid === undefined) throw new Error(`${name}: no answer recorded`);
  const pid = child.pid;
  return {
    name,
    origin,
    pid,
    coldStartMs: firstAnswer.headersAt - spawnedAt,
    firstAnswer,
    cpuSeconds: () => treeCpuSeconds(pid),
    stop,
  };
}
