// The sandbox behind the end-to-end server: the ports it listens on (passed to it by
// playwright.config.ts) and the description it writes once it is up, read by the tests that need
// its chain, its USDC or its funder.
import { readFileSync } from "node:fs";
import { infoFilePath, type SandboxInfo } from "@/sandbox/info";

/** Away from the defaults (8545, 4020, 4030, 4100), so a `npm run demo` on the same machine does
 * not collide with the test run. */
export const sandboxPorts = {
  SANDBOX_RPC_PORT: "18545",
  SANDBOX_FACILITATOR_PORT: "14020",
  SANDBOX_REGISTRY_PORT: "14030",
  SANDBOX_SERVICES_PORT: "14100",
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
