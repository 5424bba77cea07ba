// The ports a sandbox picks for its chain, Solana, facilitator, registry, services and app are
// probed free and listened on a moment later. One from the system's ephemeral range can be taken in
// that moment by any outgoing connection (a parallel test file's request): the sandbox then fails
// to start with EADDRINUSE. Picked ports stay outside that range and are never handed out twice.
// And the demo, on a machine where a usual port is taken (another app on 3000, a node on 8545),
// starts on a free one and says which, unless the person chose that port with its variable.
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { describe, expect, test } from "vitest";
import { freePort, freePortBlock, isPortFree, moveTakenAppPort, moveTakenPorts, PICK_RANGE, SANDBOX_HOST } from "@/sandbox/ports";

function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
    return [low ?? 32_768, high ?? 60_999];
  } catch {
    return [32_768, 60_999];
  }
}

describe("the sandbox's ports", () => {
  test("a picked port is never one the system may give an outgoing connection, and never the same twice", async () => {
    const [low, high] = ephemeralRange();
    const ports: number[] = [];
    for (let i = 0; i < 100; i++) ports.push(await freePort());
    for (const port of ports) {
      expect(port < low || port > high, `port ${port} lies in the ephemeral range ${low}-${high}`).toBe(true);
      expect(port).toBeGreaterThanOrEqual(PICK_RANGE.from);
      expect(port).toBeLessThanOrEqual(PICK_RANGE.to);
    }
    expect(new Set(ports).size).toBe(ports.length);
  });

  test("a block of ports lies wholly outside the ephemeral range and shares no port with single picks", async () => {
    const [low, high] = ephemeralRange();
    const single = await freePort();
    const base = await freePortBlock(40);
    for (let port = base; port < base + 40; port++) {
      expect(port < low || port > high).toBe(true);
      expect(port).not.toBe(single);
    }
  });

  test("a picked port can be listened on", async () => {
    const port = await freePort();
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, SANDBOX_HOST, resolve);
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});

describe("the demo on a machine where a usual port is taken", () => {
  /** Something else listening on a port, as another program would. */
  async function hold(port: number): Promise<() => Promise<void>> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, SANDBOX_HOST, () => resolve());
    });
    return () => new Promise<void>((resolve) => server.close(() => resolve()));
  }

  test("a taken port (its variable unset) is swapped for a free one, and the person is told which; free ones stay", async () => {
    const [rpc, solana, facilitator, registry, services] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePortBlock(3)];
    const release = [await hold(rpc), await hold(services + 1)];
    try {
      const notes: string[] = [];
      const settled = await moveTakenPorts({ rpc, solana, facilitator, registry, services }, { serviceCount: 3, movable: () => true, onMoved: (note) => notes.push(note) });
      expect(settled).toMatchObject({ solana, facilitator, registry });
      expect(settled.rpc).not.toBe(rpc);
      expect(await isPortFree(settled.rpc)).toBe(true);
      expect(settled.services).not.toBe(services);
      expect(notes).toEqual([
        `Port ${rpc} (SANDBOX_RPC_PORT) is taken: the local chain listens on ${settled.rpc} instead.`,
        `Ports ${services}-${services + 2} (SANDBOX_SERVICES_PORT) are not all free: the services listen on ${settled.services}-${settled.services + 2} instead.`,
      ]);
    } finally {
      for (const close of release) await close();
    }
  });

  test("a port the person set keeps its number, taken or not (the start then says it is in use); the app's port moves the same way", async () => {
    const [rpc, app] = [await freePort(), await freePort()];
    const release = [await hold(rpc), await hold(app)];
    try {
      const notes: string[] = [];
      const kept = await moveTakenPorts({ rpc, solana: 1, facilitator: 2, registry: 3, services: 4 }, { serviceCount: 1, movable: () => false, onMoved: (note) => notes.push(note) });
      expect(kept.rpc).toBe(rpc);
      expect(await moveTakenAppPort(app, { movable: false, onMoved: (note) => notes.push(note) })).toBe(app);
      expect(notes).toEqual([]);
      const moved = await moveTakenAppPort(app, { movable: true, onMoved: (note) => notes.push(note) });
      expect(moved).not.toBe(app);
      expect(notes).toEqual([`Port ${app} (PORT) is taken: the app listens on ${moved} instead.`]);
    } finally {
      for (const close of release) await close();
    }
  });
});
