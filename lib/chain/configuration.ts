// What the configuration says about chains (docs/contract.md, section 6), for lib/env.ts to
// read without naming a chain family: the network ids X402_NETWORKS may name, the networks
// enabled when it is unset, and the per-chain variables: `RPC_URL_<reference>` (an EVM chain
// id, or a Solana network's genesis hash prefix) and `USDC_ADDRESS_<chainId>` (the USDC
// contract of an EVM chain this product does not know by heart). Depends on nothing but zod and
// the address pattern, so the configuration's check at start-up loads no chain code.
import type { Address } from "viem";
import { z } from "zod";
import { EVM_ADDRESS_PATTERN } from "./address-patterns";

/** The CAIP-2 ids of networks X402_NETWORKS may enable: `eip155:<chainId>` or `solana:<genesis hash prefix>`. */
export const CONFIGURED_NETWORK_ID_PATTERN = /^(eip155:\d+|solana:[1-9A-HJ-NP-Za-km-z]{32})$/;
/** The same as a request names one (a preference, a filter): a chain id of at most 12 digits, as lib/chain/networks.ts reads them. */
export const NETWORK_ID_PATTERN = /^(eip155:\d{1,12}|solana:[1-9A-HJ-NP-Za-km-z]{32})$/;
export const NETWORK_ID_EXAMPLE = "eip155:8453 or solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";

/** Base and Base Sepolia. */
export const DEFAULT_NETWORKS: readonly string[] = ["eip155:8453", "eip155:84532"];

/** What the per-chain variables configure, by CAIP-2 reference. */
export type ChainSettings = {
  /** `RPC_URL_<reference>`: by EVM chain id, or by a Solana network's genesis hash prefix. */
  rpcUrls: Record<string, string>;
  /** `USDC_ADDRESS_<chainId>`: the USDC contract of an EVM chain this product does not know by heart. */
  usdcAddresses: Record<string, Address>;
};

/** What lib/chain reads of the configuration (lib/env.ts's ServerEnv has it): the enabled networks and the per-chain variables. */
export type ChainEnv = ChainSettings & { X402_NETWORKS: readonly string[] };

/** A Solana network's CAIP-2 reference: its genesis hash's first 32 base58 characters. */
const SOLANA_REFERENCE = /^[1-9A-HJ-NP-Za-km-z]{32}$/;

const rpcUrl = z.url();
const usdcAddress = z.string().regex(EVM_ADDRESS_PATTERN, "an address, 0x and 40 hex digits");

/** Reads the per-chain variables; `fail` is told the first bad one, its message naming the variable. */
export function readChainSettings(source: Record<string, string | undefined>, fail: (message: string) => never): ChainSettings {
  const perChain = (prefix: string, check: z.ZodType<string>, solanaToo: boolean) => {
    const found: Record<string, string> = {};
    for (const [key, value] of Object.entries(source)) {
      if (!key.startsWith(prefix) || value === undefined || value === "") continue;
      const suffix = key.slice(prefix.length);
      const chainId = Number(suffix);
      if (!(solanaToo && SOLANA_REFERENCE.test(suffix)) && (!Number.isSafeInteger(chainId) || chainId <= 0)) {
        fail(`${key}: the suffix must be a chain id, e.g. ${prefix}8453${solanaToo ? `, or a Solana genesis hash prefix, e.g. ${prefix}5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp` : ""}`);
      }
      const parsed = check.safeParse(value);
      if (!parsed.success) fail(`${key}: ${parsed.error.issues[0]?.message ?? "invalid"}`);
      found[solanaToo && SOLANA_REFERENCE.test(suffix) ? suffix : String(chainId)] = parsed.data;
    }
    return found;
  };
  return { rpcUrls: perChain("RPC_URL_", rpcUrl, true), usdcAddresses: perChain("USDC_ADDRESS_", usdcAddress, false) as Record<string, Address> };
}
