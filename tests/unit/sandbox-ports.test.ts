// The ports a sandbox picks for its chain, Solana, facilitator, registry, services and app are
// probed free and listened on a moment later. One from the system's ephemeral range can be taken in
// that moment by any outgoing connection (a parallel test file's request): the sandbox then fails
// to start with EADDRINUSE. Picked ports stay outside that range and are never handed out twice.
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { describe, expect, test } from "vitest";
import { freePort, freePortBlock, PICK_RANGE, SANDBOX_HOST } from "@/sandbox/ports";

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
