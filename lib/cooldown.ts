// The pause between two new user messages (docs/contract.md, section 2: 429 within the cooldown),
// and between two quotes asked for with one AI app's access grant (section 11), kept in
// the database so it holds across processes. A message counts against its client (the address
// the deployment's proxy reports, lib/rate-limit.ts) and against the wallet it names, both at
// once: a caller who writes a new wallet address, or a new forwarding header, into each
// message still waits. Keys are stored hashed: the server keeps no addresses or IPs in the
// clear for this.
import { caseKey } from "@/lib/address";
import { createHash } from "node:crypto";
import type { Database } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { clientKey, type ClientAddressSettings } from "@/lib/rate-limit";

export type ClaimCooldownParameters = {
  db: Database;
  /** Everything the message counts against (cooldownKeys): all are claimed, or none. */
  keys: readonly string[];
  seconds: number;
  now?: Date;
};

/** A claim a door makes for a new message, short of the database: the keys it counts against, for how long. */
export type CooldownClaim = Omit<ClaimCooldownParameters, "db">;

/** Claims the next message slot for every key, or throws `rate-limited` with Retry-After and claims none. */
export async function claimCooldown({ db, keys, seconds, now = new Date() }: ClaimCooldownParameters): Promise<void> {
  if (seconds <= 0 || keys.length === 0) return;
  const hashed = hashedKeys(keys);
  await db.transaction(async (tx) => {
    const blocked: string[] = [];
    for (const key of hashed) {
      // Written only if the previous message is old enough; a request racing this one waits on
      // the row and then sees the new time, so two cannot both pass.
      const claimed = await tx.query(
        `INSERT INTO chat_cooldowns (client_key, last_message_at) VALUES ($1, $2)
         ON CONFLICT (client_key) DO UPDATE SET last_message_at = EXCLUDED.last_message_at
         WHERE chat_cooldowns.last_message_at <= $2::timestamptz - make_interval(secs => $3)
         RETURNING client_key`,
        [key, now.toISOString(), seconds],
      );
      if (claimed.length === 0) blocked.push(key);
    }
    if (blocked.length === 0) return;
    const [row] = await tx.query<{ last: Date | string | null }>(
      "SELECT max(last_message_at) AS last FROM chat_cooldowns WHERE client_key = ANY($1::text[])",
      [blocked],
    );
    const last = row?.last ? new Date(row.last).getTime() : now.getTime();
    const retryAfterSeconds = Math.max(1, Math.ceil(seconds - (now.getTime() - last) / 1000));
    // Thrown inside the transaction: the keys this request did claim are rolled back.
    throw new AppError("rate-limited", `Please wait ${retryAfterSeconds} s before sending another message.`, {
      details: { retryAfterSeconds },
      headers: { "Retry-After": String(retryAfterSeconds) },
    });
  });
}

/**
 * Gives back a claim made at `now` that turned out not to be used (an AI app's slot for a payment
 * without a prompt, whose quote the wallet must sign after all). Only that claim: a later one,
 * which could only follow it once its time was over, stays.
 */
export async function releaseCooldown({ db, keys, now }: { db: Database; keys: readonly string[]; now: Date }): Promise<void> {
  if (keys.length === 0) return;
  await db.query("DELETE FROM chat_cooldowns WHERE client_key = ANY($1::text[]) AND last_message_at = $2", [hashedKeys(keys), now.toISOString()]);
}

/** The keys as stored, sorted, so that two requests sharing keys lock their rows in the same order. */
function hashedKeys(keys: readonly string[]): string[] {
  return [...new Set(keys.map((key) => createHash("sha256").update(key.toLowerCase()).digest("hex")))].sort();
}

/** What a message counts against: its client, and each wallet that proved itself (a person's EVM and Solana wallets alike). */
export function cooldownKeys(request: Request, wallets: readonly string[], settings: ClientAddressSettings): string[] {
  return [clientKey(request, settings), ...wallets.map((wallet) => `wallet:${caseKey(wallet)}`)];
}
