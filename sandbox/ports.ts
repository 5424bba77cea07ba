/**
 * Which loopback ports the sandbox listens on: from the environment with documented defaults,
 * or free ones picked by the OS so parallel test files never clash.
 */
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

/** A port the OS just handed out; free at the time of the call. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, SANDBOX_HOST, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Where the system's ephemeral ports begin (Linux's default 32768): ports any outgoing
 * connection or listen(0) may take at any moment. */
const EPHEMERAL_START = 32_768;

/**
 * A block of `count` consecutive free ports (services take consecutive ports). Picks a random
 * base below the ephemeral range, so that no connection opened meanwhile (by this process or a
 * parallel test) takes a port between the probe and the listen; probes each port; retries on a
 * collision.
 */
export async function freePortBlock(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * (EPHEMERAL_START - 20_000 - count));
    let allFree = true;
    for (let offset = 0; offset < count; offset++) {
      if (!(await isPortFree(base + offset))) {
        allFree = false;
        break;
      }
    }
    if (allFree) return base;
  }
  throw new Error(`no block of ${count} free loopback ports found`);
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
