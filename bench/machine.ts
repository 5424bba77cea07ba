// What the figures were measured on: the machine, its load, and the versions that matter.
import { existsSync, readFileSync } from "node:fs";
import { cpus, loadavg, totalmem, type as osType, release } from "node:os";
import { join } from "node:path";

export type MachineInfo = {
  cpuModel: string;
  cores: number;
  memoryGb: number;
  os: string;
  loadAverageAtStart: number[];
};

export type Versions = Record<"node" | "next" | "ai" | "@ai-sdk/google" | "react" | "@electric-sql/pglite", string>;

export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    cpuModel: list[0]?.model ?? "unknown",
    cores: list.length,
    memoryGb: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    os: `${osType()} ${release()}`,
    loadAverageAtStart: loadavg().map((value) => Math.round(value * 100) / 100),
  };
}

function installedVersion(root: string, name: string): string {
  const path = join(root, "node_modules", name, "package.json");
  if (!existsSync(path)) return "not installed";
  return (JSON.parse(readFileSync(path, "utf8")) as { version?: string }).version ?? "unknown";
}

export function versions(root: string): Versions {
  return {
    node: process.versions.node,
    next: installedVersion(root, "next"),
    ai: installedVersion(root, "ai"),
    "@ai-sdk/google": installedVersion(root, "@ai-sdk/google"),
    react: installedVersion(root, "react"),
    "@electric-sql/pglite": installedVersion(root, "@electric-sql/pglite"),
  };
}
