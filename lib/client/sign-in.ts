// Signing in with the wallet (docs/contract.md, section 9): the page asks the server for a nonce, has the
// wallet sign an EIP-4361 message for this site with it, and sends both back; the server answers
// with an HttpOnly session cookie. Once per browser session; it lets the page read the wallet's
// own payment history, which nobody else can.
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

export async function signIn(wallet: SignInWallet, { origin = window.location.origin }: { origin?: string } = {}): Promise<void> {
  const challenge = await fetch("/api/session", { cache: "no-store" });
  const { nonce } = (await challenge.json().catch(() => ({}))) as { nonce?: unknown };
  if (!challenge.ok || typeof nonce !== "string") throw new SignInError("The sign-in could not start. Please try again.");
  const url = new URL(origin);
  const message = createSiweMessage({
    address: wallet.address,
    chainId: wallet.chainId,
    domain: url.host,
    uri: url.origin,
    version: "1",
    nonce,
    issuedAt: new Date(),
    statement: "Sign in to see your own x402 payments. This signs nothing that can pay.",
  });
  const signature = await wallet.signMessage(message);
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
