// Signing in with the wallet (docs/contract.md, section 9): the page asks the server for a challenge
// (a nonce bound to this browser, and the deployment's domain and URI), has the wallet sign an
// EIP-4361 message for the deployment with it (an EVM wallet), or the same text for its Solana
// account (a Solana wallet, through `solana:signIn` or `solana:signMessage`), and sends both back;
// the server answers with an HttpOnly session cookie. Once per browser session; it lets the page
// read the wallet's own payment history, which nobody else can.
import { createSiweMessage } from "viem/siwe";

export type SignInWallet = {
  address: `0x${string}`;
  /** The chain the message names: one the agent pays on. */
  chainId: number;
  signMessage: (message: string) => Promise<`0x${string}`>;
};

export class SignInError extends Error {
  override readonly name = "SignInError";
}

/** A Solana wallet's sign-in: the text it signs is made here (`signMessage`) or by the wallet itself (`signIn`, which shows it as a sign-in). */
export type SolanaSignInWallet = {
  address: string;
  /** Signs exactly this text; returns the signature in base58. */
  signMessage?: (text: string) => Promise<string>;
  /** The Wallet Standard's `solana:signIn`: returns the text the wallet signed and its base58 signature. */
  signIn?: (input: SolanaSignInFields) => Promise<{ message: string; signature: string }>;
};

export type SolanaSignInFields = { domain: string; address: string; statement: string; uri: string; version: "1"; nonce: string; issuedAt: string };

const STATEMENT = "Sign in to see your own x402 payments. This signs nothing that can pay.";

type Challenge = { nonce: string; domain: string; uri: string };

/** The server's challenge: a nonce for this browser, and the deployment's domain and URI the message must name. */
async function challenge(): Promise<Challenge> {
  const response = await fetch("/api/session", { cache: "no-store" });
  const body = (await response.json().catch(() => ({}))) as Partial<Record<keyof Challenge, unknown>>;
  if (!response.ok || typeof body.nonce !== "string" || typeof body.domain !== "string" || typeof body.uri !== "string") {
    throw new SignInError("The sign-in could not start. Please try again.");
  }
  return { nonce: body.nonce, domain: body.domain, uri: body.uri };
}

export async function signIn(wallet: SignInWallet): Promise<void> {
  const { nonce, domain, uri } = await challenge();
  const message = createSiweMessage({ address: wallet.address, chainId: wallet.chainId, domain, uri, version: "1", nonce, issuedAt: new Date(), statement: STATEMENT });
  await send(message, await wallet.signMessage(message));
}

/** Signs a Solana wallet in: through the wallet's own sign-in where it has one, else by signing the same text. */
export async function signInWithSolana(wallet: SolanaSignInWallet): Promise<void> {
  const { nonce, domain, uri } = await challenge();
  const fields: SolanaSignInFields = { domain, address: wallet.address, statement: STATEMENT, uri, version: "1", nonce, issuedAt: new Date().toISOString() };
  if (wallet.signIn) {
    const { message, signature } = await wallet.signIn(fields);
    return send(message, signature);
  }
  if (!wallet.signMessage) throw new SignInError("This Solana wallet can neither sign in nor sign a message.");
  const { createSignInMessageText } = await import("@solana/wallet-standard-util");
  const message = createSignInMessageText(fields);
  await send(message, await wallet.signMessage(message));
}

async function send(message: string, signature: string): Promise<void> {
  const response = await fetch("/api/session", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ message, signature }),
  });
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { error?: { message?: unknown } };
    throw new SignInError(typeof body.error?.message === "string" ? body.error.message : "The sign-in was refused.");
  }
}

/** Ends this browser's session (the wallet was disconnected or changed). */
export async function signOut(): Promise<void> {
  await fetch("/api/session", { method: "DELETE" }).catch(() => undefined);
}
