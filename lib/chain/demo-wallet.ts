// The sandbox's demo wallet, for the page to sign with when the app runs on the local sandbox
// (`npm run demo`): an anvil development key from the sandbox's own description file, never a
// real one. Outside the sandbox there is none, and the person's own wallet signs.
import { readFile } from "node:fs/promises";
import { z } from "zod";
import type { ServerEnv } from "@/lib/env";

const sandboxInfoSchema = z.object({
  chainId: z.literal(31337),
  network: z.literal("eip155:31337"),
  demoWallet: z.object({
    address: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
    privateKey: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
  }),
});

export type DemoWallet = { address: `0x${string}`; privateKey: `0x${string}`; network: string };

export async function readDemoWallet(env: Pick<ServerEnv, "SANDBOX_INFO_FILE">): Promise<DemoWallet | undefined> {
  if (!env.SANDBOX_INFO_FILE) return undefined;
  try {
    const info = sandboxInfoSchema.parse(JSON.parse(await readFile(env.SANDBOX_INFO_FILE, "utf8")));
    return {
      address: info.demoWallet.address as `0x${string}`,
      privateKey: info.demoWallet.privateKey as `0x${string}`,
      network: info.network,
    };
  } catch {
    return undefined;
  }
}
