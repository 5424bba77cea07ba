// The sandbox's demo wallet, for the page to offer as a wallet when the app runs on the local
// sandbox (`npm run demo`): an anvil development account from the sandbox's own description file.
// anvil holds that account unlocked, so the chain itself signs for it and no key reaches the
// page. Outside the sandbox there is none, and the person's own wallet signs.
import { readFile } from "node:fs/promises";
import { z } from "zod";
import type { ServerEnv } from "@/lib/env";

const sandboxInfoSchema = z.object({
  chainId: z.literal(31337),
  network: z.literal("eip155:31337"),
  rpcUrl: z.url(),
  demoWallet: z.object({ address: z.string().regex(/^0x[0-9a-fA-F]{40}$/) }),
});

export type DemoWallet = { address: `0x${string}`; network: string; chainId: number; rpcUrl: string };

export async function readDemoWallet(env: Pick<ServerEnv, "SANDBOX_INFO_FILE">): Promise<DemoWallet | undefined> {
  if (!env.SANDBOX_INFO_FILE) return undefined;
  try {
    const info = sandboxInfoSchema.parse(JSON.parse(await readFile(env.SANDBOX_INFO_FILE, "utf8")));
    return {
      address: info.demoWallet.address as `0x${string}`,
      network: info.network,
      chainId: info.chainId,
      rpcUrl: info.rpcUrl,
    };
  } catch {
    return undefined;
  }
}
