// Solana wallets as the page finds and uses them: through the Wallet Standard, which Phantom,
// Solflare, Backpack and the others register themselves with in the page. A wallet is usable
// here when it can connect and sign a transaction without sending it (`solana:signTransaction`):
// the x402 facilitator adds the fee payer's signature and sends it. Nothing here holds a key.
import { getWallets } from "@wallet-standard/app";
import type { Wallet, WalletAccount } from "@wallet-standard/base";
import {
  SolanaSignIn,
  SolanaSignMessage,
  SolanaSignTransaction,
  type SolanaSignInFeature,
  type SolanaSignMessageFeature,
  type SolanaSignTransactionFeature,
} from "@solana/wallet-standard-features";
import { getBase58Decoder } from "@solana/kit";
import type { SolanaSignInWallet } from "./sign-in";
import { StandardConnect, StandardDisconnect, StandardEvents, type StandardConnectFeature, type StandardDisconnectFeature, type StandardEventsFeature } from "@wallet-standard/features";

/** The Wallet Standard's name of a Solana cluster, by the CAIP-2 id the server pays on. */
const CHAIN_OF: Record<string, `solana:${string}`> = {
  "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp": "solana:mainnet",
  "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1": "solana:devnet",
  "solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z": "solana:testnet",
};

export function walletChainOf(networkId: string): `solana:${string}` | undefined {
  return CHAIN_OF[networkId];
}

export type SolanaWallet = Wallet & { features: SolanaSignTransactionFeature & StandardConnectFeature };

/** Whether a registered wallet can connect and sign a Solana transaction. */
export function isSolanaWallet(wallet: Wallet): wallet is SolanaWallet {
  return StandardConnect in wallet.features && SolanaSignTransaction in wallet.features && wallet.chains.some((chain) => chain.startsWith("solana:"));
}

/** The Solana wallets registered in this page now. */
export function solanaWallets(): SolanaWallet[] {
  return getWallets().get().filter(isSolanaWallet);
}

/** Calls `listener` whenever a wallet registers or leaves; returns the unsubscribe. */
export function onSolanaWalletsChanged(listener: () => void): () => void {
  const wallets = getWallets();
  const offRegister = wallets.on("register", listener);
  const offUnregister = wallets.on("unregister", listener);
  return () => {
    offRegister();
    offUnregister();
  };
}

/** Asks the wallet for its accounts (the wallet's own prompt); `silent` only reconnects one already allowed. */
export async function connectSolanaWallet(wallet: SolanaWallet, { silent = false }: { silent?: boolean } = {}): Promise<WalletAccount | undefined> {
  const { accounts } = await wallet.features[StandardConnect].connect(silent ? { silent: true } : undefined);
  return accounts.find((account) => account.features.includes(SolanaSignTransaction)) ?? accounts[0];
}

export async function disconnectSolanaWallet(wallet: SolanaWallet): Promise<void> {
  const feature = (wallet.features as Partial<StandardDisconnectFeature>)[StandardDisconnect];
  await feature?.disconnect();
}

/** Calls `listener` when the wallet's accounts change (the person switched or removed one). */
export function onSolanaAccountsChanged(wallet: SolanaWallet, listener: () => void): () => void {
  const events = (wallet.features as Partial<StandardEventsFeature>)[StandardEvents];
  return events ? events.on("change", ({ accounts }) => accounts && listener()) : () => undefined;
}

/**
 * Has the wallet sign a quoted transaction (base64 wire format, as the quote carries it) for
 * `networkId`, and returns the signed transaction in the same format. The wallet shows the
 * transfer in its own prompt; what it returns is checked by the server byte for byte.
 */
export async function signSolanaTransaction(wallet: SolanaWallet, account: WalletAccount, transaction: string, networkId: string): Promise<string> {
  const chain = walletChainOf(networkId);
  const [output] = await wallet.features[SolanaSignTransaction].signTransaction({
    account,
    transaction: fromBase64(transaction),
    ...(chain ? { chain } : {}),
  });
  if (!output) throw new Error("The wallet returned no signed transaction.");
  return toBase64(output.signedTransaction);
}

/**
 * What the wallet offers for signing in (docs/contract.md, section 9): its own `solana:signIn`,
 * which shows the person a sign-in, or else `solana:signMessage` over the same text; undefined
 * when it has neither. Signatures travel in base58, as Solana writes them.
 */
export function solanaSignInOf(wallet: SolanaWallet, account: WalletAccount): SolanaSignInWallet | undefined {
  const features = wallet.features as Partial<SolanaSignInFeature & SolanaSignMessageFeature>;
  const signIn = features[SolanaSignIn];
  const signMessage = features[SolanaSignMessage];
  if (signIn) {
    return {
      address: account.address,
      signIn: async (input) => {
        const [output] = await signIn.signIn(input);
        if (!output) throw new Error("The wallet returned no sign-in.");
        return { message: new TextDecoder().decode(output.signedMessage), signature: toBase58(output.signature) };
      },
    };
  }
  if (signMessage && account.features.includes(SolanaSignMessage)) {
    return {
      address: account.address,
      signMessage: async (text) => {
        const [output] = await signMessage.signMessage({ account, message: new TextEncoder().encode(text) });
        if (!output) throw new Error("The wallet returned no signature.");
        return toBase58(output.signature);
      },
    };
  }
  return undefined;
}

/** Base58, as Solana writes keys and signatures. */
const toBase58 = (bytes: Uint8Array): string => getBase58Decoder().decode(bytes);

export function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

export function toBase64(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}
