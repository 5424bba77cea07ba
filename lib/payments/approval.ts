// Request B of the approval round trip (docs/contract.md, section 4), first half: what an approval is. From
// the token, the ledger and the wallet's answer alone, before anything is reserved: refused, a
// copy of one sent before, expired, or fresh. A door decides from it whether the request counts
// against its cooldown (`countsAsMessage`) and answers all but a fresh one without its agent;
// a fresh one goes on to ./delivery.ts to be paid.
import type { Database } from "@/lib/db";
import type { ServerEnv } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { afterPendingWrites } from "@/lib/pending-writes";
import { sameAddress } from "@/lib/address";
import { agentBudgetRefusal } from "./agent-budget";
import { answerPath, answersFor, type WalletAnswers } from "./answers";
import { channelFactsOf, isChannelCall, payerOf, verifyApproval, type ApprovalClaims } from "./approval-token";
import { findPayment, type PaymentRecord } from "./ledger";
import type { PaymentFacts } from "./payment";
import { checkBalance } from "./preflight";
import { infoOf, protocolOfScheme } from "./protocols";
import { FIRST_SCHEME, paymentRails } from "./rails";
import { ChainUnavailableError, type PaymentRail, type PaymentScheme, type PreparedPayment } from "./rails/rail";

// The facilitator refuses an authorization that expires within 6 s.
const EXPIRY_MARGIN_SECONDS = 6;

/**
 * The approval as a door receives it: the quote's id and token, and the wallet's answers to what
 * the quote asked it to sign (./answers.ts: a list in its order, or the older single fields).
 */
export type ApprovalInput = { paymentId: string; token: string; answers: WalletAnswers };

/** A payment as request B knows it: what was quoted, its facts, and its rail and scheme. */
export type ApprovedPayment = { claims: ApprovalClaims; facts: PaymentFacts; rail: PaymentRail; scheme: PaymentScheme };

/**
 * What an approval is, found before anything is reserved or sent and without the agent: the
 * door decides from it whether the request counts against its cooldown (`countsAsMessage`).
 */
export type CheckedApproval =
  /** Not an approval this server made for this wallet, or not its wallet's signature: a 400. */
  | { kind: "refused"; error: AppError }
  /** Sent before: answered with what happened then, never paid again. */
  | ({ kind: "replay"; record: PaymentRecord } & ApprovedPayment)
  | ({ kind: "expired" } & ApprovedPayment)
  /** Signed by the quoted payer, within its time, never sent: it may be paid. */
  | ({ kind: "fresh"; signed: readonly (string | undefined)[]; chainReads: Promise<ChainReads> } & ApprovedPayment);

export type FreshApproval = Extract<CheckedApproval, { kind: "fresh" }>;

/** What pre-flight reads from the chain before a payment is sent: the payer's balance now, and the point to search from later. */
export type ChainReads = [balance: Awaited<ReturnType<typeof checkBalance>>, checkpoint: bigint | undefined];

export type CheckApprovalParameters = {
  db: Database;
  env: ServerEnv;
  approval: ApprovalInput;
  /** The wallets the request names (one per chain family), if it names any: the quoted one must be among them. */
  wallets: readonly string[];
  /** What the door binds approvals to (the chat: the conversation's digest): it must be what the quote was bound to. */
  binding: string | undefined;
  /**
   * The door's gate before the work that costs (the ledger, the signature check, the chain
   * reads): throws (a `rate-limited` AppError) when this caller has asked too often.
   */
  gate?: () => void;
  now?: Date;
};

export async function checkApproval({ db, env, approval, wallets, binding, gate, now = new Date() }: CheckApprovalParameters): Promise<CheckedApproval> {
  let claims: ApprovalClaims;
  try {
    claims = verifyApproval(approval.token, approval.paymentId, env);
  } catch (error) {
    if (error instanceof AppError) return { kind: "refused", error };
    throw error;
  }
  const payer = payerOf(claims);
  if (wallets.length > 0 && !wallets.some((wallet) => sameAddress(wallet, claims.wallet))) {
    return {
      kind: "refused",
      error: new AppError("bad-request", "This approval was quoted for another wallet.", {
        details: { fields: [{ path: "walletAddress", message: "does not match the approved payment" }] },
      }),
    };
  }
  if (claims.binding !== undefined && claims.binding !== binding) {
    return {
      kind: "refused",
      error: new AppError(
        "bad-request",
        "This approval belongs to another conversation: approve it from the chat that asked for it, with the same messages and model. Nothing was reserved or paid.",
        { details: { fields: [{ path: "messages", message: "do not match the conversation this payment was quoted for" }] } },
      ),
    };
  }
  const found = paymentRails(env).findScheme(claims.network, claims.scheme ?? FIRST_SCHEME);
  if (!found) return { kind: "refused", error: new AppError("bad-request", "This approval is for a network that is not enabled here.") };
  const { rail, scheme, network } = found;
  const facts: PaymentFacts = {
    paymentId: claims.paymentId,
    service: { name: claims.service.name, url: claims.service.url },
    network,
    amount: BigInt(claims.amount),
    ...(scheme.usagePriced ? { upTo: true as const } : {}),
    payTo: claims.payTo,
    protocol: infoOf(protocolOfScheme(claims.scheme)),
    ...(claims.agentBudget ? { paidFrom: "agent-budget" as const } : {}),
    ...(claims.channel ? { channel: channelFactsOf(claims.channel) } : {}),
  };
  const payment: ApprovedPayment = { claims, facts, rail, scheme };
  // Everything above costs a MAC; what follows costs a database query, a signature check and
  // chain reads, so the door's gate comes first.
  gate?.();

  // Past its time: only the ledger is asked (a copy of one sent in time is told its outcome).
  if (now.getTime() / 1000 > claims.expiresAt - EXPIRY_MARGIN_SECONDS) {
    const recorded = await findPayment(db, claims.paymentId);
    return recorded ? { kind: "replay", ...payment, record: recorded } : { kind: "expired", ...payment };
  }

  // The wallet's answers, in the order of what the quote asked it to sign.
  let signed: readonly (string | undefined)[];
  try {
    signed = answersFor(claims.toSign, approval.answers);
  } catch (error) {
    if (error instanceof AppError) return { kind: "refused", error };
    throw error;
  }

  // The chain, the ledger and the signature are asked side by side: on this path they are the
  // slowest steps before the service call. The chain reads (the payer's balance now, and the
  // point to look for the payment from later) are used only if the approval turns out fresh; a
  // copy of an earlier one, or a refused one, wastes two reads at most (and the gate bounds how
  // many such a caller can ask for). A failed balance read is pre-flight's blockchain-error.
  // A call on an open channel spends its deposit, already in the channel: nothing is read of the wallet.
  const chainReads: Promise<ChainReads> = isChannelCall(claims)
    ? Promise.resolve([{ ok: true, balance: 0n }, undefined])
    : Promise.all([
        checkBalance({ rail, network, payer, fromBudget: claims.agentBudget !== undefined, amount: facts.amount }),
        rail.checkpoint(network).catch(() => undefined),
      ]);
  // The reads leave for the chain before the work below holds the event loop (the signature
  // check is CPU work, and so is the ledger's query when the ledger is PGlite, in this process),
  // so that their answers wait for that work, not the reverse.
  await afterPendingWrites();
  const [recorded, refused] = await Promise.allSettled([
    findPayment(db, claims.paymentId),
    (async (): Promise<AppError | undefined> => {
      // The wallet's answer, checked by the payment's scheme as the chain will check it. A refusal
      // is a `bad-request` naming the signature and saying which check refused it, like a
      // forged token; a chain that does not answer is not the person's fault: a
      // `blockchain-error`. Either way nothing is reserved or paid.
      let verdict: Awaited<ReturnType<PaymentScheme["verify"]>>;
      try {
        verdict = await scheme.verify({
          network,
          payer,
          amount: facts.amount,
          prepared: preparedOf(claims),
          signed,
        });
      } catch (error) {
        if (!(error instanceof ChainUnavailableError)) throw error;
        throw new AppError("blockchain-error", `Could not check the payment's signature on ${network.name}: its RPC did not answer. Nothing was paid; please try again.`, { cause: error });
      }
      if (!verdict.valid) {
        const [message, field] = verdict.why
          ? [verdict.why.message, verdict.why.field]
          : claims.agentBudget
            ? ["The signature is not your agent budget's signature of this payment.", "does not match the agent budget's session key and the quoted payment"]
            : ["The signature is not the connected wallet's signature of this payment.", "does not match the wallet and the quoted payment"];
        const path = answerPath(claims.toSign, approval.answers, verdict.why?.request);
        return new AppError("bad-request", `${message} Nothing was paid.`, { details: { fields: [{ path, message: field }] } });
      }
      // A session key pays only under a grant the wallet signed, and only while it holds.
      return claims.agentBudget ? agentBudgetRefusal(claims.agentBudget, { wallet: claims.wallet, rail, network, now }) : undefined;
    })(),
  ]);
  // The ledger first, so that a copy of an earlier approval is answered whatever its signature check says.
  if (recorded.status === "rejected") throw recorded.reason;
  if (recorded.value) return { kind: "replay", ...payment, record: recorded.value };
  if (refused.status === "rejected") throw refused.reason;
  if (refused.value) return { kind: "refused", error: refused.value };
  return { kind: "fresh", ...payment, signed, chainReads };
}

/** The prepared payment a token keeps. */
export function preparedOf(claims: ApprovalClaims): PreparedPayment {
  return {
    exposure: { amount: BigInt(claims.amount), instrument: claims.nonce, until: claims.expiresAt },
    toSign: claims.toSign,
    unsignedPayload: claims.payload,
  };
}

/**
 * Whether an approval request counts against the person's cooldown as a message of its own.
 * Within its quote's life an approval belongs to the message that made the quote (which
 * claimed the cooldown): it is never held up, and a second copy of it neither. Anything else
 * (a token this server did not make, a signature that does not match, a quote past its
 * time, a copy of a long finished payment) is counted like a new message, so a flood of them
 * meets the same 429 as a flood of messages.
 */
export function countsAsMessage(checked: CheckedApproval, now: Date = new Date()): boolean {
  if (checked.kind === "fresh") return false;
  if (checked.kind === "replay") return now.getTime() / 1000 > checked.claims.expiresAt;
  return true;
}
