// Who the caller is, when it matters (docs/contract.md, section 9): a wallet proves itself once per browser
// session by signing in, an EVM wallet with EIP-4361 ("Sign-In with Ethereum"), checked as
// payment signatures are (recovery, ERC-1271, ERC-6492), a Solana wallet with the same text for
// its Solana account (the Wallet Standard's `solana:signIn`, or `solana:signMessage`), checked
// as an ed25519 signature; or by a payment approval it signs. The server answers with an
// HttpOnly, SameSite session cookie that names the wallet and is signed with the server's key.
// History (which services, which payments) is shown only to the wallet's own session, and the
// chat's per-wallet cooldown counts only a wallet that proved itself.
//
// A sign-in is for this deployment's own origin (APP_URL), never the one a request's Host names.
// Its nonce proves one browser, once: the browser holds a random secret in an HttpOnly cookie and
// the nonce is derived from it under the server's key, so a nonce fetched by anyone else is
// nothing without that cookie; a nonce used once is kept as spent in the ledger's database until
// it would have expired, so neither this instance nor another accepts it again.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { sameAddress } from "@/lib/address";
import { addressNamespace, walletAddressOf } from "@/lib/chain/addresses";
import type { Database } from "@/lib/db";
import type { ServerEnv } from "@/lib/env";
import { AppError, toAppError } from "@/lib/errors";
import { readJsonBody } from "@/lib/net/request-body";
import { clientKey, createRateLimiter, type RateLimiter } from "@/lib/rate-limit";
import { mac, macMatches, signingKey, verifyingKeys } from "@/lib/signing-keys";

export const SESSION_COOKIE = "x402_session";
const NONCE_COOKIE = "x402_sign_in";
/** A session lasts the browser's session, and never more than this. */
const SESSION_SECONDS = 12 * 60 * 60;
const NONCE_SECONDS = 10 * 60;
const NONCE_PURPOSE = "sign-in-nonce";
const SESSION_PURPOSE = "session";

type SessionEnv = Pick<ServerEnv, "PAYMENT_TOKEN_SECRET" | "PAYMENT_TOKEN_SECRET_PREVIOUS" | "X402_NETWORKS" | "rpcUrls" | "usdcAddresses" | "appOrigin">;

/**
 * The wallets the request's session cookie names, if it holds a valid, unexpired session: at
 * most one per chain family (an EVM wallet and a Solana wallet may both have proved themselves).
 */
export function sessionWallets(request: Request, env: Pick<SessionEnv, "PAYMENT_TOKEN_SECRET" | "PAYMENT_TOKEN_SECRET_PREVIOUS">, now: Date = new Date()): string[] {
  const token = cookieOf(request, SESSION_COOKIE);
  if (!token) return [];
  const [body, given, extra] = token.split(".");
  if (!body || !given || extra !== undefined || !macMatches(verifyingKeys(env, SESSION_PURPOSE), body, given)) return [];
  try {
    const { w: wallets, e: expires } = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as { w?: unknown; e?: unknown };
    if (!Array.isArray(wallets) || typeof expires !== "number" || expires * 1000 <= now.getTime()) return [];
    return (wallets as unknown[]).flatMap((wallet) => walletAddressOf(wallet) ?? []).slice(0, 2);
  } catch {
    return [];
  }
}

/** The wallet the request's session names in a CAIP-2 namespace (an AI app's grant is an EVM wallet's), if any. */
export function sessionWallet(request: Request, env: Pick<SessionEnv, "PAYMENT_TOKEN_SECRET" | "PAYMENT_TOKEN_SECRET_PREVIOUS">, now?: Date, namespace = "eip155"): string | undefined {
  return sessionWallets(request, env, now).find((wallet) => addressNamespace(wallet) === namespace);
}

/** Whether the request's session is this wallet's. */
export function isSignedInAs(request: Request, wallet: string, env: Pick<SessionEnv, "PAYMENT_TOKEN_SECRET" | "PAYMENT_TOKEN_SECRET_PREVIOUS">, now?: Date): boolean {
  return sessionWallets(request, env, now).some((signedIn) => sameAddress(signedIn, wallet));
}

type CookieEnv = Pick<SessionEnv, "PAYMENT_TOKEN_SECRET" | "PAYMENT_TOKEN_SECRET_PREVIOUS" | "appOrigin">;

/**
 * The Set-Cookie value of a session for this wallet (a session cookie: it ends with the
 * browser's session). A wallet of the other chain family that the request's session already
 * names stays in it; one of the same family gives way.
 */
export function sessionCookie(request: Request, wallet: string, env: CookieEnv, now: Date = new Date()): string {
  const kept = sessionWallets(request, env, now).filter((other) => addressNamespace(other) !== addressNamespace(wallet));
  const wallets = [walletAddressOf(wallet) ?? wallet, ...kept];
  const body = Buffer.from(JSON.stringify({ w: wallets, e: Math.floor(now.getTime() / 1000) + SESSION_SECONDS }), "utf8").toString("base64url");
  return cookie(env, SESSION_COOKIE, `${body}.${mac(signingKey(env, SESSION_PURPOSE), body)}`);
}

/** `Secure` whenever the deployment is served over https: its configured origin says so, not a request header. */
function cookie(env: Pick<SessionEnv, "appOrigin">, name: string, value: string, maxAgeSeconds?: number): string {
  const secure = env.appOrigin.startsWith("https:");
  return [`${name}=${value}`, "Path=/", "HttpOnly", "SameSite=Strict", ...(secure ? ["Secure"] : []), ...(maxAgeSeconds === undefined ? [] : [`Max-Age=${maxAgeSeconds}`])].join("; ");
}

function cookieOf(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=");
  }
  return undefined;
}

// ---- The browser's sign-in challenge ----

/** The browser's secret and when its nonce expires, as its cookie holds them. */
const CHALLENGE_COOKIE = /^([0-9a-f]{32})\.(\d{10})$/;

/** The nonce a browser's secret stands for: 32 hex digits of the server's MAC of it (letters and digits, as EIP-4361 asks). */
function nonceOf(key: Buffer, challenge: string): string {
  return Buffer.from(mac(key, challenge), "base64url").toString("hex").slice(0, 32);
}

/** A new challenge: the cookie's value (a random secret and its expiry) and the nonce derived from it. */
function newChallenge(env: SessionEnv, now: Date): { challenge: string; nonce: string } {
  const challenge = `${randomBytes(16).toString("hex")}.${String(Math.floor(now.getTime() / 1000) + NONCE_SECONDS).padStart(10, "0")}`;
  return { challenge, nonce: nonceOf(signingKey(env, NONCE_PURPOSE), challenge) };
}

/** When the nonce expires, if it is the one this browser's challenge stands for and it has not yet. */
function nonceExpiry(request: Request, nonce: string, env: SessionEnv, now: Date): Date | undefined {
  const match = CHALLENGE_COOKIE.exec(cookieOf(request, NONCE_COOKIE) ?? "");
  if (!match || !/^[0-9a-f]{32}$/.test(nonce)) return undefined;
  const expires = new Date(Number(match[2]) * 1000);
  if (expires.getTime() <= now.getTime()) return undefined;
  const given = Buffer.from(nonce, "utf8");
  const derived = verifyingKeys(env, NONCE_PURPOSE).some((key) => timingSafeEqual(Buffer.from(nonceOf(key, match[0]), "utf8"), given));
  return derived ? expires : undefined;
}

/**
 * Marks a nonce as used, once for every instance sharing the database: true the first time, false
 * after. Kept until the nonce would have expired; the ones past it go as a new one comes.
 */
async function spendNonce(db: Database, nonce: string, expires: Date, now: Date): Promise<boolean> {
  await db.query("DELETE FROM spent_sign_in_nonces WHERE expires_at < $1", [now]);
  const rows = await db.query("INSERT INTO spent_sign_in_nonces (nonce, expires_at) VALUES ($1, $2) ON CONFLICT (nonce) DO NOTHING RETURNING nonce", [nonce, expires]);
  return rows.length === 1;
}

// ---- The route ----

const signInSchema = z.strictObject({
  message: z.string().min(1).max(4_000),
  /** An EVM wallet's hex signature, or a Solana wallet's ed25519 signature in base58. */
  signature: z.union([
    z.string().regex(/^0x[0-9a-fA-F]{130,}$/, "must be a hex signature").max(16_384),
    z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{64,90}$/, "must be a base58 signature"),
  ]),
});

/**
 * The largest sign-in body read: the longest signature the schema takes (a smart account's
 * ERC-6492 wrapping, 16 KiB of hex) beside a 4,000-character message, with room for the JSON.
 */
const SIGN_IN_BODY_BYTES = 32 * 1024;

export type SessionDependencies = {
  env: () => ServerEnv;
  /** Where spent nonces are kept, shared by every instance. */
  database: () => Promise<Database>;
  /** Signing in may ask the chain (a smart account): counted per client like any public endpoint. */
  rateLimit: RateLimiter;
  now?: () => Date;
  log?: (message: string, details?: Record<string, unknown>) => void;
};

/** 20 session requests a minute per client (lib/rate-limit.ts `clientKey`). */
export const createSessionRateLimit = (): RateLimiter => createRateLimiter({ limit: 20, windowMs: 60_000, maxClients: 10_000 });

const noStore = { "Cache-Control": "no-store" };

/**
 * `/api/session`: GET says who is signed in and hands out a sign-in challenge (the nonce, and the
 * domain and URI the message must name), POST signs in with an EIP-4361 message (or its Solana
 * form) and its signature, DELETE signs out.
 */
export async function handleSessionRequest(request: Request, deps: SessionDependencies): Promise<Response> {
  const now = deps.now?.() ?? new Date();
  try {
    const env = deps.env();
    deps.rateLimit.take(clientKey(request, env), now);
    if (request.method === "GET") {
      const { challenge, nonce } = newChallenge(env, now);
      const wallets = sessionWallets(request, env, now);
      return Response.json(
        { wallet: wallets.find((one) => addressNamespace(one) === "eip155") ?? null, solanaWallet: wallets.find((one) => addressNamespace(one) === "solana") ?? null, nonce, domain: new URL(env.appOrigin).host, uri: env.appOrigin },
        { headers: { ...noStore, "Set-Cookie": cookie(env, NONCE_COOKIE, challenge, NONCE_SECONDS) } },
      );
    }
    if (request.method === "DELETE") {
      const headers = new Headers(noStore);
      headers.append("Set-Cookie", cookie(env, SESSION_COOKIE, "", 0));
      return Response.json({ wallet: null }, { headers });
    }
    const wallet = await signIn(request, env, deps.database, now);
    const headers = new Headers(noStore);
    headers.append("Set-Cookie", sessionCookie(request, wallet, env, now));
    // The challenge is spent: this browser asks for a new one next time.
    headers.append("Set-Cookie", cookie(env, NONCE_COOKIE, "", 0));
    return Response.json(addressNamespace(wallet) === "solana" ? { solanaWallet: wallet } : { wallet }, { headers });
  } catch (error) {
    const appError = toAppError(error);
    if (appError.status >= 500) deps.log?.("session request failed", { code: appError.code });
    const response = appError.toResponse();
    response.headers.set("Cache-Control", "no-store");
    return response;
  }
}

/**
 * Checks a sign-in and returns the wallet it proves; a refusal is a 415 or a 413 (not a small
 * JSON body, so no form on another site posts one), a 400 (malformed) or a 401 (not for this
 * deployment, not this browser's nonce, spent, not now, not signed by the wallet).
 */
async function signIn(request: Request, env: ServerEnv, database: () => Promise<Database>, now: Date): Promise<string> {
  const json = await readJsonBody(request, { expected: "{ message, signature }", limit: SIGN_IN_BODY_BYTES });
  const parsed = signInSchema.safeParse(json);
  if (!parsed.success) {
    throw new AppError("bad-request", "The sign-in is not valid.", {
      details: { fields: parsed.error.issues.map((issue) => ({ path: issue.path.join(".") || "(body)", message: issue.message })) },
    });
  }
  const { message, signature } = parsed.data;
  // The chains' code is loaded by the first sign-in, not with every route that reads a session.
  const { readSignIn, refuseSignIn: refuse } = await import("@/lib/chain/sign-in");
  const claim = await readSignIn(message, env);
  const host = new URL(env.appOrigin).host;
  if (claim.domain !== host || !claim.uri || !sameOrigin(claim.uri, env.appOrigin)) {
    throw refuse(`the message is for ${claim.domain?.slice(0, 100) ?? "no site"}, not for ${env.appOrigin}. Sign in from ${env.appOrigin} itself.`);
  }
  const { nonce } = claim;
  const expires = nonce ? nonceExpiry(request, nonce, env, now) : undefined;
  if (!nonce || !expires) throw refuse("ask for a new sign-in message (it is good once, in the browser that asked for it, for ten minutes).");
  if ((claim.expirationTime && claim.expirationTime.getTime() <= now.getTime()) || (claim.notBefore && claim.notBefore.getTime() > now.getTime())) {
    throw refuse("the message is not valid now (its expiration or not-before time).");
  }
  if (!(await claim.signedBy(message, signature))) throw refuse(`the signature is not ${claim.address}'s.`);
  if (!(await spendNonce(await database(), nonce, expires, now))) {
    throw refuse("this sign-in message was used already: ask for a new one.");
  }
  return claim.address;
}

function sameOrigin(uri: string, origin: string): boolean {
  try {
    return new URL(uri).origin === origin;
  } catch {
    return false;
  }
}
