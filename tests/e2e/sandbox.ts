// The sandbox behind the end-to-end server: the ports it listens on (passed to it by
// playwright.config.ts) and the description it writes once it is up, read by the tests that need
// its chain, its USDC or its funder.
import { readFileSync } from "node:fs";
import { infoFilePath, type SandboxInfo } from "@/sandbox/info";

/** Away from the defaults (8545, 4020, 4030, 4100), so a `npm run demo` on the same machine does
 * not collide with the test run. `E2E_PORT_OFFSET` moves them all, so that two checkouts can run
 * their end-to-end tests side by side. */
const offset = Number(process.env.E2E_PORT_OFFSET ?? 0);
export const sandboxPorts = {
  SANDBOX_RPC_PORT: String(18545 + offset),
  SANDBOX_SOLANA_PORT: String(18899 + offset),
  SANDBOX_FACILITATOR_PORT: String(14020 + offset),
  SANDBOX_REGISTRY_PORT: String(14030 + offset),
  SANDBOX_SERVICES_PORT: String(14100 + offset),
};

/**
 * The running test sandbox's description. `sandbox/demo.ts` writes it to the default place
 * (`.data/sandbox.json`), where a `npm run demo` started meanwhile would write its own: the RPC
 * port tells the two apart.
 */
export function sandboxInfo(): SandboxInfo {
  const path = infoFilePath();
  const info = JSON.parse(readFileSync(path, "utf8")) as SandboxInfo;
  const port = new URL(info.rpcUrl).port;
  if (port !== sandboxPorts.SANDBOX_RPC_PORT) {
    throw new Error(
      `${path} describes a sandbox on port ${port}, not the test sandbox on ${sandboxPorts.SANDBOX_RPC_PORT}: ` +
        "was another sandbox started during the test run?",
    );
  }
  return info;
}
