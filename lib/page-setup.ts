// What a page with a wallet is told of the server's configuration, read at request time: which
// model answers, the enabled networks without their configured RPC URLs, and on the local
// sandbox the demo wallet's and the smart account's addresses and the sandbox RPC, so the page
// can offer them as wallets. Never a key. The chat page and the approval page read it alike.
import { readDemoWallet } from "@/lib/chain/demo-wallet";
import { pageNetworks } from "@/lib/chain/page-networks";
import { serverEnv } from "@/lib/env";

export async function readPageSetup() {
  const env = serverEnv();
  const demoWallet = await readDemoWallet(env);
  // The EVM wallet's networks, and the other families' (ids and names), each for its own wallet.
  const offered = pageNetworks(env);
  const { networks } = offered;
  const walletConnectProjectId = process.env.NEXT_PUBLIC_WALLETCONNECT_PROJECT_ID || undefined;
  const walletSetup = {
    networks,
    ...(demoWallet ? { sandbox: { address: demoWallet.address, chainId: demoWallet.chainId, rpcUrl: demoWallet.rpcUrl } } : {}),
    ...(demoWallet?.smartAccount
      ? {
          sandboxSmartAccount: {
            address: demoWallet.smartAccount.address,
            signer: demoWallet.smartAccount.owner,
            chainId: demoWallet.chainId,
            rpcUrl: demoWallet.rpcUrl,
          },
        }
      : {}),
    ...(walletConnectProjectId ? { walletConnectProjectId } : {}),
  };
  return { env, offline: env.modelProvider === "offline", demoWallet, ...offered, walletSetup };
}
