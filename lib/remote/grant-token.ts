// Access grants as the server issues and checks them (docs/contract.md, section 11). The page
// sends a grant with the wallet's EIP-712 signature; the server checks that it is for this
// deployment (its origin, APP_URL), on a chain it pays on, not revoked, and signed by the wallet as
// a payment's signature is checked (a key, a deployed contract account, or one not yet deployed),
// and hands back the bearer token: what a request needs of the grant (id, wallet, label, limits,
// validUntil, server, chain) sealed with the server's own MAC, so a request is checked without the
// chain. The token carries no signature of the wallet's and proves nothing anywhere but here; its
// body is not a grant this server would issue a token for. The server keeps no copy of a grant,
// only the ids of those revoked, each for the longest a grant can live.
import { getAddress, type Hex } from "viem";
import { z } from "zod";
import { findNetworkByChainId } from "@/lib/chain/networks";
import { SignatureCheckUnavailableError, verifyPaymentSignature } from "@/lib/chain/signature";
import type { Queryable } from "@/lib/db";
import type { ServerEnv } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { formatUsd } from "@/lib/money";
import type { SpendingLimits } from "@/lib/payments/limits";
import { mac, macMatches, signingKey, verifyingKeys } from "@/lib/signing-keys";
import { type AccessGrant, grantTypedData, MAX_GRANT_DAYS } from "@/lib/chain/access-grant";

export const GRANT_TOKEN_PREFIX = "x402mcp_";
const PURPOSE = "mcp-access-grant";
/** A USDC amount in atomic units, as the grant carries it: at most a trillion dollars. */
const atomic = z.string().regex(/^(0|[1-9][0-9]{0,17})$/, "an amount in USDC's atomic units (micro-dollars)");

const grantSchema = z.strictObject({
  id: z.string().regex(/^[0-9a-f]{32}$/, "32 lowercase hex characters"),
  wallet: z.string().regex(/^0x[0-9a-fA-F]{40}$/, "an EVM address"),
  label: z.string().trim().min(1).max(60),
  limits: z.strictObject({ daily: atomic, weekly: atomic, monthly: atomic, perPayment: atomic }),
  validUntil: z.number().int().positive(),
  server: z.url({ protocol: /^https?$/ }).max(200),
});

/** What the page sends: the grant, the chain its typed data was signed on, and the wallet's signature. */
const newGrantSchema = z.strictObject({
  grant: grantSchema,
  chainId: z.number().int().positive(),
  signature: z.string().regex(/^0x[0-9a-fA-F]+$/, "a hex signature").max(20_000),
});

/** What a bearer token carries, under the server's MAC: the grant as checked, and its chain. */
const tokenBodySchema = z.strictObject({ v: z.literal(2), grant: grantSchema, chainId: z.number().int().positive() });

/** The grant's limits as the payment core counts them. */
export function grantLimits(grant: Pick<AccessGrant, "limits">): SpendingLimits {
  const { daily, weekly, monthly, perPayment } = grant.limits;
  return { daily: BigInt(daily), weekly: BigInt(weekly), monthly: BigInt(monthly), perPayment: BigInt(perPayment) };
}

/**
 * Checks a grant the page sends and returns its bearer token. A malformed grant, or one for
 * another deployment or chain, is a 400; one its wallet did not sign, or revoked, a 401; a chain
 * that does not answer a contract account's check, a 500 that says so.
 */
export async function issueGrantToken(
  db: Queryable,
  input: unknown,
  { env, now = new Date() }: { env: ServerEnv; now?: Date },
): Promise<{ token: string; grant: AccessGrant }> {
  const parsed = newGrantSchema.safeParse(input);
  if (!parsed.success) {
    throw new AppError("bad-request", "The access grant is not valid: send { grant, chainId, signature } as the page signs it.", {
      details: { fields: parsed.error.issues.map((issue) => ({ path: issue.path.join(".") || "(body)", message: issue.message })) },
    });
  }
  const { chainId, signature } = parsed.data;
  const grant = toGrant(parsed.data.grant);
  if (grant.server !== env.appOrigin) {
    throw new AppError(
      "bad-request",
      `This access grant is for ${grant.server.slice(0, 200)}, not for this server (${env.appOrigin}). Create it in the page at ${env.appOrigin} itself.`,
    );
  }
  const seconds = Math.floor(now.getTime() / 1000);
  if (grant.validUntil <= seconds) throw new AppError("bad-request", "The access grant has already expired: choose a later end.");
  if (grant.validUntil > seconds + MAX_GRANT_DAYS * 86_400) throw new AppError("bad-request", `An access grant lasts at most ${MAX_GRANT_DAYS} days.`);
  const network = findNetworkByChainId(chainId, env);
  if (!network || !env.X402_NETWORKS.includes(network.id)) {
    throw new AppError("bad-request", `Chain ${chainId} is not one this agent pays on: sign the grant with the wallet on one of its networks.`);
  }
  let verdict: Awaited<ReturnType<typeof verifyPaymentSignature>>;
  try {
    verdict = await verifyPaymentSignature({ network, address: grant.wallet, signature: signature as Hex, typedData: grantTypedData(grant, chainId) });
  } catch (error) {
    if (!(error instanceof SignatureCheckUnavailableError)) throw error;
    throw new AppError("blockchain-error", `Could not check the grant's signature on ${network.name}: its RPC did not answer. Please try again.`, { cause: error });
  }
  if (!verdict.valid) throw new AppError("unauthorized", `The access grant is not signed by ${grant.wallet} for this server.`);
  // A revoked grant stays revoked: signing it again does not bring it back.
  if (await isRevoked(db, grant)) throw new AppError("unauthorized", "This access grant was revoked. Create a new one if the app should have access again.");
  const body = Buffer.from(JSON.stringify({ v: 2, grant, chainId } satisfies z.infer<typeof tokenBodySchema>), "utf8").toString("base64url");
  return { token: `${GRANT_TOKEN_PREFIX}${body}.${mac(signingKey(env, PURPOSE), body)}`, grant };
}

/**
 * The grant a request's `Authorization: Bearer` token carries, if this server issued it, for this
 * deployment, and it holds now; anything else is a 401 that says why. A revocation counts only
 * when made by the grant's own wallet.
 */
export async function readGrantToken(db: Queryable, authorization: string | null, { env, now = new Date() }: { env: ServerEnv; now?: Date }): Promise<AccessGrant> {
  const token = authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  if (!token) {
    throw new AppError(
      "unauthorized",
      `Send an access grant as a bearer token (Authorization: Bearer ${GRANT_TOKEN_PREFIX}…). Create one in the page: Connect an AI app.`,
    );
  }
  const forged = () => new AppError("unauthorized", "This access grant was not issued by this server, or it was changed. Create a new one in the page: Connect an AI app.");
  if (!token.startsWith(GRANT_TOKEN_PREFIX)) throw forged();
  const [body, given, extra] = token.slice(GRANT_TOKEN_PREFIX.length).split(".");
  if (!body || !given || extra !== undefined || !macMatches(verifyingKeys(env, PURPOSE), body, given)) throw forged();
  let sealed: z.infer<typeof tokenBodySchema>;
  try {
    sealed = tokenBodySchema.parse(JSON.parse(Buffer.from(body, "base64url").toString("utf8")));
  } catch {
    throw forged();
  }
  const grant = toGrant(sealed.grant);
  // Another deployment that shares the key (a staging copy) issued it: it is nothing here.
  if (grant.server !== env.appOrigin) throw forged();
  if (grant.validUntil * 1000 <= now.getTime()) {
    throw new AppError("unauthorized", `This access grant expired on ${new Date(grant.validUntil * 1000).toISOString()}. Create a new one in the page: Connect an AI app.`);
  }
  if (await isRevoked(db, grant)) throw new AppError("unauthorized", "This access grant was revoked. Create a new one in the page if the app should have access again.");
  return grant;
}

/** Whether the grant's wallet revoked it. */
export async function isRevoked(db: Queryable, grant: { id: string; wallet: string }): Promise<boolean> {
  const rows = await db.query("SELECT 1 FROM mcp_grant_revocations WHERE grant_id = $1 AND wallet = $2", [grant.id, getAddress(grant.wallet)]);
  return rows.length > 0;
}

/**
 * Revokes a grant for the wallet that revokes it (its session). The server keeps no copy of the
 * grant, so it cannot know its validUntil from anyone but the caller: the revocation is kept for
 * the longest any grant can live (MAX_GRANT_DAYS from now), which outlasts the grant's own end
 * whatever the caller says of it.
 */
export async function revokeGrant(db: Queryable, { id, wallet, now = new Date() }: { id: string; wallet: string; now?: Date }): Promise<void> {
  // Nothing needs the revocation of an expired grant: the ones past their time go as a new one comes.
  await db.query("DELETE FROM mcp_grant_revocations WHERE valid_until < $1", [now]);
  await db.query(
    `INSERT INTO mcp_grant_revocations (grant_id, wallet, valid_until) VALUES ($1, $2, $3)
     ON CONFLICT (grant_id, wallet) DO UPDATE SET valid_until = GREATEST(mcp_grant_revocations.valid_until, EXCLUDED.valid_until)`,
    [id, getAddress(wallet), new Date(now.getTime() + MAX_GRANT_DAYS * 86_400_000)],
  );
}

/** The grant's limits in words, for the agent and the page. */
export function describeGrantLimits(grant: Pick<AccessGrant, "limits">): string {
  const limits = grantLimits(grant);
  return `$${formatUsd(limits.daily)} a day, $${formatUsd(limits.weekly)} a week, $${formatUsd(limits.monthly)} a month, $${formatUsd(limits.perPayment)} a payment`;
}

function toGrant(grant: z.infer<typeof grantSchema>): AccessGrant {
  return { ...grant, wallet: getAddress(grant.wallet) };
}

/** What a quote asked for under a grant is bound to: only a payment under that grant may be approved with it. */
export const grantBinding = (grantId: string) => `mcp-grant:${grantId}`;
