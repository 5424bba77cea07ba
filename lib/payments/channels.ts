// Pay-as-you-go channels (x402 `batch-settlement`; docs/contract.md, section 15) in the payment
// core, beside the one-payment flow they share their quote and approval with. Opening a channel is
// a payment like any other (./delivery.ts sends its deposit, which the limits count in full), with
// the channel recorded beside its reservation (`recordOpening`) and opened once the deposit is
// settled (`settleOpening`). A call on an open channel is paid here (`sendChannelCall`): the
// ledger takes its voucher atomically on the base it was quoted on, the service gets the voucher,
// and nothing new is reserved, since its money is the deposit's. Closing sends a cooperative
// refund the page's channel key signed (`closeChannelCooperatively`); the chain, read by the sweep
// (`settleChannels`), says when the rest came back, and only then is it released.
import type { Database } from "@/lib/db";
import { beforeDeadline } from "@/lib/deadline";
import type { ServerEnv } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { formatDollars } from "@/lib/money";
import { readServiceBody, ServiceUnreachableError, type ServiceCall } from "@/lib/net/service-call";
import { preparedOf, type FreshApproval } from "./approval";
import type { ApprovalClaims } from "./approval-token";
import type { SpendingLimits } from "./limits";
import { describeBreach } from "./preflight";

import { deliveredOutcome, type SentPayment } from "./delivery";
import { findPayment, type PaymentRecord } from "./ledger";
import {
  abandonChannel,
  channelsToSettle,
  closeChannel,
  findChannel,
  markCallCharged,
  markCallFailed,
  markChannelClosing,
  markChannelLooked,
  unvouch,
  markChannelOpen,
  openChannel,
  vouch,
  type ChannelRecord,
} from "./ledger/channels";
import type { PaymentOutcome, PaymentUpdate, WalletRequest } from "./payment";
import { protocolOfScheme } from "./protocols";
import { paymentRails, type RailEnv } from "./rails";
import type { ChannelScheme } from "./rails/rail";

export { channelView, type ChannelView } from "./channel-view";

/**
 * The channel an opening's deposit opens, recorded with its reservation and before the deposit is
 * sent, so a server that stops now still knows it (the sweep opens it once the deposit is settled).
 */
export function recordOpening(db: Database, env: RailEnv, claims: ApprovalClaims): (record: PaymentRecord) => Promise<void> {
  return async (record) => {
    const channel = claims.channel;
    if (!channel?.opening) return;
    const found = paymentRails(env).findScheme(claims.network, claims.scheme ?? "");
    if (!found?.scheme.channel) throw new Error("an opening in a scheme without channels");
    const config = found.scheme.channel.configOf(claims.payload);
    await openChannel(db, {
      channelId: channel.id,
      wallet: claims.wallet,
      network: claims.network,
      config,
      requirements: claims.payload.accepted,
      serviceName: claims.service.name,
      serviceUrl: claims.service.url,
      depositPaymentId: record.paymentId,
      deposit: BigInt(channel.deposit),
      firstCall: { callId: claims.paymentId, amount: BigInt(channel.price), boundTo: claims.binding },
    });
  };
}

/**
 * An opening whose deposit's outcome is known: settled, the channel takes vouchers (and its first
 * call was charged with it); failed, it never held anything. Still pending: left as it is.
 */
export async function settleOpening(db: Database, channelId: string): Promise<void> {
  const channel = await findChannel(db, channelId);
  if (channel?.state !== "opening") return;
  const deposit = await findPayment(db, channel.depositPaymentId);
  if (deposit?.status === "settled") {
    await markChannelOpen(db, channelId);
    await markCallCharged(db, { callId: channel.depositPaymentId, charged: channel.vouched });
  } else if (deposit?.status === "failed") {
    await abandonChannel(db, channelId);
  }
}

export type SendChannelCallParameters = {
  db: Database;
  env: ServerEnv;
  approval: FreshApproval;
  /** The limits of the door the call was asked through: the draw is held to them as a payment of its price. */
  limits: SpendingLimits;
  now?: Date;
  signal?: AbortSignal;
  paidCallTimeoutMs?: number;
};

/**
 * One call on an open channel. The ledger takes the next voucher on the base the call was quoted
 * on, atomically (never past the deposit, never twice for one call); then the service gets it.
 * Refused before anything is sent when the channel moved on, is used up or is closing.
 */
export async function sendChannelCall({ db, env, approval, limits, now, signal, paidCallTimeoutMs }: SendChannelCallParameters): Promise<SentPayment> {
  const { claims, facts, rail, scheme } = approval;
  const channel = claims.channel;
  if (!channel || channel.opening) throw new Error("not a call on an open channel");
  const price = BigInt(channel.price);
  const taken = await beforeDeadline(
    vouch(db, {
      channelId: channel.id,
      callId: claims.paymentId,
      amount: price,
      expected: BigInt(channel.expected),
      limits,
      wallets: [claims.wallet, ...(claims.countedWith ?? [])],
      boundTo: claims.binding,
      ...(now ? { now } : {}),
    }),
    signal,
  );
  const name = claims.service.name;
  if (taken.kind === "limit-exceeded") throw new AppError("limit-exceeded", `${describeBreach(taken.breach)} Nothing was taken from your deposit with ${name}.`);
  if (taken.kind === "existing") {
    throw new AppError("bad-request", `This call to ${name} was sent already, by an earlier request for the same approval; it was not paid again.`, {
      details: { fields: [{ path: "payment", message: "was sent before" }] },
    });
  }
  if (taken.kind === "moved") {
    throw new AppError("bad-request", `Another call to ${name} was paid from your deposit since this one was quoted. Nothing was paid; ask again for a fresh quote.`);
  }
  if (taken.kind === "exhausted") {
    throw new AppError("limit-exceeded", `Your deposit with ${name} has ${formatDollars(taken.left)} left, less than this call's ${formatDollars(price)}. Nothing was paid; ask again to open a new deposit.`);
  }
  if (taken.kind === "closed") {
    throw new AppError("bad-request", `Your channel with ${name} is ${taken.state === "opening" ? "still opening" : "being closed"}, so it takes no more calls. Nothing was paid.`);
  }
  const payload = scheme.complete(preparedOf(claims), approval.signed);
  const protocol = protocolOfScheme(claims.scheme);
  const delivery = (async (): Promise<PaymentOutcome> => {
    const failed = async (message: string, { charged }: { charged: "maybe" | "no" } = { charged: "maybe" }): Promise<PaymentOutcome> => {
      // A failure the service answered charged nothing (the scheme charges on success only): its
      // voucher is taken back. One it may have taken in silence stays vouched.
      if (charged === "no") await unvouch(db, claims.paymentId).catch(() => markCallFailed(db, claims.paymentId));
      else await markCallFailed(db, claims.paymentId);
      const update: PaymentUpdate = { facts, stage: "failed", reason: { code: charged === "no" ? "service-unavailable" : "not-delivered", message } };
      return { updates: [update], end: charged === "no" ? "service-unavailable" : "payment-failed", txHash: undefined, explorerUrl: undefined, report: { status: "failed", summary: message } };
    };
    const signedFor = `Its voucher of ${formatDollars(price)} was signed and sent, so ${name} may still claim it from your deposit.`;
    let response: Response;
    try {
      response = await protocol.callPaid(claims.service, payload, {
        allowPrivate: env.X402_ALLOW_PRIVATE_ADDRESSES,
        ...(paidCallTimeoutMs === undefined ? {} : { timeoutMs: paidCallTimeoutMs }),
      });
    } catch (error) {
      // Never connected: the voucher never left this server.
      if (error instanceof ServiceUnreachableError && error.neverConnected) return failed(`${error.message} Nothing was paid.`, { charged: "no" });
      return failed(`${name} did not answer. ${signedFor}`);
    }
    const settlement = await protocol.readSettlement(response);
    let data: unknown;
    try {
      data = await readServiceBody(response);
    } catch {
      return failed(`${name}'s answer broke off. ${signedFor}`);
    }
    if (response.status === 402) {
      // The service's record of the channel differs from this ledger's (a call it charged while its
      // answer was lost): nothing is taken back, and the person can close the channel.
      return failed(`${name} refused the voucher: its record of your deposit differs from this one. ${signedFor} If it happens again, close the channel in Channels to get the rest back.`);
    }
    if (!response.ok || settlement?.success === false) {
      return failed(
        `${name} failed (HTTP ${response.status}) and did not deliver. The scheme charges delivered calls only, and your next call on this deposit is built on the same voucher, so this one is never paid on its own. Ask again to try once more.`,
        { charged: "no" },
      );
    }
    // What the service says it charged counts up to the voucher, never past it. Written beside
    // the answer rather than before it: the deposit counts in full whatever this row says, and
    // the next voucher's base was taken when this one was.
    const charged = settlement?.amount !== undefined && /^\d{1,30}$/.test(settlement.amount) ? BigInt(settlement.amount) : price;
    void markCallCharged(db, { callId: claims.paymentId, charged }).catch(() => undefined);
    return deliveredOutcome(facts, undefined, data, undefined);
  })();
  return { kind: "sent", claims, facts, rail, scheme, delivery };
}

/** The refund voucher a close asks the channel key to sign: of what the ledger vouched, so the rest of the deposit comes back. */
async function refundOf(channel: ChannelRecord, scheme: ChannelScheme) {
  return scheme.refund({ requirements: channel.requirements, config: channel.config, charged: channel.vouched });
}

/** The rail and scheme a recorded channel is paid in: the scheme its requirement named when it was opened. */
function schemeOf(env: RailEnv, channel: ChannelRecord) {
  const found = paymentRails(env).findScheme(channel.network, channel.requirements.scheme);
  if (!found?.scheme.channel) throw new AppError("bad-request", "This channel's network is not enabled here.");
  return { ...found, channel: found.scheme.channel };
}

/** What the page's channel key signs to close a channel of this wallet's (the refund voucher). */
export async function prepareChannelClose({ db, env, wallet, channelId }: { db: Database; env: RailEnv; wallet: string; channelId: string }): Promise<{ channel: ChannelRecord; toSign: WalletRequest[] }> {
  const channel = await ownChannel(db, wallet, channelId);
  return { channel, toSign: (await refundOf(channel, schemeOf(env, channel).channel)).toSign };
}

async function ownChannel(db: Database, wallet: string, channelId: string): Promise<ChannelRecord> {
  const channel = await findChannel(db, channelId);
  if (!channel || channel.wallet.toLowerCase() !== wallet.toLowerCase()) throw new AppError("not-found", "No such channel of this wallet's.");
  return channel;
}

/**
 * Closes a channel by a cooperative refund: the refund voucher, signed by the channel key, goes
 * to the service, whose facilitator returns what was not claimed. The channel takes no more calls
 * from now; it is closed (and the rest released from the limits) when the chain shows the refund.
 */
export async function closeChannelCooperatively({
  db,
  env,
  wallet,
  channelId,
  signed,
}: {
  db: Database;
  env: ServerEnv;
  wallet: string;
  channelId: string;
  signed: string;
}): Promise<ChannelRecord> {
  const channel = await ownChannel(db, wallet, channelId);
  if (channel.state === "closed") return channel;
  if (channel.state === "opening") throw new AppError("bad-request", "This channel's deposit is still being confirmed; close it in a moment.");
  const { scheme, network, channel: channelScheme } = schemeOf(env, channel);
  const refund = await refundOf(channel, channelScheme);
  const verdict = await scheme.verify({ network, payer: wallet, amount: 0n, prepared: refund, signed: [signed] });
  if (!verdict.valid) {
    throw new AppError("bad-request", "The refund is not signed by this channel's key. Nothing was changed.", { details: { fields: [{ path: "signed.0", message: "is not the channel key's signature of the refund" }] } });
  }
  await markChannelClosing(db, channelId);
  const call: ServiceCall = { url: channel.serviceUrl, method: "GET" };
  const response = await protocolOfScheme(scheme.scheme)
    .callPaid(call, scheme.complete(refund, [signed]), { allowPrivate: env.X402_ALLOW_PRIVATE_ADDRESSES })
    .catch(() => undefined);
  await response?.body?.cancel().catch(() => undefined);
  await settleChannel(db, env, (await findChannel(db, channelId)) ?? channel);
  return (await findChannel(db, channelId)) ?? channel;
}

/**
 * A channel's end as the chain tells it: emptied for the payer after money came back (a refund or
 * a withdrawal), it is closed and its deposit's payment settled at what was claimed; a withdrawal
 * under way is noted. An opening is settled from its deposit's payment.
 */
async function settleChannel(db: Database, env: RailEnv, channel: ChannelRecord): Promise<void> {
  if (channel.state === "opening") return settleOpening(db, channel.channelId);
  const found = schemeOf(env, channel);
  if (!found.network.readable) return;
  const onChain = await found.channel.read({ network: found.network, channelId: channel.channelId });
  if (onChain.withdrawal && channel.state !== "withdrawing") {
    await markChannelClosing(db, channel.channelId, { withdrawal: new Date(onChain.withdrawal.initiatedAt * 1000) });
  }
  if (onChain.left > 0n || onChain.withdrawal) return;
  // The search starts where the deposit's quote did: nothing of this channel's can be older.
  const fromBlock = (await findPayment(db, channel.depositPaymentId))?.fromBlock ?? 0n;
  const returned = await found.channel.returned({ network: found.network, channelId: channel.channelId, fromBlock });
  const last = returned.at(-1);
  if (!last) return;
  await closeChannel(db, { channelId: channel.channelId, claimed: onChain.totalClaimed, txHash: last.txHash });
}

/** A contract call the wallet sends itself, with its gas. */
export type WalletCall = { contract: string; functionName: string; args: unknown[] };

/**
 * The payer's own way back, without the service: asking for a withdrawal of what is unclaimed on
 * chain, then, once the channel's delay has passed, taking it. What the wallet sends next, or
 * until when it must wait; nothing when the chain shows the channel emptied already.
 */
export async function prepareWithdrawal({
  db,
  env,
  wallet,
  channelId,
  now = new Date(),
}: {
  db: Database;
  env: RailEnv;
  wallet: string;
  channelId: string;
  now?: Date;
}): Promise<{ channel: ChannelRecord; call?: WalletCall; waitUntil?: Date }> {
  const channel = await ownChannel(db, wallet, channelId);
  if (channel.state === "closed" || channel.state === "opening") return { channel };
  const found = schemeOf(env, channel);
  const onChain = await found.channel.read({ network: found.network, channelId: channel.channelId });
  const calls = found.channel.withdrawal({ network: found.network, config: channel.config, amount: onChain.left });
  if (onChain.withdrawal) {
    await markChannelClosing(db, channel.channelId, { withdrawal: new Date(onChain.withdrawal.initiatedAt * 1000) });
    const withdrawing = (await findChannel(db, channelId)) ?? channel;
    // The delay runs by the chain's clock, which the contract reads.
    const readyAt = onChain.withdrawal.initiatedAt + channel.config.withdrawDelay;
    const ready = new Date(now.getTime() + (readyAt - onChain.chainTime) * 1000);
    return readyAt > onChain.chainTime ? { channel: withdrawing, waitUntil: ready } : { channel: withdrawing, call: { contract: calls.contract, ...calls.finalize } };
  }
  if (onChain.left === 0n) {
    await settleChannel(db, env, channel);
    return { channel: (await findChannel(db, channelId)) ?? channel };
  }
  return { channel, call: { contract: calls.contract, ...calls.initiate } };
}

/** What the chain says of one channel of this wallet's now, recorded (after the wallet sent a withdrawal's transaction). */
export async function refreshChannel({ db, env, wallet, channelId }: { db: Database; env: RailEnv; wallet: string; channelId: string }): Promise<ChannelRecord> {
  const channel = await ownChannel(db, wallet, channelId);
  await settleChannel(db, env, channel);
  return (await findChannel(db, channelId)) ?? channel;
}

/** The sweep's part for channels: openings, closes and withdrawals the chain may have ended. */
export async function settleChannels({ db, env, now = new Date() }: { db: Database; env: RailEnv; now?: Date }): Promise<number> {
  const channels = await channelsToSettle(db, { now });
  for (const channel of channels) {
    await settleChannel(db, env, channel).catch(() => undefined);
    const after = await findChannel(db, channel.channelId);
    const changed = after !== undefined && (after.state !== channel.state || after.withdrawRequestedAt?.getTime() !== channel.withdrawRequestedAt?.getTime());
    await markChannelLooked(db, { channelId: channel.channelId, changed, now });
  }
  return channels.length;
}
