// The sandbox's Solana demo wallet, registered in the page through the Wallet Standard like
// Phantom or Solflare register themselves, so the page finds it the same way. The local Solana
// holds its key and signs for it (`sandbox_signTransaction` and `sandbox_signMessage`, as anvil
// signs for its unlocked accounts): no key is in the page. It exists only when the app runs on the sandbox.
import { getWallets } from "@wallet-standard/app";
import type { Wallet, WalletAccount } from "@wallet-standard/base";
import { SolanaSignMessage, SolanaSignTransaction, type SolanaSignMessageInput, type SolanaSignTransactionInput } from "@solana/wallet-standard-features";
import { StandardConnect, StandardDisconnect, StandardEvents, type StandardEventsListeners } from "@wallet-standard/features";
import { getAddressEncoder, getBase58Encoder, type Address } from "@solana/kit";
import { fromBase64, toBase64, walletChainOf } from "@/lib/client/solana-wallet";

export const SANDBOX_SOLANA_WALLET_NAME = "Sandbox Solana wallet";

export type SandboxSolanaWalletOptions = { address: string; rpcUrl: string; network: string };

const icon = `data:image/svg+xml;base64,${btoa(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 28 28"><rect width="28" height="28" rx="6" fill="#7c3aed"/><path d="M8 9h12l-2 3H6zM8 16h12l-2 3H6z" fill="#fff"/></svg>',
)}` as const;

let registered = false;

/** Registers the demo wallet once per page. */
export function registerSandboxSolanaWallet({ address, rpcUrl, network }: SandboxSolanaWalletOptions): void {
  if (registered) return;
  registered = true;
  const chain = walletChainOf(network) ?? "solana:devnet";
  const account: WalletAccount = {
    address,
    publicKey: new Uint8Array(getAddressEncoder().encode(address as Address)),
    chains: [chain],
    features: [SolanaSignTransaction, SolanaSignMessage],
    label: SANDBOX_SOLANA_WALLET_NAME,
  };
  const connectedKey = "sandbox-solana.connected";
  let connected = typeof localStorage !== "undefined" && localStorage.getItem(connectedKey) === "1";
  const listeners = new Set<StandardEventsListeners["change"]>();
  const changed = () => {
    for (const listener of listeners) listener({ accounts: connected ? [account] : [] });
  };

  const askSandbox = async (method: string, bytes: Uint8Array) => {
    const response = await fetch(rpcUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: [toBase64(bytes), address] }),
    });
    const body = (await response.json()) as { result?: unknown; error?: { message?: string } };
    if (typeof body.result !== "string") throw new Error(body.error?.message ?? "The sandbox did not sign.");
    return body.result;
  };
  const signOne = async ({ transaction }: SolanaSignTransactionInput) => ({ signedTransaction: fromBase64(await askSandbox("sandbox_signTransaction", transaction)) });
  const signMessage = async ({ message }: SolanaSignMessageInput) => ({
    signedMessage: message,
    signature: new Uint8Array(getBase58Encoder().encode(await askSandbox("sandbox_signMessage", message))),
  });

  const wallet: Wallet = {
    version: "1.0.0",
    name: SANDBOX_SOLANA_WALLET_NAME,
    icon,
    chains: [chain],
    get accounts() {
      return connected ? [account] : [];
    },
    features: {
      [StandardConnect]: {
        version: "1.0.0",
        connect: async (input?: { silent?: boolean }) => {
          if (!input?.silent || connected) {
            connected = true;
            localStorage.setItem(connectedKey, "1");
            changed();
          }
          return { accounts: connected ? [account] : [] };
        },
      },
      [StandardDisconnect]: {
        version: "1.0.0",
        disconnect: async () => {
          connected = false;
          localStorage.removeItem(connectedKey);
          changed();
        },
      },
      [StandardEvents]: {
        version: "1.0.0",
        on: (_event: "change", listener: StandardEventsListeners["change"]) => {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
      },
      [SolanaSignTransaction]: {
        version: "1.0.0",
        supportedTransactionVersions: ["legacy", 0],
        signTransaction: (...inputs: readonly SolanaSignTransactionInput[]) => Promise.all(inputs.map(signOne)),
      },
      [SolanaSignMessage]: {
        version: "1.1.0",
        signMessage: (...inputs: readonly SolanaSignMessageInput[]) => Promise.all(inputs.map(signMessage)),
      },
    },
  };
  getWallets().register(wallet);
}
