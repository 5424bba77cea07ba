// One `POST /api/channels` request (docs/contract.md, section 15): what the page does with a
// wallet's pay-as-you-go channel. `close` without `signed` answers the refund voucher the page's
// channel key signs; with it, sends the cooperative refund. `withdraw` answers the contract call
// the wallet sends itself (asking for the unclaimed rest, or taking it after the delay), or until
// when to wait. `refresh` records what the chain says of the channel now. Nothing here moves money
// on the server's word: a close needs the channel key's signature, a withdrawal the wallet's own
// transaction. Every action needs the wallet's own session: a wallet and a channel id are public
// on chain, and the channel (its service, amounts, key, salt) is the wallet's history. Every
// answer, error or not, is JSON that no cache keeps.
import { z } from "zod";
import { evmAddressSchema } from "@/lib/chain/addresses";
import type { Database } from "@/lib/db";
import type { ServerEnv } from "@/lib/env";
import { AppError, toAppError } from "@/lib/errors";
import { readJsonBody } from "@/lib/net/request-body";
import { clientKey, createRateLimiter, type RateLimiter } from "@/lib/rate-limit";
import { isSignedInAs } from "@/lib/session";
import { transactionLink } from "@/lib/payments/spending-report";
import { channelView, closeChannelCooperatively, prepareChannelClose, prepareWithdrawal, refreshChannel } from "@/lib/payments/channels";
import { channelCallCount, type ChannelRecord } from "@/lib/payments/ledger/channels";

const channelRequestSchema = z.strictObject({
  action: z.enum(["close", "withdraw", "refresh"]),
  wallet: evmAddressSchema,
  channelId: z.string().regex(/^0x[0-9a-fA-F]{64}$/, "is not a channel id"),
  signed: z.array(z.string().regex(/^0x[0-9a-fA-F]{130}$/, "is not a signature")).length(1).optional(),
});

/** 30 requests a minute per client: far above a person closing channels. */
export const createChannelsRateLimit = (): RateLimiter => createRateLimiter({ limit: 30, windowMs: 60_000, maxClients: 10_000 });

export type ChannelsDependencies = {
  env: () => ServerEnv;
  database: () => Promise<Database>;
  rateLimit: RateLimiter;
  now?: () => Date;
  log?: (message: string, details?: Record<string, unknown>) => void;
};

const noStore = { "Cache-Control": "no-store" };

export async function handleChannelsRequest(request: Request, deps: ChannelsDependencies): Promise<Response> {
  try {
    const env = deps.env();
    const now = deps.now?.() ?? new Date();
    deps.rateLimit.take(clientKey(request, env), now);
    const json = await readJsonBody(request, { expected: '{ action: "close" | "withdraw" | "refresh", wallet, channelId, signed? }' });
    const parsed = channelRequestSchema.safeParse(json);
    if (!parsed.success) {
      throw new AppError("bad-request", "Send { action, wallet, channelId } (and, to close, the channel key's signature as signed).", {
        details: { fields: parsed.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message })) },
      });
    }
    const { action, wallet, channelId, signed } = parsed.data;
    // Before any database or chain work: a stranger learns nothing of the channel and costs no RPC call.
    if (!isSignedInAs(request, wallet, env, now)) {
      throw new AppError("unauthorized", "A channel is shown and changed only for its wallet's own session: sign in with the wallet in the page first. Nothing was changed.");
    }
    const db = await deps.database();
    // Each answer shows the channel as the listing does, its calls counted.
    const view = async (channel: ChannelRecord) => channelView({ ...channel, calls: await channelCallCount(db, channel.channelId) }, (network, txHash) => transactionLink(network, txHash, env));
    if (action === "close") {
      if (!signed) {
        const { channel, toSign } = await prepareChannelClose({ db, env, wallet, channelId });
        return Response.json({ channel: await view(channel), toSign }, { headers: noStore });
      }
      const channel = await closeChannelCooperatively({ db, env, wallet, channelId, signed: signed[0] as string });
      return Response.json({ channel: await view(channel) }, { headers: noStore });
    }
    if (action === "withdraw") {
      const { channel, call, waitUntil } = await prepareWithdrawal({ db, env, wallet, channelId, now });
      return Response.json({ channel: await view(channel), ...(call ? { call } : {}), ...(waitUntil ? { waitUntil: waitUntil.toISOString() } : {}) }, { headers: noStore });
    }
    return Response.json({ channel: await view(await refreshChannel({ db, env, wallet, channelId })) }, { headers: noStore });
  } catch (error) {
    const appError = toAppError(error);
    if (appError.status >= 500) deps.log?.("channels request failed", { code: appError.code });
    const response = appError.toResponse();
    response.headers.set("Cache-Control", "no-store");
    return response;
  }
}
