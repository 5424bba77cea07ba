// Pay-as-you-go channels (x402 `batch-settlement`) as the ledger keeps them: a channel's deposit
// is an ordinary payment row, counted in full against the limits while the channel can be
// claimed; the channel row keeps the cumulative amount this ledger vouched, which is the only
// figure a next voucher is built on (a service's word about what it charged never raises or
// lowers it), and each call is a row of its own, listed but outside the totals. Closing turns the
// deposit's row into what the chain shows was claimed: the rest, refunded, is released.
import type { Database, Queryable } from "@/lib/db";
import type { SpendingLimits } from "../limits";
import type { ChannelConfig, PayableRequirement } from "../rails/rail";
import { walletKey, walletKeys } from "./records";
import { findDrawBreach, type LimitBreach } from "./totals";

export type ChannelState = "opening" | "open" | "closing" | "withdrawing" | "closed";

/** The service's payment option, as the x402 packages type it. */
type ChannelRequirements = PayableRequirement["requirements"];

/** A channel's configuration as x402 `batch-settlement` names it (its id is their EIP-712 hash): the rails' own type. */
export type ChannelConfigRecord = ChannelConfig;

export type ChannelRecord = {
  channelId: string;
  wallet: string;
  network: string;
  config: ChannelConfigRecord;
  /** The service's payment option the channel was opened on: a refund answers it again. */
  requirements: ChannelRequirements;
  serviceName: string;
  serviceUrl: string;
  depositPaymentId: string;
  /** Atomic units the payer deposited. */
  deposit: bigint;
  /** The last voucher's cumulative maximum, as this ledger signed it. */
  vouched: bigint;
  /** What the service said it charged, summed over the calls, at most what was vouched for each. */
  charged: bigint;
  state: ChannelState;
  withdrawRequestedAt: Date | null;
  closeTx: string | null;
  /** Once closed: what the service claimed on chain, by the chain's word; the rest came back. */
  claimed: bigint | null;
  /** The price of a call when the channel was opened: a call priced above it asks the person (null for channels recorded before it was kept: the opening requirement's amount). */
  price: bigint;
  createdAt: Date;
};

type ChannelRow = {
  channel_id: string;
  wallet: string;
  network: string;
  config: ChannelConfigRecord;
  requirements: ChannelRequirements;
  service_name: string;
  service_url: string;
  deposit_payment_id: string;
  deposit: string;
  vouched: string;
  charged: string;
  state: ChannelState;
  withdraw_requested_at: Date | string | null;
  close_tx: string | null;
  claimed: string | null;
  price: string | null;
  created_at: Date | string;
};

const channelColumns = `channel_id, wallet, network, config, requirements, service_name, service_url, deposit_payment_id, deposit::text AS deposit,
  vouched::text AS vouched, charged::text AS charged, state, withdraw_requested_at, close_tx, claimed::text AS claimed, price::text AS price, created_at`;

function toChannel(row: ChannelRow): ChannelRecord {
  return {
    channelId: row.channel_id,
    wallet: row.wallet,
    network: row.network,
    config: row.config,
    requirements: row.requirements,
    serviceName: row.service_name,
    serviceUrl: row.service_url,
    depositPaymentId: row.deposit_payment_id,
    deposit: BigInt(row.deposit),
    vouched: BigInt(row.vouched),
    charged: BigInt(row.charged),
    state: row.state,
    withdrawRequestedAt: row.withdraw_requested_at === null ? null : new Date(row.withdraw_requested_at),
    closeTx: row.close_tx,
    claimed: row.claimed === null ? null : BigInt(row.claimed),
    price: row.price === null ? openingAmountOf(row.requirements) : BigInt(row.price),
    createdAt: new Date(row.created_at),
  };
}

/** The amount a channel's opening requirement asked per call, for a channel recorded before its price was kept. */
function openingAmountOf(requirements: ChannelRequirements): bigint {
  const amount: unknown = requirements.amount;
  return typeof amount === "string" && /^\d{1,78}$/.test(amount) ? BigInt(amount) : 0n;
}

/** A channel id as it is stored: lower-case hex. */
const channelKey = (channelId: string) => channelId.toLowerCase();

/** A channel as it is recorded: its identity, the service and the deposit (the payment row reserved first, against the limits, like any payment). */
export type NewChannel = Pick<ChannelRecord, "channelId" | "wallet" | "network" | "config" | "requirements" | "serviceName" | "serviceUrl" | "depositPaymentId" | "deposit"> & {
  /** The call the deposit pays first (its price is the channel's opening price): its voucher travels with the deposit. */
  firstCall: { callId: string; amount: bigint; boundTo?: string | undefined };
};

/**
 * Records a channel being opened, with the voucher of its first call: `opening` until the chain
 * shows the deposit. The same channel id recorded again returns the first record.
 */
export async function openChannel(db: Database, channel: NewChannel): Promise<{ kind: "opened" | "existing"; channel: ChannelRecord }> {
  if (channel.firstCall.amount > channel.deposit) throw new Error("a channel's first call costs more than its deposit");
  return db.transaction(async (tx) => {
    const [row] = await tx.query<ChannelRow>(
      `INSERT INTO channels (channel_id, wallet, network, config, requirements, service_name, service_url, deposit_payment_id, deposit, vouched, price, state)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, 'opening')
       ON CONFLICT (channel_id) DO NOTHING
       RETURNING ${channelColumns}`,
      [
        channelKey(channel.channelId),
        walletKey(channel.wallet),
        channel.network,
        JSON.stringify(channel.config),
        JSON.stringify(channel.requirements),
        channel.serviceName,
        channel.serviceUrl,
        channel.depositPaymentId,
        channel.deposit.toString(),
        channel.firstCall.amount.toString(),
      ],
    );
    if (!row) {
      const existing = await findChannel(tx, channel.channelId);
      if (!existing) throw new Error("a channel neither recorded nor found");
      return { kind: "existing", channel: existing };
    }
    await tx.query("INSERT INTO channel_calls (call_id, channel_id, amount, cumulative, status, bound_to) VALUES ($1, $2, $3, $3, 'vouched', $4)", [
      channel.firstCall.callId,
      channelKey(channel.channelId),
      channel.firstCall.amount.toString(),
      channel.firstCall.boundTo ?? null,
    ]);
    return { kind: "opened", channel: toChannel(row) };
  });
}

export async function findChannel(db: Queryable, channelId: string): Promise<ChannelRecord | undefined> {
  const [row] = await db.query<ChannelRow>(`SELECT ${channelColumns} FROM channels WHERE channel_id = $1`, [channelKey(channelId)]);
  return row ? toChannel(row) : undefined;
}

/** How many calls a channel paid, as its listing counts them (channelsOf). */
export async function channelCallCount(db: Queryable, channelId: string): Promise<number> {
  const [row] = await db.query<{ calls: number }>("SELECT count(*)::int AS calls FROM channel_calls WHERE channel_id = $1", [channelId]);
  return Number(row?.calls ?? 0);
}

/** A wallet's channels, newest first (at most `limit`): each one's deposit, what was vouched and charged, its state and how many calls it paid. */
export async function channelsOf(db: Queryable, wallet: string, { limit = 20 }: { limit?: number } = {}): Promise<(ChannelRecord & { calls: number })[]> {
  const rows = await db.query<ChannelRow & { calls: number }>(
    `SELECT ${channelColumns}, (SELECT count(*) FROM channel_calls c WHERE c.channel_id = channels.channel_id)::int AS calls
     FROM channels WHERE wallet = $1 ORDER BY created_at DESC LIMIT $2`,
    [walletKey(wallet), limit],
  );
  return rows.map((row) => ({ ...toChannel(row), calls: Number(row.calls) }));
}

/** What a hold is bound to beside its payer: the service it was opened for (its origin) and its whole payment option but the amount. */
export type HoldBinding = { serviceOrigin: string; requirements: ChannelRequirements };

/**
 * The channel a quote would pay through: this wallet's with this service's receiver on this
 * network, its vouchers signed by this channel key, open or opening (newest first), and opened
 * for this same service: at the same origin, on the same payment option but its amount. A service
 * that names another's receiver draws on nothing of it. Undefined when there is none.
 */
export async function findLiveChannel(
  db: Queryable,
  { wallet, network, receiver, channelKey: key, binding }: { wallet: string; network: string; receiver: string; channelKey: string; binding: HoldBinding },
): Promise<(ChannelRecord & { state: "opening" | "open" }) | undefined> {
  const [row] = await db.query<ChannelRow & { state: "opening" | "open" }>(
    `SELECT ${channelColumns} FROM channels
     WHERE wallet = $1 AND network = $2 AND lower(config->>'receiver') = lower($3) AND lower(config->>'payerAuthorizer') = lower($4)
       AND state IN ('opening', 'open')
       AND (service_url = $5 OR starts_with(service_url, $5 || '/') OR starts_with(service_url, $5 || '?'))
       AND (requirements - 'amount') = ($6::jsonb - 'amount')
     ORDER BY created_at DESC LIMIT 1`,
    [walletKey(wallet), network, receiver, key, binding.serviceOrigin, JSON.stringify(binding.requirements)],
  );
  return row ? { ...toChannel(row), state: row.state } : undefined;
}

export type ChannelCallRecord = { callId: string; channelId: string; amount: bigint; cumulative: bigint; charged: bigint | null; status: "vouched" | "charged" | "failed"; createdAt: Date };

/** One call paid through a channel, if recorded. */
export async function findChannelCall(db: Queryable, callId: string): Promise<ChannelCallRecord | undefined> {
  const [row] = await db.query<{ call_id: string; channel_id: string; amount: string; cumulative: string; charged: string | null; status: ChannelCallRecord["status"]; created_at: Date | string }>(
    "SELECT call_id, channel_id, amount::text AS amount, cumulative::text AS cumulative, charged::text AS charged, status, created_at FROM channel_calls WHERE call_id = $1",
    [callId],
  );
  if (!row) return undefined;
  return {
    callId: row.call_id,
    channelId: row.channel_id,
    amount: BigInt(row.amount),
    cumulative: BigInt(row.cumulative),
    charged: row.charged === null ? null : BigInt(row.charged),
    status: row.status,
    createdAt: new Date(row.created_at),
  };
}

/** The channels these payments opened (their deposits), with each one's calls, oldest first (at most `calls` each). */
export async function channelsOfDeposits(
  db: Queryable,
  paymentIds: readonly string[],
  { calls = 200 }: { calls?: number } = {},
): Promise<Map<string, { channel: ChannelRecord; calls: ChannelCallRecord[] }>> {
  const found = new Map<string, { channel: ChannelRecord; calls: ChannelCallRecord[] }>();
  if (paymentIds.length === 0) return found;
  const rows = await db.query<ChannelRow>(`SELECT ${channelColumns} FROM channels WHERE deposit_payment_id = ANY($1::text[])`, [paymentIds]);
  for (const row of rows) found.set(row.deposit_payment_id, { channel: toChannel(row), calls: [] });
  if (found.size === 0) return found;
  const byChannel = new Map([...found.values()].map((entry) => [entry.channel.channelId, entry]));
  const callRows = await db.query<{ call_id: string; channel_id: string; amount: string; cumulative: string; charged: string | null; status: ChannelCallRecord["status"]; created_at: Date | string }>(
    `SELECT call_id, channel_id, amount::text AS amount, cumulative::text AS cumulative, charged::text AS charged, status, created_at
     FROM (SELECT *, row_number() OVER (PARTITION BY channel_id ORDER BY created_at, cumulative) AS n FROM channel_calls WHERE channel_id = ANY($1::text[])) numbered
     WHERE n <= $2 ORDER BY created_at, cumulative`,
    [[...byChannel.keys()], calls],
  );
  for (const row of callRows) {
    byChannel.get(row.channel_id)?.calls.push({
      callId: row.call_id,
      channelId: row.channel_id,
      amount: BigInt(row.amount),
      cumulative: BigInt(row.cumulative),
      charged: row.charged === null ? null : BigInt(row.charged),
      status: row.status,
      createdAt: new Date(row.created_at),
    });
  }
  return found;
}

/** The longest a channel that keeps answering the same waits between two looks. */
export const MAX_LOOK_BACKOFF_MS = 60 * 60 * 1000;
/** The wait after the first look that changed nothing, doubled after each further one. */
export const FIRST_LOOK_BACKOFF_MS = 60 * 1000;

/**
 * Channels whose end the chain must tell: opening (is the deposit there?), closing or withdrawing
 * (is the rest back?). Taken in turn by when they were last looked at (never looked at first),
 * skipping those backing off, and each taken is marked looked at now, so however many are stuck
 * every channel gets its look within a few sweeps.
 */
export async function channelsToSettle(db: Queryable, { limit = 20, now = new Date() }: { limit?: number; now?: Date } = {}): Promise<ChannelRecord[]> {
  const rows = await db.query<ChannelRow>(
    `UPDATE channels SET looked_at = $2
     WHERE channel_id IN (
       SELECT channel_id FROM channels
       WHERE state IN ('opening', 'closing', 'withdrawing') AND (look_after IS NULL OR look_after <= $2)
       ORDER BY looked_at ASC NULLS FIRST, created_at ASC LIMIT $1)
     RETURNING ${channelColumns}`,
    [limit, now.toISOString()],
  );
  return rows.map(toChannel);
}

/** Looks in a row that changed nothing before a channel starts to wait between looks. */
const LOOKS_BEFORE_BACKOFF = 3;

/**
 * After a look: one that changed the channel's state is looked at again at the next sweep; one
 * that changed nothing, the third time in a row, waits a minute, and twice as long after each
 * further one, at most an hour.
 */
export async function markChannelLooked(db: Queryable, { channelId, changed, now = new Date() }: { channelId: string; changed: boolean; now?: Date }): Promise<void> {
  await db.query(
    `UPDATE channels SET
       unchanged_looks = CASE WHEN $2 THEN 0 ELSE LEAST(unchanged_looks + 1, 30) END,
       look_after = CASE WHEN $2 OR unchanged_looks + 1 < $6 THEN NULL
         ELSE $3::timestamptz + LEAST($4::bigint * power(2, LEAST(unchanged_looks + 1 - $6, 20))::bigint, $5::bigint) * interval '1 millisecond' END
     WHERE channel_id = $1`,
    [channelKey(channelId), changed, now.toISOString(), FIRST_LOOK_BACKOFF_MS, MAX_LOOK_BACKOFF_MS, LOOKS_BEFORE_BACKOFF],
  );
}

/** A channel whose deposit never landed (its payment failed or was released): closed, with nothing in it. */
export async function abandonChannel(db: Queryable, channelId: string): Promise<void> {
  await db.query("UPDATE channels SET state = 'closed', updated_at = now() WHERE channel_id = $1 AND state = 'opening'", [channelKey(channelId)]);
}

/** The chain shows the deposit: the channel takes vouchers. */
export async function markChannelOpen(db: Queryable, channelId: string): Promise<void> {
  await db.query("UPDATE channels SET state = 'open', updated_at = now() WHERE channel_id = $1 AND state = 'opening'", [channelKey(channelId)]);
}

export type VouchResult =
  | { kind: "vouched"; cumulative: bigint }
  /** The same call vouched before: its voucher, again. */
  | { kind: "existing"; cumulative: bigint }
  /** The deposit does not cover it: what is left of it. */
  | { kind: "exhausted"; left: bigint }
  /** Another call vouched since this one was quoted on `expected`: quote again on the new base. */
  | { kind: "moved"; vouched: bigint }
  | { kind: "closed"; state: ChannelState }
  /** The draw would pass a limit of the door it was asked through: nothing is taken. */
  | { kind: "limit-exceeded"; breach: LimitBreach };

/**
 * Takes the next voucher of an open channel for one call, atomically: its cumulative maximum is
 * what this ledger vouched so far plus the call's price, never more than the deposit, and never
 * past a limit of the door it was asked through (`limits`, counted over `wallets` as a draw,
 * findDrawBreach), under the wallets' lock that reservations take, so draws and payments at once
 * pass no limit together. `expected`: the base the call was quoted on; when another call vouched
 * since, nothing is taken. `boundTo`: what the door bound its approval to (an AI app's grant).
 */
export async function vouch(
  db: Database,
  {
    channelId,
    callId,
    amount,
    expected,
    limits,
    wallets,
    boundTo,
    now = new Date(),
  }: { channelId: string; callId: string; amount: bigint; expected: bigint; limits: SpendingLimits; wallets: readonly string[]; boundTo?: string | undefined; now?: Date },
): Promise<VouchResult> {
  if (amount < 0n) throw new Error("a voucher for a negative amount");
  const keys = walletKeys([...wallets]);
  return db.transaction(async (tx) => {
    for (const key of keys) await tx.query("SELECT pg_advisory_xact_lock(hashtext($1))", [key]);
    const [previous] = await tx.query<{ cumulative: string }>("SELECT cumulative::text AS cumulative FROM channel_calls WHERE call_id = $1", [callId]);
    if (previous) return { kind: "existing", cumulative: BigInt(previous.cumulative) };
    const [row] = await tx.query<ChannelRow>(`SELECT ${channelColumns} FROM channels WHERE channel_id = $1 FOR UPDATE`, [channelKey(channelId)]);
    if (!row) throw new Error(`no channel ${channelId}`);
    const channel = toChannel(row);
    if (channel.state !== "open") return { kind: "closed", state: channel.state };
    if (channel.vouched !== expected) return { kind: "moved", vouched: channel.vouched };
    const cumulative = channel.vouched + amount;
    if (cumulative > channel.deposit) return { kind: "exhausted", left: channel.deposit - channel.vouched };
    const breach = await findDrawBreach(tx, { wallet: keys, amount, limits, now });
    if (breach) return { kind: "limit-exceeded", breach };
    await tx.query("UPDATE channels SET vouched = $2, updated_at = now() WHERE channel_id = $1", [channel.channelId, cumulative.toString()]);
    await tx.query("INSERT INTO channel_calls (call_id, channel_id, amount, cumulative, status, bound_to, created_at) VALUES ($1, $2, $3, $4, 'vouched', $5, $6)", [
      callId,
      channel.channelId,
      amount.toString(),
      cumulative.toString(),
      boundTo ?? null,
      now.toISOString(),
    ]);
    return { kind: "vouched", cumulative };
  });
}

/**
 * A call's answer: what the service said it charged, held to what was vouched for that call
 * (a service's larger figure counts as the voucher's, since nothing past it can be claimed).
 * Once only; a call already answered is left as it is.
 */
export async function markCallCharged(db: Database, { callId, charged }: { callId: string; charged: bigint }): Promise<void> {
  await db.transaction(async (tx) => {
    const [call] = await tx.query<{ channel_id: string; amount: string }>(
      "SELECT channel_id, amount::text AS amount FROM channel_calls WHERE call_id = $1 AND status = 'vouched' FOR UPDATE",
      [callId],
    );
    if (!call) return;
    const counted = charged < 0n ? 0n : charged > BigInt(call.amount) ? BigInt(call.amount) : charged;
    await tx.query("UPDATE channel_calls SET status = 'charged', charged = $2 WHERE call_id = $1", [callId, counted.toString()]);
    await tx.query("UPDATE channels SET charged = LEAST(charged + $2, vouched), updated_at = now() WHERE channel_id = $1", [call.channel_id, counted.toString()]);
  });
}

/**
 * A call the service did not charge (it could not be reached, or answered with a failure, which
 * by the scheme's rule leaves its charged total where it was): the voucher's amount is taken back,
 * so the next voucher is built on what the service charged, as it expects. Only the latest
 * voucher can be taken back; one that another call vouched after stays vouched (and failed). The
 * deposit counts in full whatever this says, and the close counts what the chain shows claimed.
 */
export async function unvouch(db: Database, callId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [call] = await tx.query<{ channel_id: string; amount: string; cumulative: string }>(
      "SELECT channel_id, amount::text AS amount, cumulative::text AS cumulative FROM channel_calls WHERE call_id = $1 AND status = 'vouched'",
      [callId],
    );
    if (!call) return false;
    const [row] = await tx.query<{ vouched: string }>("SELECT vouched::text AS vouched FROM channels WHERE channel_id = $1 FOR UPDATE", [call.channel_id]);
    const latest = row !== undefined && BigInt(row.vouched) === BigInt(call.cumulative);
    if (latest) {
      await tx.query("UPDATE channels SET vouched = vouched - $2, updated_at = now() WHERE channel_id = $1", [call.channel_id, call.amount]);
    }
    await tx.query("UPDATE channel_calls SET status = 'failed', charged = 0 WHERE call_id = $1", [callId]);
    return latest;
  });
}

/**
 * A call whose service did not answer it: its voucher stays vouched (it was signed and sent, so
 * the service may still claim up to it), and the call is listed as failed.
 */
export async function markCallFailed(db: Queryable, callId: string): Promise<void> {
  await db.query("UPDATE channel_calls SET status = 'failed' WHERE call_id = $1 AND status = 'vouched'", [callId]);
}

/** A cooperative refund asked for, or the payer's withdrawal started (at `at`): the channel takes no more vouchers. */
export async function markChannelClosing(db: Queryable, channelId: string, { withdrawal }: { withdrawal?: Date } = {}): Promise<void> {
  await db.query(
    `UPDATE channels SET state = $2, withdraw_requested_at = COALESCE($3, withdraw_requested_at), updated_at = now()
     WHERE channel_id = $1 AND state IN ('opening', 'open', 'closing', 'withdrawing')`,
    [channelKey(channelId), withdrawal ? "withdrawing" : "closing", withdrawal ?? null],
  );
}

/**
 * The chain shows the channel emptied (the refund or the withdrawal, `txHash`) after `claimed`
 * went to the service: the deposit's payment is settled at `claimed`, so the rest is released
 * from the limits, and the channel is closed. Once only.
 */
export async function closeChannel(
  db: Database,
  { channelId, claimed, txHash, now = new Date() }: { channelId: string; claimed: bigint; txHash: string; now?: Date },
): Promise<ChannelRecord | undefined> {
  return db.transaction(async (tx) => {
    const [row] = await tx.query<ChannelRow>(`SELECT ${channelColumns} FROM channels WHERE channel_id = $1 FOR UPDATE`, [channelKey(channelId)]);
    if (!row) return undefined;
    const channel = toChannel(row);
    if (channel.state === "closed") return channel;
    if (claimed < 0n || claimed > channel.deposit) throw new Error("a channel claimed outside its deposit");
    const [closed] = await tx.query<ChannelRow>(
      `UPDATE channels SET state = 'closed', close_tx = $2, claimed = $4, updated_at = $3 WHERE channel_id = $1 RETURNING ${channelColumns}`,
      [channel.channelId, txHash, now, claimed.toString()],
    );
    await tx.query(
      `UPDATE payments SET amount = $2, max_amount = GREATEST(COALESCE(max_amount, 0), amount), status = 'settled',
         settled_at = COALESCE(settled_at, $3), updated_at = $3
       WHERE payment_id = $1`,
      [channel.depositPaymentId, claimed.toString(), now],
    );
    return closed ? toChannel(closed) : undefined;
  });
}
