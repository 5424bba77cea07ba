// CPU time of a server's whole process tree (`next start` forks the server that does the work),
// read from /proc/<pid>/stat: user + system time of the process and every descendant.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

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

/** Seconds of CPU used so far by `root` and all its descendants. */
export function treeCpuSeconds(root: number): number {
  const stats = allStats();
  const children = new Map<number, Stat[]>();
  for (const stat of stats) children.set(stat.parent, [...(children.get(stat.parent) ?? []), stat]);
  let ticks = 0;
  const queue = stats.filter((stat) => stat.pid === root);
  for (let next = queue.pop(); next; next = queue.pop()) {
    ticks += next.ticks;
    queue.push(...(children.get(next.pid) ?? []));
  }
  return ticks / clockTicks();
}

/** Whether CPU can be read this way here (Linux). */
export const canReadProcessCpu = (): boolean => readStat(process.pid) !== undefined;
