/**
 * What `npm run demo` (demo.ts) hands the app (the sandbox, and a ledger of its own, begun empty
 * with each new sandbox), and what it tells the person once the app is up: the address to open,
 * the demo wallet to connect, where the sandbox's description and the ledger are. The description
 * file holds the sandbox's keys (play money, but keys all the same): the console names it and
 * never prints it.
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { formatUsd } from "@/lib/money";
import { DEMO_WALLET_USDC } from "./funder";
import { chainEnvOf, DEFAULT_DATA_DIR, mppServicesOf, type SandboxInfo } from "./info";
import { SANDBOX_HOST } from "./ports";

/**
 * The demo's ledger. Each `npm run demo` starts a new sandbox, whose chains begin again, so the
 * app's ledger is the demo's own folder, begun empty each time: payments kept from an earlier
 * sandbox's chain, which is gone, would count against the person's limits and show deposits as
 * held that can no longer be closed. A ledger the person names (DATA_DIR, DATABASE_URL) is theirs
 * and kept as it is.
 */
export const DEMO_DATA_DIR = join(DEFAULT_DATA_DIR, "demo");

export type DemoLedger = {
  /** The folder, or the database the person named. */
  where: string;
  /** Begun empty with this sandbox. */
  fresh: boolean;
};

export function demoLedger(env: Readonly<Record<string, string | undefined>>): DemoLedger {
  if (env.DATABASE_URL?.trim()) return { where: "the database at DATABASE_URL", fresh: false };
  const named = env.DATA_DIR?.trim();
  return named ? { where: named, fresh: false } : { where: DEMO_DATA_DIR, fresh: true };
}

/** Empties the demo's own ledger before its app starts; a ledger the person named is left alone. */
export async function beginDemoLedger(ledger: DemoLedger): Promise<void> {
  if (ledger.fresh) await rm(ledger.where, { recursive: true, force: true });
}

/** The app's environment for the demo: the sandbox's chains, registry and services, on top of the person's own settings. */
export function demoAppEnv({ info, appPort, infoFile, env }: { info: SandboxInfo; appPort: number; infoFile: string; env: Readonly<Record<string, string | undefined>> }): NodeJS.ProcessEnv {
  const extraRegistries = (env.X402_DISCOVERY_URLS ?? "")
    .split(",")
    .map((url) => url.trim())
    .filter((url) => url && url !== info.registryUrl);
  return {
    ...env,
    NODE_ENV: "production",
    PORT: String(appPort),
    // A demo on someone's machine reports nothing to Next.js (its build would say it does).
    NEXT_TELEMETRY_DISABLED: "1",
    X402_DISCOVERY_URLS: [info.registryUrl, ...extraRegistries].join(","),
    // The sandbox's MPP services, by their OpenAPI documents, beside any named already.
    MPP_SERVICES: [...new Set([...mppServicesOf(info), ...(env.MPP_SERVICES ?? "").split(",").map((url) => url.trim()).filter(Boolean)])].join(","),
    ...chainEnvOf(info),
    // The sandbox's services and registry listen on 127.0.0.1, which the app calls only when
    // allowed (docs/contract.md, section 6): on their own ports, and no other (anvil's unlocked accounts
    // answer on that address too). An allow-list already set is kept as it is.
    X402_ALLOW_PRIVATE_ADDRESSES: env.X402_ALLOW_PRIVATE_ADDRESSES?.trim() || sandboxAllowance(info),
    SANDBOX_INFO_FILE: infoFile,
    // The demo's own ledger, unless the person named one (demoLedger).
    ...(demoLedger(env).fresh ? { DATA_DIR: DEMO_DATA_DIR } : {}),
    // The one origin sign-ins and access grants are for, and every link the server hands out
    // names (docs/contract.md, section 6): the address printed once the app is up.
    APP_URL: info.appUrl,
  };
}

/** The sandbox's own loopback services and registry, each on its own port: `127.0.0.1:4101,...`. */
function sandboxAllowance(info: Pick<SandboxInfo, "registryUrl" | "services">): string {
  const ports = new Set([info.registryUrl, ...info.services.map((service) => service.url)].map((url) => new URL(url).port));
  return [...ports].map((port) => `${SANDBOX_HOST}:${port}`).join(",");
}

/** What the console says once the app is up: where to go, which wallet to pick, where the rest is. */
export function demoReadyLines(info: SandboxInfo, infoFile: string, ledger: DemoLedger): string[] {
  const usdc = formatUsd(DEMO_WALLET_USDC);
  return [
    "",
    `Ready: open ${info.appUrl}`,
    "",
    `  Demo wallet         ${info.demoWallet.address}  (${usdc} play USDC: Connect Wallet → Sandbox demo wallet)`,
    `  Solana demo wallet  ${info.solana.demoWallet.address}  (${usdc} play USDC: Solana → Sandbox Solana wallet)`,
    `  Sandbox details     ${infoFile}`,
    "                      (its chain, USDC, services and test keys, for tools and tests)",
    `  Ledger              ${ledger.where} (${ledger.fresh ? "begun empty, as this sandbox's chains are new" : "kept from earlier runs"})`,
    "",
    "Ctrl-C stops the app and the sandbox.",
  ];
}
