// The chat page. A server component: it reads the server's configuration at request time and
// hands the chat only what is safe to show (which model answers, the cooldown length), never a
// key or a URL with credentials in it. The one exception is the sandbox's demo wallet: an anvil
// development key, handed over only when the app runs on the local sandbox (`npm run demo`).
import { connection } from "next/server";
import { Chat } from "@/components/chat/chat";
import { DemoWalletNotice } from "@/components/wallet/demo-wallet-notice";
import { readDemoWallet } from "@/lib/chain/demo-wallet";
import { serverEnv } from "@/lib/env";

export default async function ChatPage() {
  // Configuration is the running server's, not the build machine's: render per request.
  await connection();
  const env = serverEnv();
  const offline = env.modelProvider === "offline";
  const demoWallet = await readDemoWallet(env);
  return (
    <div className="page">
      <header className="page-header">
        <h1 className="page-title">x402 payment agent</h1>
        <p className="page-tagline">Pay per use for x402 services, in USDC, within your limits.</p>
      </header>
      {offline ? (
        <p className="offline-banner" role="status" data-testid="offline-banner">
          <strong>Offline model.</strong> No Gemini API key is set, so simple built-in rules answer instead of Gemini.
          Set <code>GOOGLE_GENERATIVE_AI_API_KEY</code> on the server to use the real model.
        </p>
      ) : null}
      {demoWallet ? <DemoWalletNotice address={demoWallet.address} /> : null}
      <main className="page-main">
        <Chat
          cooldownSeconds={env.CHAT_COOLDOWN_SECONDS}
          demoWallet={demoWallet ? { address: demoWallet.address, privateKey: demoWallet.privateKey } : undefined}
        />
      </main>
    </div>
  );
}
