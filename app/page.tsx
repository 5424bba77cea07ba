// The chat page. A server component: it reads the server's configuration at request time
// (lib/page-setup.ts) and hands the page only what is safe to show, never a key.
import { headers } from "next/headers";
import { connection } from "next/server";
import { Chat } from "@/components/chat/chat";
import { COMPOSER_ID } from "@/components/chat/first-paint";
import { MARK_RESTORING_SCRIPT } from "@/components/chat/conversation-store";
import { WalletProviders } from "@/components/wallet/providers";
import { readPageSetup } from "@/lib/page-setup";
import { nonceOf } from "@/lib/security-headers";

export default async function ChatPage() {
  // Configuration is the running server's, not the build machine's: render per request.
  await connection();
  const { env, offline, demoWallet, networks, solanaNetworks, walletSetup } = await readPageSetup();
  const nonce = nonceOf((await headers()).get("content-security-policy"));
  return (
    <>
      {/* Before the chat is painted: a conversation coming back from the tab's storage is not preceded by the empty chat's welcome. */}
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: a constant of this codebase, no outside text */}
      <script nonce={nonce} dangerouslySetInnerHTML={{ __html: MARK_RESTORING_SCRIPT }} />
      {/* Nothing is painted before the composer is parsed: a first paint of a document still arriving would lay the chat out without the composer, then move the row above it up when it comes. */}
      <link rel="expect" href={`#${COMPOSER_ID}`} blocking="render" />
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
    </>
  );
}
