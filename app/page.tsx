// The chat page. A server component: it reads the server's configuration at request time
// (lib/page-setup.ts) and hands the page only what is safe to show, never a key.
import { connection } from "next/server";
import { Chat } from "@/components/chat/chat";
import { WalletProviders } from "@/components/wallet/providers";
import { readPageSetup } from "@/lib/page-setup";

export default async function ChatPage() {
  // Configuration is the running server's, not the build machine's: render per request.
  await connection();
  const { env, offline, demoWallet, networks, solanaNetworks, walletSetup } = await readPageSetup();
  return (
    <WalletProviders setup={walletSetup}>
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
