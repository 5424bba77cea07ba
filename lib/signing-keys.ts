// The server's keys for what it signs and later trusts (approval tokens, sign-in sessions):
// PAYMENT_TOKEN_SECRET, or one made per process in development, and during a rotation the key
// it replaced. Each kind of token but the approval has a key of its own derived from them, so a
// token of one kind never passes for another. Also the one MAC check, in constant time.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { ServerEnv } from "@/lib/env";
import { processState } from "@/lib/process-state";

export type SigningKeyEnv = Pick<ServerEnv, "PAYMENT_TOKEN_SECRET"> & Partial<Pick<ServerEnv, "PAYMENT_TOKEN_SECRET_PREVIOUS">>;

// One per process (lib/process-state.ts), not per route's bundle: a session cookie one route
// signed must pass in another.
const development = processState("development-secret", () => ({ secret: undefined as Buffer | undefined }));

function current(env: SigningKeyEnv): Buffer {
  if (env.PAYMENT_TOKEN_SECRET) return Buffer.from(env.PAYMENT_TOKEN_SECRET, "utf8");
  // Development only: what it signed does not survive a restart or reach another instance.
  development.secret ??= randomBytes(32);
  return development.secret;
}

const derive = (secret: Buffer, purpose: string | undefined): Buffer =>
  purpose === undefined ? secret : createHmac("sha256", secret).update(`x402-payment-agent/${purpose}`).digest();

/** The key that signs tokens of this purpose now. */
export function signingKey(env: SigningKeyEnv, purpose?: string): Buffer {
  return derive(current(env), purpose);
}

/** The keys a token of this purpose may be signed with: the current one, then the one it replaced (rotation). */
export function verifyingKeys(env: SigningKeyEnv, purpose?: string): Buffer[] {
  const previous = env.PAYMENT_TOKEN_SECRET_PREVIOUS;
  return [current(env), ...(previous ? [Buffer.from(previous, "utf8")] : [])].map((secret) => derive(secret, purpose));
}

/** base64url(HMAC-SHA256) of `body` under `key`. */
export function mac(key: Buffer, body: string): string {
  return createHmac("sha256", key).update(body).digest("base64url");
}

/** Whether `given` is the MAC of `body` under one of `keys`, compared in constant time. */
export function macMatches(keys: readonly Buffer[], body: string, given: string): boolean {
  const presented = Buffer.from(given, "base64url");
  return keys.some((key) => {
    const expected = createHmac("sha256", key).update(body).digest();
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  });
}
