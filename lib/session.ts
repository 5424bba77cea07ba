// Who the caller is, when it matters (docs/contract.md, section 9): a wallet proves itself once per browser
// session by signing in (EIP-4361, "Sign-In with Ethereum"), checked as payment signatures are
// (recovery, ERC-1271, ERC-6492), or by a payment approval it signs; the server answers with an
// HttpOnly, SameSite session cookie that names the wallet and is signed with the server's key.
// History (which services, which payments) is shown only to the wallet's own session, and the
// chat's per-wallet cooldown counts only a wallet that proved itself.
//
// Nothing is stored: the sign-in nonce and the session are tokens the server signed itself. The
// nonce also travels in an HttpOnly cookie, so a signed message is good only in the browser that
// asked for it, once, within ten minutes.
import { randomBytes } from "node:crypto";
import { getAddress, type Hex } from "viem";
import { z } from "zod";
import { isEvmAddress, isSolanaAddress, sameAddress } from "@/lib/address";
import type { ServerEnv } from "@/lib/env";
import { AppError, toAppError } from "@/lib/errors";
import { clientKey, createRateLimiter, type RateLimiter } from "@/lib/rate-limit";
import { mac, macMatches, signingKey, verifyingKeys } from "@/lib/signing-keys";

export const SESSION_COOKIE = "x402_session";
const NONCE_COOKIE = "x402_sign_in";
/** A session lasts the browser's session, and never more than this. */
const SESSION_SECONDS = 12 * 60 * 60;
const NONCE_SECONDS = 10 * 60;
const NONCE_PURPOSE = "sign-in-nonce";
const SESSION_PURPOSE = "session";

type SessionEnv = Pick<ServerEnv, "PAYMENT_TOKEN_SECRET" | "PAYMENT_TOKEN_SECRET_PREVIOUS" | "X402_NETWORKS" | "rpcUrls" | "usdcAddresses">;

/**
 * The wallets the request's session cookie names, if it holds a valid, unexpired session: at
 * most one per chain family (an EVM wallet and a Solana wallet may both have proved themselves).
 */
export function sessionWallets(request: Request, env: SessionEnv, now: Date = new Date()): string[] {
  const token = cookieOf(request, SESSION_COOKIE);
  if (!token) return [];
  const [body, given, extra] = token.split(".");
  if (!body || !given || extra !== undefined || !macMatches(verifyingKeys(env, SESSION_PURPOSE), body, given)) return [];
  try {
    const { w: wallets, e: expires } = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as { w?: unknown; e?: unknown };
    if (!Array.isArray(wallets) || typeof expires !== "number" || expires * 1000 <= now.getTime()) return [];
    return (wallets as unknown[]).flatMap((wallet): string[] => (isEvmAddress(wallet) ? [getAddress(wallet)] : isSolanaAddress(wallet) ? [wallet] : [])).slice(0, 2);
  } catch {
    return [];
  }
}

/** The EVM wallet the request's session names, if any. */
export function sessionWallet(request: Request, env: SessionEnv, now?: Date): `0x${string}` | undefined {
  return sessionWallets(request, env, now).find(isEvmAddress);
}

/** Whether the request's session is this wallet's. */
export function isSignedInAs(request: Request, wallet: string, env: SessionEnv, now?: Date): boolean {
  return sessionWallets(request, env, now).some((signedIn) => sameAddress(signedIn, wallet));
}

/**
 * The Set-Cookie value of a session for this wallet (a session cookie: it ends with the
 * browser's session). A wallet of the other chain family that the request's session already
 * names stays in it; one of the same family gives way.
 */
export function sessionCookie(request: Request, wallet: string, env: SessionEnv, now: Date = new Date()): string {
  const family = (address: string) => (isEvmAddress(address) ? "eip155" : "solana");
  const kept = sessionWallets(request, env, now).filter((other) => family(other) !== family(wallet));
  const wallets = [isEvmAddress(wallet) ? getAddress(wallet) : wallet, ...kept];
  const body = Buffer.from(JSON.stringify({ w: wallets, e: Math.floor(now.getTime() / 1000) + SESSION_SECONDS }), "utf8").toString("base64url");
  return cookie(request, SESSION_COOKIE, `${body}.${mac(signingKey(env, SESSION_PURPOSE), body)}`);
}

function cookie(request: Request, name: string, value: string, maxAgeSeconds?: number): string {
  const secure = new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
  return [`${name}=${value}`, "Path=/", "HttpOnly", "SameSite=Strict", ...(secure ? ["Secure"] : []), ...(maxAgeSeconds === undefined ? [] : [`Max-Age=${maxAgeSeconds}`])].join("; ");
}

function cookieOf(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=");
  }
  return undefined;
}

/** A fresh sign-in nonce: 32 hex digits, its expiry, and its MAC, all letters and digits as EIP-4361 asks. */
function newNonce(env: SessionEnv, now: Date): string {
  const body = `${randomBytes(16).toString("hex")}${String(Math.floor(now.getTime() / 1000) + NONCE_SECONDS).padStart(10, "0")}`;
  return `${body}${Buffer.from(mac(signingKey(env, NONCE_PURPOSE), body), "base64url").toString("hex").slice(0, 32)}`;
}

function nonceHolds(nonce: string, env: SessionEnv, now: Date): boolean {
  if (!/^[0-9a-f]{32}\d{10}[0-9a-f]{32}$/.test(nonce)) return false;
  const body = nonce.slice(0, 42);
  const given = nonce.slice(42);
  const signed = verifyingKeys(env, NONCE_PURPOSE).some((key) => Buffer.from(mac(key, body), "base64url").toString("hex").slice(0, 32) === given);
  return signed && Number(nonce.slice(32, 42)) * 1000 > now.getTime();
}

const signInSchema = z.strictObject({
  message: z.string().min(1).max(4_000),
  signature: z.string().regex(/^0x[0-9a-fA-F]{130,}$/, "must be a hex signature").max(16_384),
});

export type SessionDependencies = {
  env: () => ServerEnv;
  /** Signing in may ask the chain (a smart account): counted per client like any public endpoint. */
  rateLimit: RateLimiter;
  now?: () => Date;
  log?: (message: string, details?: Record<string, unknown>) => void;
};

/** 20 session requests a minute per client (lib/rate-limit.ts `clientKey`). */
export const createSessionRateLimit = (): RateLimiter => createRateLimiter({ limit: 20, windowMs: 60_000, maxClients: 10_000 });

const noStore = { "Cache-Control": "no-store" };

/**
 * `/api/session`: GET says who is signed in (and hands out a sign-in nonce), POST signs in with
 * an EIP-4361 message and its signature, DELETE signs out.
 */
export async function handleSessionRequest(request: Request, deps: SessionDependencies): Promise<Response> {
  const now = deps.now?.() ?? new Date();
  try {
    const env = deps.env();
    deps.rateLimit.take(clientKey(request, env), now);
    if (request.method === "GET") {
      const nonce = newNonce(env, now);
      const wallets = sessionWallets(request, env, now);
      return Response.json(
        { wallet: wallets.find(isEvmAddress) ?? null, solanaWallet: wallets.find(isSolanaAddress) ?? null, nonce },
        { headers: { ...noStore, "Set-Cookie": cookie(request, NONCE_COOKIE, nonce, NONCE_SECONDS) } },
      );
    }
    if (request.method === "DELETE") {
      const headers = new Headers(noStore);
      headers.append("Set-Cookie", cookie(request, SESSION_COOKIE, "", 0));
      return Response.json({ wallet: null }, { headers });
    }
    const wallet = await signIn(request, env, now);
    const headers = new Headers(noStore);
    headers.append("Set-Cookie", sessionCookie(request, wallet, env, now));
    // The nonce is spent.
    headers.append("Set-Cookie", cookie(request, NONCE_COOKIE, "", 0));
    return Response.json({ wallet }, { headers });
  } catch (error) {
    const appError = toAppError(error);
    if (appError.status >= 500) deps.log?.("session request failed", { code: appError.code });
    const response = appError.toResponse();
    response.headers.set("Cache-Control", "no-store");
    return response;
  }
}

/** Checks a sign-in and returns the wallet it proves; a refusal is a 400 (malformed) or a 401 (not this server's, not now, not signed). */
async function signIn(request: Request, env: SessionEnv, now: Date): Promise<`0x${string}`> {
  let json: unknown;
  try {
    json = await request.json();
  } catch {
    throw new AppError("bad-request", "Send the sign-in as JSON: { message, signature }.");
  }
  const parsed = signInSchema.safeParse(json);
  if (!parsed.success) {
    throw new AppError("bad-request", "The sign-in is not valid.", {
      details: { fields: parsed.error.issues.map((issue) => ({ path: issue.path.join(".") || "(body)", message: issue.message })) },
    });
  }
  const refuse = (why: string) => new AppError("unauthorized", `Sign-in refused: ${why}`);
  const { message, signature } = parsed.data;
  // The chains' code is loaded by the first sign-in, not with every route that reads a session.
  const [{ parseSiweMessage, validateSiweMessage }, { findNetwork }, { SignatureCheckUnavailableError, verifyPaymentSignature }] = await Promise.all([
    import("viem/siwe"),
    import("@/lib/chain/networks"),
    import("@/lib/chain/signature"),
  ]);
  const fields = parseSiweMessage(message);
  const host = request.headers.get("host") ?? new URL(request.url).host;
  const nonce = cookieOf(request, NONCE_COOKIE);
  if (!fields.address || !fields.chainId || !nonce || !nonceHolds(nonce, env, now)) {
    throw refuse("ask for a new sign-in message (it is good once, in the browser that asked for it, for ten minutes).");
  }
  if (!validateSiweMessage({ message: fields, domain: host, nonce, time: now })) {
    throw refuse(`the message is not for ${host} now, or not with this browser's nonce.`);
  }
  const network = findNetwork(`eip155:${fields.chainId}`, env);
  if (!network || !env.X402_NETWORKS.includes(network.id)) throw refuse(`chain ${fields.chainId} is not one this agent pays on.`);
  let verdict: Awaited<ReturnType<typeof verifyPaymentSignature>>;
  try {
    verdict = await verifyPaymentSignature({ network, address: fields.address, message, signature: signature as Hex });
  } catch (error) {
    if (!(error instanceof SignatureCheckUnavailableError)) throw error;
    throw new AppError("blockchain-error", `Could not check the sign-in's signature on ${network.name}: its RPC did not answer. Please try again.`, { cause: error });
  }
  if (!verdict.valid) throw refuse(`the signature is not ${fields.address}'s.`);
  return getAddress(fields.address);
}
