// A Solana browser wallet for the end-to-end tests, registered in the page the way Phantom,
// Solflare and Backpack register themselves: through the Wallet Standard's window events, before
// any of the page's scripts run. It connects one account, signs transactions
// (`solana:signTransaction`) and signs in (`solana:signIn`, writing the sign-in text itself, as
// Phantom does) with a fresh sandbox key held here in Node; the page never sees the key. The test
// can count its prompts and reject the next one.
import type { Page } from "@playwright/test";
import { sign } from "node:crypto";
import { getBase58Encoder } from "@solana/kit";
import { createSignInMessageText } from "@solana/wallet-standard-util";
import { newSolanaKey, signTransactionAs, type SolanaKey } from "@/sandbox/solana";
import { fundOnSolana } from "@/sandbox/solana-funder";
import { sandboxInfo } from "./sandbox";

export const SOLANA_TEST_WALLET_NAME = "Solana Test Wallet";

export type SolanaTestWallet = {
  readonly address: string;
  /** How many transactions and sign-ins the page asked it to sign, rejected ones included. */
  readonly signRequests: number;
  /** The next signature request is refused, as a person clicking Reject would. */
  rejectNext: () => void;
};

/** The page's side: a Wallet Standard wallet whose signing goes to `__solanaTestWalletSign` (Node). Plain JavaScript text. */
function walletScript(address: string, publicKey: number[]): string {
  return `(() => {
  const chains = ["solana:devnet", "solana:mainnet"];
  const account = Object.freeze({ address: ${JSON.stringify(address)}, publicKey: new Uint8Array(${JSON.stringify(publicKey)}), chains, features: ["solana:signTransaction"] });
  let connected = false;
  const listeners = new Set();
  const toBase64 = (bytes) => btoa(String.fromCharCode(...bytes));
  const fromBase64 = (text) => Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  const wallet = {
    version: "1.0.0",
    name: ${JSON.stringify(SOLANA_TEST_WALLET_NAME)},
    icon: "data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#14f195"/></svg>').toString("base64")}",
    chains,
    get accounts() { return connected ? [account] : []; },
    features: {
      "standard:connect": { version: "1.0.0", connect: async (input) => {
        if (!input || !input.silent) connected = true;
        for (const listener of listeners) listener({ accounts: wallet.accounts });
        return { accounts: wallet.accounts };
      } },
      "standard:disconnect": { version: "1.0.0", disconnect: async () => { connected = false; for (const listener of listeners) listener({ accounts: [] }); } },
      "standard:events": { version: "1.0.0", on: (event, listener) => { listeners.add(listener); return () => listeners.delete(listener); } },
      "solana:signTransaction": { version: "1.0.0", supportedTransactionVersions: ["legacy", 0], signTransaction: async (...inputs) => {
        const outputs = [];
        for (const input of inputs) {
          const answer = JSON.parse(await window.__solanaTestWalletSign(toBase64(input.transaction)));
          if (answer.error) throw new Error(answer.error);
          outputs.push({ signedTransaction: fromBase64(answer.signed) });
        }
        return outputs;
      } },
      "solana:signIn": { version: "1.0.0", signIn: async (...inputs) => {
        const outputs = [];
        for (const input of inputs) {
          const answer = JSON.parse(await window.__solanaTestWalletSignIn(JSON.stringify(input)));
          if (answer.error) throw new Error(answer.error);
          outputs.push({ account, signedMessage: fromBase64(answer.message), signature: fromBase64(answer.signature), signatureType: "ed25519" });
        }
        return outputs;
      } },
    },
  };
  const register = (api) => api.register(wallet);
  window.addEventListener("wallet-standard:app-ready", (event) => register(event.detail));
  window.dispatchEvent(new CustomEvent("wallet-standard:register-wallet", { detail: register }));
})();`;
}

/** Injects a Solana wallet holding a fresh key into the page, funded with `usdc` on the local Solana. */
export async function installSolanaTestWallet(page: Page, { usdc }: { usdc: bigint }): Promise<SolanaTestWallet> {
  const info = sandboxInfo();
  const key: SolanaKey = newSolanaKey();
  if (usdc > 0n) {
    await fundOnSolana({ rpcUrl: info.solana.rpcUrl, funderSecretKey: info.solana.funder.secretKey, mint: info.solana.usdc.mint, decimals: info.solana.usdc.decimals, to: key.address, usdc });
  }
  let signRequests = 0;
  let rejectNext = false;
  await page.exposeFunction("__solanaTestWalletSign", (transaction: string) => {
    signRequests += 1;
    if (rejectNext) {
      rejectNext = false;
      return JSON.stringify({ error: "User rejected the request." });
    }
    try {
      return JSON.stringify({ signed: signTransactionAs(key, transaction) });
    } catch (error) {
      return JSON.stringify({ error: error instanceof Error ? error.message : String(error) });
    }
  });
  // The wallet writes the sign-in text for the fields the page asks for, for its own account.
  await page.exposeFunction("__solanaTestWalletSignIn", (input: string) => {
    signRequests += 1;
    const fields = JSON.parse(input) as Parameters<typeof createSignInMessageText>[0];
    const message = Buffer.from(createSignInMessageText({ ...fields, address: key.address }), "utf8");
    return JSON.stringify({ message: message.toString("base64"), signature: sign(null, message, key.privateKey).toString("base64") });
  });
  await page.addInitScript({ content: walletScript(key.address, [...getBase58Encoder().encode(key.address)]) });
  return {
    address: key.address,
    get signRequests() {
      return signRequests;
    },
    rejectNext() {
      rejectNext = true;
    },
  };
}
