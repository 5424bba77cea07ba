// The sandbox in a process of its own, for a bench phase that weighs each part's CPU apart (the
// apps, the sandbox's servers, anvil, the database, the load generator). Started with `fork` by
// bench/payments-per-second.ts: it sends its SandboxInfo and anvil's pid once everything is up,
// times the facilitator's `/verify` and `/settle` and the services' paid requests as they start
// and end (node:diagnostics_channel, as bench/paid-round-trip.ts does in the bench's process),
// hands the calls over when asked, and stops the sandbox when its parent goes or tells it to.
import { subscribe } from "node:diagnostics_channel";
import { readdirSync, readFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { performance } from "node:perf_hooks";
import { startSandbox, type SandboxInfo } from "@/sandbox";

/** One request a sandbox server answered; times are epoch ms (performance.timeOrigin based), comparable across processes. */
export type TimedSandboxCall = { role: "facilitator" | "service"; path: string; paid: boolean; start: number; end: number };

export type SandboxProcessMessage =
  | { type: "ready"; info: SandboxInfo; anvilPid: number | undefined }
  | { type: "calls"; calls: TimedSandboxCall[] }
  | { type: "failed"; message: string };

export type SandboxProcessCommand = { type: "take-calls" } | { type: "stop" };

const now = () => performance.timeOrigin + performance.now();

/** This process's child named `anvil` (the sandbox spawns the binary itself). */
function anvilPid(): number | undefined {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (name === "anvil" && parent === process.pid) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

const send = (message: SandboxProcessMessage) => process.send?.(message);

async function main(): Promise<void> {
  const sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await sandbox.stop();
    process.exit(0);
  };
  process.on("disconnect", () => void stop());
  process.on("SIGTERM", () => void stop());

  const portOf = (url: string) => Number(new URL(url).port);
  const roles = new Map<number, TimedSandboxCall["role"]>([
    [portOf(sandbox.info.facilitatorUrl), "facilitator"],
    ...sandbox.info.services.map((service): [number, TimedSandboxCall["role"]] => [portOf(service.url), "service"]),
  ]);
  let calls: TimedSandboxCall[] = [];
  const open = new WeakMap<IncomingMessage, TimedSandboxCall>();
  subscribe("http.server.request.start", (message) => {
    const { request } = message as { request: IncomingMessage };
    const role = roles.get(request.socket.localPort ?? 0);
    if (!role) return;
    const paid = "payment-signature" in request.headers || "x-payment" in request.headers;
    const call: TimedSandboxCall = { role, path: new URL(request.url ?? "/", "http://sandbox").pathname, paid, start: now(), end: Number.NaN };
    open.set(request, call);
    calls.push(call);
  });
  subscribe("http.server.response.finish", (message) => {
    const call = open.get((message as { request: IncomingMessage }).request);
    if (call) call.end = now();
  });

  process.on("message", (command: SandboxProcessCommand) => {
    if (command.type === "stop") return void stop();
    const taken = calls;
    calls = [];
    send({ type: "calls", calls: taken });
  });
  send({ type: "ready", info: sandbox.info, anvilPid: anvilPid() });
}

main().catch((error: unknown) => {
  send({ type: "failed", message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
});
