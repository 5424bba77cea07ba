// The sandbox's demo wallet, for the page to offer as a wallet when the app runs on the local
// sandbox (`npm run demo`): an anvil development account from the sandbox's own description file.
// anvil holds that account unlocked, so the chain itself signs for it and no key reaches the
// page. The sandbox's smart account, owned by that account's key, is offered the same way: the
// owner signs, the contract account pays. So is its Solana demo wallet, which the local Solana
// signs for. Outside the sandbox there is none, and the person's own wallet signs.
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { EVM_ADDRESS_PATTERN, isSolanaAddress } from "./addresses";

const address = z.string().regex(EVM_ADDRESS_PATTERN).transform((value) => value as `0x${string}`);

const sandboxInfoSchema = z.object({
  chainId: z.literal(31337),
  network: z.literal("eip155:31337"),
  rpcUrl: z.url(),
  demoWallet: z.object({ address: address }),
  smartAccount: z.object({ address: address, owner: address }).optional(),
  solana: z
    .object({ rpcUrl: z.url(), network: z.string().startsWith("solana:"), demoWallet: z.object({ address: z.string().refine(isSolanaAddress) }) })
    .optional(),
});

export type DemoWallet = {
  address: `0x${string}`;
  network: string;
  chainId: number;
  rpcUrl: string;
  /** The sandbox's contract account (ERC-1271) and the unlocked account that signs for it. */
  smartAccount?: { address: `0x${string}`; owner: `0x${string}` };
  /** The sandbox's Solana demo wallet, which its local Solana signs for (`sandbox_signTransaction`). */
  solana?: { address: string; network: string; rpcUrl: string };
};

export async function readDemoWallet(env: { SANDBOX_INFO_FILE?: string | undefined }): Promise<DemoWallet | undefined> {
  if (!env.SANDBOX_INFO_FILE) return undefined;
  try {
    const info = sandboxInfoSchema.parse(JSON.parse(await readFile(env.SANDBOX_INFO_FILE, "utf8")));
    return {
      address: info.demoWallet.address,
      network: info.network,
      chainId: info.chainId,
      rpcUrl: info.rpcUrl,
      ...(info.smartAccount ? { smartAccount: info.smartAccount } : {}),
      ...(info.solana ? { solana: { address: info.solana.demoWallet.address, network: info.solana.network, rpcUrl: info.solana.rpcUrl } } : {}),
    };
  } catch {
    return undefined;
  }
}
