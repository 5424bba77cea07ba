/**
 * What a channel service (x402 `batch-settlement`, ServiceDefinition.channel) keeps of its
 * channels: @x402/evm's own server scheme with its in-memory channel storage (the vouchers, the
 * charged totals), the service's receiver-authorizer key (its payee's, which signs its claims and
 * refunds; the sandbox facilitator signs none), its claiming cadence, and a record of the claims
 * and sweeps it sent. Claims and sweeps run after the answer that triggered them has gone, one at
 * a time, never on a payer's request path.
 */
import { decodePaymentSignatureHeader } from "@x402/core/http";
import { HTTPFacilitatorClient } from "@x402/core/server";
import { BatchSettlementEvmScheme, InMemoryChannelStorage } from "@x402/evm/batch-settlement/server";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { CHANNEL_WITHDRAW_DELAY_SECONDS } from "../batch-settlement";
import { SANDBOX_NETWORK } from "../chain";
import type { ChannelTerms } from "./definition";

/** The facilitator's answer to a sweep with nothing claimed and unswept (@x402/evm's error code, not exported by it). */
const NOTHING_TO_SETTLE = "invalid_batch_settlement_evm_nothing_to_settle";

/** What a channel service sent on chain through the facilitator, in order, and what failed. */
export type ChannelActivity = {
  /** Each batch of vouchers claimed: how many channels, and the claim's transaction. */
  claims: { vouchers: number; transaction: string }[];
  /** Each sweep of claimed funds to the payee. */
  sweeps: { transaction: string }[];
  /** Claims or sweeps the facilitator refused, by message. */
  failures: string[];
};

export type ChannelKeeper = {
  scheme: BatchSettlementEvmScheme;
  /** A paid call settled (a deposit or a voucher): every `claimEvery` calls, claims and sweeps. */
  paid(): void;
  /** A cooperative refund went through: it claimed the last voucher with it, which this sweeps. */
  refunded(): void;
  /** Whether the request carries a refund payload this service will not answer. */
  refusesRefund(paymentSignature: string | undefined): boolean;
  /** Waits for the claims and sweeps under way, then tells all it sent. */
  activity(): Promise<ChannelActivity>;
};

export function createChannelKeeper({
  name,
  terms,
  payTo,
  payToKey,
  facilitatorUrl,
  usdcAddress,
  log,
}: {
  name: string;
  terms: ChannelTerms;
  payTo: Hex;
  /** The payee's key: the channel's receiverAuthorizer. */
  payToKey: Hex | undefined;
  facilitatorUrl: string;
  usdcAddress: Hex;
  log: (line: string) => void;
}): ChannelKeeper {
  if (!payToKey) throw new Error(`${name} keeps channels, and no key of its payee was given to sign its claims and refunds`);
  const authorizer = privateKeyToAccount(payToKey);
  const scheme = new BatchSettlementEvmScheme(payTo, {
    storage: new InMemoryChannelStorage(),
    receiverAuthorizerSigner: {
      address: authorizer.address,
      signTypedData: (data) => authorizer.signTypedData(data as Parameters<typeof authorizer.signTypedData>[0]),
    },
    withdrawDelay: CHANNEL_WITHDRAW_DELAY_SECONDS,
  });
  const manager = scheme.createChannelManager(new HTTPFacilitatorClient({ url: facilitatorUrl }), SANDBOX_NETWORK, usdcAddress);
  const activity: ChannelActivity = { claims: [], sweeps: [], failures: [] };
  let calls = 0;
  let queue: Promise<void> = Promise.resolve();

  const inTurn = (work: () => Promise<void>) => {
    queue = queue.then(work).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      activity.failures.push(message);
      log(`${name}: ${message}`);
    });
  };

  const sweep = async () => {
    const swept = await manager.settle().catch((error: unknown) => {
      // A refund whose last voucher was claimed already left nothing to sweep: not a failure.
      if (error instanceof Error && error.message.includes(NOTHING_TO_SETTLE)) return undefined;
      throw error;
    });
    if (!swept) return;
    activity.sweeps.push(swept);
    log(`${name}: swept its claims to ${payTo}, tx ${swept.transaction}`);
  };

  return {
    scheme,
    paid: () => {
      calls += 1;
      const every = terms.claimEvery;
      if (every === "never" || calls % every !== 0) return;
      inTurn(async () => {
        const claims = await manager.claim();
        activity.claims.push(...claims);
        for (const claim of claims) log(`${name}: claimed ${claim.vouchers} voucher(s), tx ${claim.transaction}`);
        if (claims.length > 0) await sweep();
      });
    },
    refunded: () => {
      if (terms.claimEvery !== "never") inTurn(sweep);
    },
    refusesRefund: (paymentSignature) => {
      if (terms.refunds || !paymentSignature) return false;
      try {
        const payload = decodePaymentSignatureHeader(paymentSignature).payload as { type?: unknown };
        return payload.type === "refund";
      } catch {
        return false;
      }
    },
    activity: async () => {
      await queue;
      return { claims: [...activity.claims], sweeps: [...activity.sweeps], failures: [...activity.failures] };
    },
  };
}
