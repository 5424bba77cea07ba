/**
 * SandboxInfo: what a running sandbox tells the app, the tests and the person (docs/contract.md, section 7),
 * written to `<dataDir>/sandbox.json` and printed once everything is up.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Hex } from "viem";

export type SandboxServiceInfo = {
  name: string;
  /**
   * The paid-HTTP protocol it speaks: `x402` (listed in the registry) or `mpp` (the Machine
   * Payments Protocol, served by mppx's server and listed by its OpenAPI document, `openapiUrl`).
   */
  protocol: "x402" | "mpp";
  /** An MPP service's discovery document (OpenAPI with `x-service-info` / `x-payment-info`). */
  openapiUrl?: string;
  /** The networks it takes payment on (CAIP-2). */
  networks: string[];
  /** Its payee on the local Solana, if it takes payment there. */
  solanaPayTo?: string;
  /** The paid resource's URL. */
  url: string;
  /**
   * The x402 schemes it takes payment in, in the order its 402 offers them: ["exact"], ["upto"],
   * or, for a channel service, ["batch-settlement"] or ["batch-settlement", "exact"].
   */
  schemes: string[];
  /** Decimal USDC, e.g. "0.01"; for an `upto` service, the most one request can cost; for a channel service, a call's price. */
  price: string;
  /**
   * A channel service's terms (x402 `batch-settlement`): the deposit its 402 suggests (decimal
   * USDC), the seconds a payer waits between asking for its unclaimed deposit back and taking it,
   * after how many paid calls it claims (null: never), whether it answers a cooperative refund,
   * and the channel contract and deposit collectors (their canonical addresses) it is paid through.
   */
  channel?: {
    deposit: string;
    withdrawDelaySeconds: number;
    claimEvery: number | null;
    refunds: boolean;
    contract: Hex;
    depositCollectors: { eip3009: Hex; permit2: Hex };
  };
  /** An `upto` service's usual charge, decimal USDC (what its listing says is typical). */
  typicalPrice?: string;
  /** Atomic USDC units (6 decimals) as a decimal string, e.g. "10000". */
  priceAtomic: string;
  serviceName: string;
  description: string;
  method: "GET" | "POST";
  latencyMs: number;
  tags: string[];
  payTo: Hex;
  /** Whether the registry lists it (test-only services are unlisted by default). */
  listed: boolean;
  /** The x402 middleware its server is made with, where it is one (sandbox/services/deployed.ts). */
  madeWith?: "@x402/express" | "@x402/hono" | "@x402/next";
};

export type SandboxInfo = {
  rpcUrl: string;
  chainId: number;
  /** CAIP-2 id, e.g. "eip155:31337". */
  network: `${string}:${string}`;
  usdc: { address: Hex; name: string; version: string; decimals: number };
  facilitatorUrl: string;
  registryUrl: string;
  appUrl: string;
  services: SandboxServiceInfo[];
  demoWallet: { address: Hex; privateKey: Hex };
  /** A deployed contract account (ERC-1271) owned by the demo wallet's key, holding USDC like it. */
  smartAccount: { address: Hex; owner: Hex; contract: string; factory: Hex };
  /** Factories the facilitator deploys counterfactual (ERC-6492) accounts with. */
  eip6492Factories: Hex[];
  funder: { address: Hex; privateKey: Hex };
  /**
   * The local Solana (answering as devnet): its RPC, USDC's mint, the facilitator's fee payer,
   * the demo Solana wallet (the page's sandbox wallet has the local Solana sign for it through
   * `sandbox_signTransaction`; its key never reaches the page) and the funder, the USDC mint's
   * authority. Keys are base58 of the 64-byte keypair, sandbox-only, for tests.
   */
  solana: {
    rpcUrl: string;
    network: string;
    usdc: { mint: string; decimals: number };
    feePayer: string;
    demoWallet: { address: string; secretKey: string };
    funder: { address: string; secretKey: string };
  };
};

/**
 * The app's settings for this sandbox's chains (docs/contract.md, section 7): the networks it pays on, and
 * each one's RPC and USDC. The demo and the tests both start the app with these.
 */
export function chainEnvOf(info: SandboxInfo): Record<string, string> {
  return {
    X402_NETWORKS: [info.network, info.solana.network].join(","),
    [`RPC_URL_${info.chainId}`]: info.rpcUrl,
    [`USDC_ADDRESS_${info.chainId}`]: info.usdc.address,
    [`RPC_URL_${info.solana.network.slice("solana:".length)}`]: info.solana.rpcUrl,
  };
}

export const DEFAULT_DATA_DIR = ".data";
export const INFO_FILE_NAME = "sandbox.json";

export function infoFilePath(dataDir: string = DEFAULT_DATA_DIR): string {
  return resolve(join(dataDir, INFO_FILE_NAME));
}

export async function writeInfoFile(info: SandboxInfo, dataDir: string = DEFAULT_DATA_DIR): Promise<string> {
  const path = infoFilePath(dataDir);
  await mkdir(resolve(dataDir), { recursive: true });
  await writeFile(path, `${JSON.stringify(info, null, 2)}\n`, "utf8");
  return path;
}

/**
 * The OpenAPI documents of the sandbox's listed MPP services: what the app is given as
 * `MPP_SERVICES` beside the registry (docs/contract.md, section 6).
 */
export function mppServicesOf(info: SandboxInfo): string[] {
  return info.services.filter((service) => service.listed && service.openapiUrl).map((service) => service.openapiUrl as string);
}

/** How a channel service is paid and how it behaves, for the printed list. */
function channelOf(service: SandboxServiceInfo): string {
  const channel = service.channel;
  if (!channel) return "";
  const claims = channel.claimEvery === null ? "never claims" : `claims every ${channel.claimEvery} calls`;
  return `  (a call, from a channel: deposit ${channel.deposit}; ${claims}${channel.refunds ? "" : ", no refunds"})`;
}

/** Where a service takes payment, when not EVM only. */
function railsOf(service: SandboxServiceInfo): string {
  if (service.protocol === "mpp") return "  (MPP)";
  if (!service.solanaPayTo) return "";
  return service.networks.length > 1 ? "  (EVM or Solana)" : "  (Solana only)";
}

/** The channel contracts the channel services are paid through, named once. */
function channelContractsOf(info: SandboxInfo): string[] {
  const channel = info.services.find((service) => service.channel)?.channel;
  if (!channel) return [];
  return [
    `Channels     x402BatchSettlement ${channel.contract} (withdrawal delay ${channel.withdrawDelaySeconds} s)`,
    `             deposit collectors: EIP-3009 ${channel.depositCollectors.eip3009}, Permit2 ${channel.depositCollectors.permit2}`,
  ];
}

export function describeInfo(info: SandboxInfo): string {
  const lines = [
    `Chain        ${info.rpcUrl} (chain id ${info.chainId}, ${info.network})`,
    `USDC         ${info.usdc.address} ("${info.usdc.name}" v${info.usdc.version}, ${info.usdc.decimals} decimals)`,
    `Solana       ${info.solana.rpcUrl} (${info.solana.network}, USDC mint ${info.solana.usdc.mint})`,
    `Facilitator  ${info.facilitatorUrl}`,
    `Registry     ${info.registryUrl}/discovery/resources`,
    `Demo wallet  ${info.demoWallet.address}  (Solana: ${info.solana.demoWallet.address})`,
    `Smart acct.  ${info.smartAccount.address} (ERC-1271 ${info.smartAccount.contract}, owner: the demo wallet's key)`,
    `ERC-6492     factories ${info.eip6492Factories.join(", ")}`,
    `Funder       ${info.funder.address}`,
    ...channelContractsOf(info),
    "Services:",
    ...info.services.map(
      (service) =>
        `  ${service.name.padEnd(18)} ${service.method.padEnd(4)} ${service.url.padEnd(36)} ${service.price.padStart(6)} USDC` +
        `  ~${service.latencyMs} ms${service.schemes.includes("upto") ? "  (upto: at most this)" : ""}${channelOf(service)}${railsOf(service)}${service.listed ? "" : "  (unlisted, test-only)"}`,
    ),
  ];
  return lines.join("\n");
}
