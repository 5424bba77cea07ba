// CPU time of a server's whole process tree (`next start` forks the server that does the work),
// read from /proc/<pid>/stat: user + system time of the process and every descendant; and the
// processes a browser measured on this machine shares the CPU with, made to yield it; and the CPU
// slowdown that makes this machine the phone Lighthouse's mobile preset means.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { setPriority } from "node:os";
import { throttling } from "lighthouse/core/config/constants.js";

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

type Stat = { pid: number; parent: number; ticks: number };

function readStat(pid: number): Stat | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces): state, ppid, ..., utime (14), stime (15).
    const fields = raw.slice(raw.lastIndexOf(")") + 2).split(" ");
    return { pid, parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}

function allStats(): Stat[] {
  const stats: Stat[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat) stats.push(stat);
  }
  return stats;
}

/** `root` and all its descendants, as /proc has them now. */
function tree(root: number): Stat[] {
  const stats = allStats();
  const children = new Map<number, Stat[]>();
  for (const stat of stats) children.set(stat.parent, [...(children.get(stat.parent) ?? []), stat]);
  const found: Stat[] = [];
  const queue = stats.filter((stat) => stat.pid === root);
  for (let next = queue.pop(); next; next = queue.pop()) {
    found.push(next);
    queue.push(...(children.get(next.pid) ?? []));
  }
  return found;
}

/** Seconds of CPU used so far by `root` and all its descendants. */
export function treeCpuSeconds(root: number): number {
  return tree(root).reduce((ticks, stat) => ticks + stat.ticks, 0) / clockTicks();
}

/**
 * Lowers to `niceness` the priority of every thread of `root`'s tree (this process's descendants
 * by default; never this process) outside the `keep` trees: Linux's priority is a thread's, and
 * threads made later inherit their maker's. For a browser measured beside the servers it loads
 * from: on a phone the page has the CPU to itself, and the servers are elsewhere. Returns how many
 * processes it lowered (none where there is no /proc).
 */
export function yieldCpu(keep: number[], { root = process.pid, niceness = 10 } = {}): number {
  const kept = new Set(keep.flatMap((pid) => tree(pid).map((stat) => stat.pid)));
  let lowered = 0;
  for (const { pid } of tree(root)) {
    if (pid === process.pid || kept.has(pid)) continue;
    let threads: string[];
    try {
      threads = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const thread of threads) {
      try {
        setPriority(Number(thread), niceness);
      } catch {
        // the thread has ended
      }
    }
    lowered++;
  }
  return lowered;
}

/** Whether CPU can be read this way here (Linux). */
export const canReadProcessCpu = (): boolean => readStat(process.pid) !== undefined;

/** The benchmark index of the fastest host Lighthouse calibrates its mobile preset's 4× CPU slowdown
 * for: the top of its "high-end desktop" bracket (1,500-2,000, its docs/throttling.md). */
export const LIGHTHOUSE_HOST_INDEX = 2000;
/** The mobile preset's own slowdown (4×). */
const LIGHTHOUSE_SLOWDOWN = throttling.mobileSlow4G.cpuSlowdownMultiplier;

/**
 * The CPU slowdown that makes this host the phone Lighthouse's mobile preset means, from the
 * benchmark index Lighthouse measured here: 4× on a host up to the top of the desktop bracket its
 * 4× is meant for, and proportionally more on a faster one (a host twice as fast is slowed twice as
 * much), as Lighthouse's docs ask of a host outside that bracket. Never less than Lighthouse's own
 * 4×: on a slower host the phone is slower too, and the mark harder, never easier. To 0.1.
 */
export function phoneCpuSlowdown(benchmarkIndex: number): number {
  if (!Number.isFinite(benchmarkIndex) || benchmarkIndex <= LIGHTHOUSE_HOST_INDEX) return LIGHTHOUSE_SLOWDOWN;
  return Math.round((LIGHTHOUSE_SLOWDOWN * benchmarkIndex) / LIGHTHOUSE_HOST_INDEX * 10) / 10;
}
