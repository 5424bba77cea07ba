// What the page says about where it runs, above the chat: the offline model answering instead of
// Gemini, and the sandbox's play money with its demo wallets.
import { Notice } from "./notice";

export function ChatNotices({ offline, sandbox, sandboxSolana }: { offline: boolean; sandbox: boolean; sandboxSolana: boolean }) {
  return (
    <>
      {offline ? (
        <Notice testId="offline-banner" title="Offline model" summary="built-in rules answer, not Gemini">
          No Gemini API key is set, so simple built-in rules answer instead of Gemini. Set <code>GOOGLE_GENERATIVE_AI_API_KEY</code>{" "}
          on the server to use the real model.
        </Notice>
      ) : null}
      {sandbox ? (
        <Notice testId="sandbox-banner" title="Sandbox" summary="play USDC on a local chain">
          Payments use play USDC on a local chain. Connect the <em>Sandbox demo wallet</em> to try them, or any wallet on the
          sandbox chain{sandboxSolana ? <>; on Solana, the <em>Sandbox Solana wallet</em></> : null}.
        </Notice>
      ) : null}
    </>
  );
}
