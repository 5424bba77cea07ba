/**
 * Which loopback ports the sandbox listens on: from the environment with documented defaults,
 * or free ones picked by the OS so parallel test files never clash.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

export const SANDBOX_HOST = "127.0.0.1";

export type SandboxPorts = {
  rpc: number;
  /** The local Solana's JSON-RPC. */
  solana: number;
  facilitator: number;
  registry: number;
  /** First service port; service i listens on `services + i`. */
  services: number;
  app: number;
};

const PORT_VARIABLES: Record<keyof SandboxPorts, { variable: string; fallback: number }> = {
  rpc: { variable: "SANDBOX_RPC_PORT", fallback: 8545 },
  solana: { variable: "SANDBOX_SOLANA_PORT", fallback: 8899 },
  facilitator: { variable: "SANDBOX_FACILITATOR_PORT", fallback: 4020 },
  registry: { variable: "SANDBOX_REGISTRY_PORT", fallback: 4030 },
  services: { variable: "SANDBOX_SERVICES_PORT", fallback: 4100 },
  app: { variable: "PORT", fallback: 3000 },
};

export function portVariable(key: keyof SandboxPorts): string {
  return PORT_VARIABLES[key].variable;
}

function envPort(key: keyof SandboxPorts, env: NodeJS.ProcessEnv): number {
  const { variable, fallback } = PORT_VARIABLES[key];
  const raw = env[variable];
  if (raw === undefined || raw.trim() === "") return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(`${variable} must be a port number (1-65535), got "${raw}"`);
  }
  return port;
}

export function portsFromEnv(env: NodeJS.ProcessEnv = process.env): SandboxPorts {
  return {
    rpc: envPort("rpc", env),
    solana: envPort("solana", env),
    facilitator: envPort("facilitator", env),
    registry: envPort("registry", env),
    services: envPort("services", env),
    app: envPort("app", env),
  };
}

/**
 * The system's ephemeral ports, which any outgoing connection or listen(0) may take at any moment:
 * Linux's own range where it says (`ip_local_port_range`), else its default, 32768-60999.
 */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
    if (low !== undefined && high !== undefined && Number.isInteger(low) && Number.isInteger(high) && low <= high) return [low, high];
  } catch {
    // Not Linux, or not readable: the default.
  }
  return [32_768, 60_999];
}

/**
 * Where ports are picked: the larger stretch outside the ephemeral range, from 20000 (clear of the
 * well-known and most registered services' ports) to 65535.
 */
export const PICK_RANGE: { from: number; to: number } = (() => {
  const [low, high] = ephemeralRange();
  const below = { from: 20_000, to: Math.max(20_000, low - 1) };
  const above = { from: Math.max(20_000, high + 1), to: 65_535 };
  return below.to - below.from >= above.to - above.from ? below : above;
})();

/** Ports this process has handed out, never handed out twice (a sandbox asks for several in a row,
 * each probed and closed before any is listened on). */
const handedOut = new Set<number>();

/**
 * A block of `count` consecutive free ports (services take consecutive ports). Picks a random
 * base outside the ephemeral range (PICK_RANGE), so that no connection opened meanwhile (by this
 * process or a parallel test) takes a port between the probe and the listen; skips ports this
 * process handed out already; probes each port; retries on a collision.
 */
export async function freePortBlock(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = PICK_RANGE.from + Math.floor(Math.random() * (PICK_RANGE.to - PICK_RANGE.from + 2 - count));
    let allFree = true;
    for (let offset = 0; offset < count; offset++) {
      if (handedOut.has(base + offset) || !(await isPortFree(base + offset))) {
        allFree = false;
        break;
      }
    }
    if (allFree) {
      for (let offset = 0; offset < count; offset++) handedOut.add(base + offset);
      return base;
    }
  }
  throw new Error(`no block of ${count} free loopback ports found`);
}

/**
 * A free loopback port for a server to listen on shortly. Not one the OS hands out itself
 * (`listen(0)`): those come from the ephemeral range, where any outgoing connection opened between
 * the probe and the listen (a parallel test's request) may take it first.
 */
export async function freePort(): Promise<number> {
  return freePortBlock(1);
}

export async function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, SANDBOX_HOST, () => server.close(() => resolve(true)));
  });
}

/** Fails with a message naming the variable, so a stale process from a crash is easy to find. */
export async function assertPortFree(port: number, variable: string): Promise<void> {
  if (!(await isPortFree(port))) {
    throw new Error(
      `Port ${port} on ${SANDBOX_HOST} is already in use (set by ${variable}). ` +
        `Stop whatever holds it (a sandbox left over from a crash?) or choose another port with ${variable}.`,
    );
  }
}

/** What listens on each port, as the demo says it when one moves. */
const portRole: Record<keyof SandboxPorts, string> = {
  rpc: "the local chain",
  solana: "the local Solana",
  facilitator: "the facilitator",
  registry: "the registry",
  services: "the services",
  app: "the app",
};

/**
 * The sandbox's ports with each movable one that something else holds (another app on 3000, a
 * node on 8545) swapped for a free one, and `onMoved` told which, in words; the others as given.
 * The services take a block of `serviceCount` ports from `services`, moved whole.
 */
export async function moveTakenPorts(
  ports: Omit<SandboxPorts, "app">,
  { serviceCount, movable, onMoved }: { serviceCount: number; movable: (key: keyof SandboxPorts) => boolean; onMoved: (note: string) => void },
): Promise<Omit<SandboxPorts, "app">> {
  const settled = { ...ports };
  for (const key of ["rpc", "solana", "facilitator", "registry"] as const) {
    if (!movable(key) || (await isPortFree(settled[key]))) continue;
    const taken = settled[key];
    settled[key] = await freePort();
    onMoved(`Port ${taken} (${portVariable(key)}) is taken: ${portRole[key]} listens on ${settled[key]} instead.`);
  }
  if (movable("services")) {
    const block = Array.from({ length: serviceCount }, (_, index) => settled.services + index);
    if ((await Promise.all(block.map((port) => isPortFree(port)))).includes(false)) {
      const taken = settled.services;
      settled.services = await freePortBlock(serviceCount);
      onMoved(`Ports ${taken}-${taken + serviceCount - 1} (${portVariable("services")}) are not all free: ${portRole.services} listen on ${settled.services}-${settled.services + serviceCount - 1} instead.`);
    }
  }
  return settled;
}

/** The app's port, moved as moveTakenPorts moves the sandbox's when it is movable and taken. */
export async function moveTakenAppPort(port: number, { movable, onMoved }: { movable: boolean; onMoved: (note: string) => void }): Promise<number> {
  if (!movable || (await isPortFree(port))) return port;
  const moved = await freePort();
  onMoved(`Port ${port} (${portVariable("app")}) is taken: ${portRole.app} listens on ${moved} instead.`);
  return moved;
}
