// The chat page. A server component: it reads the server's configuration at request time and
// hands the page only what is safe to show (which model answers, the cooldown length, the
// enabled networks without their configured RPC URLs), never a key. On the local sandbox it also
// names the demo wallet's and the smart account's addresses and the sandbox RPC, so the page can
// offer them as wallets.
import { connection } from "next/server";
import { Chat } from "@/components/chat/chat";
import { WalletProviders } from "@/components/wallet/providers";
import { readDemoWallet } from "@/lib/chain/demo-wallet";
import { findSolanaNetwork } from "@/lib/chain/solana";
import { walletNetworks } from "@/lib/chain/wallet-networks";
import { serverEnv } from "@/lib/env";

export default async function ChatPage() {
  // Configuration is the running server's, not the build machine's: render per request.
  await connection();
  const env = serverEnv();
  const offline = env.modelProvider === "offline";
  const demoWallet = await readDemoWallet(env);
  const networks = walletNetworks(env);
  const solanaNetworks = env.X402_NETWORKS.flatMap((id) => {
    const found = findSolanaNetwork(id, env);
    return found ? [{ id: found.id, name: found.name }] : [];
  });
  const walletConnectProjectId = process.env.NEXT_PUBLIC_WALLETCONNECT_PROJECT_ID || undefined;
  return (
    <WalletProviders
      setup={{
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
      }}
    >
      <div className="page">
        <Chat
          cooldownSeconds={env.CHAT_COOLDOWN_SECONDS}
          networks={networks}
          offline={offline}
          sandbox={demoWallet !== undefined}
          solanaNetworks={solanaNetworks}
          sandboxSolana={demoWallet?.solana}
        />
      </div>
    </WalletProviders>
  );
}
