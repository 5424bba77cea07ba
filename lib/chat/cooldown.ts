// The pause between two new user messages (SPEC section 2: 429 within the cooldown), per wallet
// address or else per client IP, kept in the database so it holds across processes. Keys are
// stored hashed: the server keeps no addresses or IPs in the clear for this.
import { createHash } from "node:crypto";
import type { Queryable } from "@/lib/db";
import { AppError } from "@/lib/errors";

export type ClaimCooldownParameters = {
  db: Queryable;
  /** The wallet address if the request has one, else the client IP. */
  clientKey: string;
  seconds: number;
  now?: Date;
};

/** Claims the next message slot for this client, or throws `rate-limited` with Retry-After. */
export async function claimCooldown({ db, clientKey, seconds, now = new Date() }: ClaimCooldownParameters): Promise<void> {
  if (seconds <= 0) return;
  const key = createHash("sha256").update(clientKey.toLowerCase()).digest("hex");
  // One atomic statement: the row is written only if the previous message is old enough, so two
  // requests racing each other cannot both pass.
  const claimed = await db.query(
    `INSERT INTO chat_cooldowns (client_key, last_message_at) VALUES ($1, $2)
     ON CONFLICT (client_key) DO UPDATE SET last_message_at = EXCLUDED.last_message_at
     WHERE chat_cooldowns.last_message_at <= $2::timestamptz - make_interval(secs => $3)
     RETURNING client_key`,
    [key, now.toISOString(), seconds],
  );
  if (claimed.length > 0) return;
  const [row] = await db.query<{ last_message_at: Date | string }>(
    "SELECT last_message_at FROM chat_cooldowns WHERE client_key = $1",
    [key],
  );
  const last = row ? new Date(row.last_message_at).getTime() : now.getTime();
  const retryAfterSeconds = Math.max(1, Math.ceil(seconds - (now.getTime() - last) / 1000));
  throw new AppError("rate-limited", `Please wait ${retryAfterSeconds} s before sending another message.`, {
    details: { retryAfterSeconds },
    headers: { "Retry-After": String(retryAfterSeconds) },
  });
}

/** Who a request counts against: its wallet, else the first address in X-Forwarded-For. */
export function cooldownKey(request: Request, walletAddress: string | undefined): string {
  if (walletAddress) return `wallet:${walletAddress}`;
  const forwarded = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim();
  const ip = forwarded || request.headers.get("x-real-ip")?.trim() || "unknown";
  return `ip:${ip}`;
}
