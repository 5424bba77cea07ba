// The bench's phone phase makes the servers yield the CPU to the browser it measures
// (bench/process-cpu.ts): every thread of every process in the tree is lowered, the kept
// process's tree is not, nor is the caller.
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { yieldCpu } from "@/bench/process-cpu";

/** Each thread's niceness (field 19 of its stat line). */
function niceness(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((thread) => {
    const raw = readFileSync(`/proc/${pid}/task/${thread}/stat`, "utf8");
    return Number(raw.slice(raw.lastIndexOf(")") + 2).split(" ")[16]);
  });
}

// A parent that starts two sleeping children and, once both run (with the threads Node starts
// before any script), prints their process ids.
const PARENT = `
const { spawn } = require("node:child_process");
const sleep = () => spawn(process.execPath, ["-e", "process.stdout.write('up'); setTimeout(() => {}, 60000)"], { stdio: ["ignore", "pipe", "ignore"] });
const [kept, other] = [sleep(), sleep()];
const up = (child) => new Promise((resolve) => child.stdout.once("data", resolve));
Promise.all([up(kept), up(other)]).then(() => process.stdout.write(JSON.stringify({ kept: kept.pid, other: other.pid }) + "\\n"));
setTimeout(() => {}, 60000);
process.on("SIGTERM", () => { kept.kill(); other.kill(); process.exit(0); });
`;

let parent: ChildProcess | undefined;
afterEach(() => {
  parent?.kill("SIGTERM");
});

describe.runIf(process.platform === "linux")("yieldCpu", () => {
  it("lowers every thread of the tree but the kept process's, and never the caller", async () => {
    parent = spawn(process.execPath, ["-e", PARENT], { stdio: ["ignore", "pipe", "inherit"] });
    const started = parent;
    const children = await new Promise<{ kept: number; other: number }>((resolve) => {
      started.stdout?.once("data", (chunk: Buffer) => resolve(JSON.parse(chunk.toString("utf8"))));
    });
    const parentPid = started.pid as number;
    const before = niceness(process.pid);
    const kept = new Set(niceness(children.kept));

    const lowered = yieldCpu([children.kept], { root: parentPid });

    expect(lowered).toBe(2);
    for (const pid of [parentPid, children.other]) {
      const threads = niceness(pid);
      expect(threads.length).toBeGreaterThan(1);
      expect(new Set(threads)).toEqual(new Set([10]));
    }
    expect(new Set(niceness(children.kept))).toEqual(kept);
    expect(niceness(process.pid)).toEqual(before);
  });
});
