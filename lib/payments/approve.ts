// Request B of the approval round trip (docs/contract.md, section 4) as one call: what the
// approval is (./approval.ts), whether it counts as a message of its own under the door's
// cooldown, paying a fresh one (./delivery.ts: pre-flight again, the reservation, the signed
// payment sent), and telling how it went, update by update, while its delivery runs on its own
// and is recorded. What refuses it before anything is sent comes back as a refusal; what
// happened after, as the run's updates and its report.
import { claimCooldown, } from "@/lib/cooldown";
import type { Database } from "@/lib/db";
import { beforeDeadline, isDeadline } from "@/lib/deadline";
import type { ServerEnv } from "@/lib/env";
import { AppError } from "@/lib/errors";
import type { ServiceCall } from "@/lib/net/service-call";
import { checkApproval, countsAsMessage, type ApprovalInput } from "./approval";
import { isChannelCall } from "./approval-token";
import { recordOpening, sendChannelCall, settleOpening } from "./channels";
import { followPayment, sendApprovedPayment, type PaymentReport, type SentPayment } from "./delivery";
import type { SpendingLimits } from "./limits";
import type { PaymentOutcome } from "./payment";
import type { DoorPolicy } from "./policy";
import { startRun, type PaymentRun } from "./run";

/** What a door sets for its approvals: the parts of its policy that apply to request B. */
export type ApprovalPolicy = Pick<DoorPolicy, "binding" | "gate" | "cooldown">;

export type ApprovePaymentParameters = {
  db: Database;
  env: ServerEnv;
  approval: ApprovalInput;
  /** The wallets the request names (one per chain family), if it names any: the quoted one must be among them. */
  wallets: readonly string[];
  limits: SpendingLimits;
  policy: ApprovalPolicy;
  /**
   * The door's deadline. Before the payment is sent it stops everything (nothing is reserved or
   * paid, and the call rejects with its reason); after, it only ends the wait for the outcome:
   * the payment goes on and is recorded.
   */
  signal?: AbortSignal;
  now?: Date;
  /** The paid call's own bound (PAID_CALL_TIMEOUT_MS by default). */
  paidCallTimeoutMs?: number;
  log?: (message: string, details?: Record<string, unknown>) => void;
};

/** How an approval came out, for a door to tell. */
export type ApprovalResult =
  /** Refused before anything was sent (its code says how: a bad token or signature, a limit, the balance, the service down...). */
  | { kind: "refused"; error: AppError }
  | ({
      /** `sent`: paid now; `replay`: a copy of an approval sent before, told its outcome; `expired`: past its time, never sent. */
      kind: SentPayment["kind"];
      paymentId: string;
      /** CAIP-2. */
      network: string;
      /** The service call that was quoted, and its name. */
      service: ServiceCall & { name: string };
      /**
       * The wallet whose own signature this approval carried, checked now: it has proved itself.
       * Absent when its agent budget's session key signed: that key pays, but speaks for nobody.
       */
      provenWallet?: string;
      /** A payment sent now: its whole outcome, whenever it comes (a door that keeps outcomes for later readers). */
      outcome?: Promise<PaymentOutcome>;
    } & PaymentRun<PaymentReport>);

export async function approvePayment(parameters: ApprovePaymentParameters): Promise<ApprovalResult> {
  const { db, env, approval, policy, signal, now = new Date() } = parameters;
  const { gate, cooldown } = policy;
  const checked = await beforeDeadline(
    checkApproval({
      db,
      env,
      approval,
      wallets: parameters.wallets,
      binding: policy.binding,
      ...(gate ? { gate: () => gate.limiter.take(gate.key, now) } : {}),
      now,
    }),
    signal,
  );
  if (cooldown && countsAsMessage(checked, now)) {
    const claim = claimCooldown({ db, now, ...cooldown });
    await beforeDeadline(
      claim.catch((error: unknown) => {
        if (!(error instanceof AppError && error.code === "rate-limited")) throw error;
      }),
      signal,
    );
  }
  if (checked.kind === "refused") return { kind: "refused", error: checked.error };

  let sent: SentPayment;
  if (checked.kind === "fresh") {
    const { claims } = checked;
    const bounds = {
      ...(signal ? { signal } : {}),
      ...(parameters.paidCallTimeoutMs !== undefined ? { paidCallTimeoutMs: parameters.paidCallTimeoutMs } : {}),
    };
    // A channel's opening is recorded with its deposit's reservation, and opens once the deposit is
    // settled (the sweep sees to one whose outcome comes later).
    const opening = claims.channel?.opening ? claims.channel.id : undefined;
    try {
      if (isChannelCall(claims)) {
        sent = await sendChannelCall({ db, env, approval: checked, limits: parameters.limits, now, ...bounds });
      } else {
        sent = await sendApprovedPayment({
          db,
          env,
          approval: checked,
          limits: parameters.limits,
          now,
          ...bounds,
          ...(parameters.log ? { log: parameters.log } : {}),
          ...(opening ? { beforeSend: recordOpening(db, env, claims) } : {}),
        });
        if (opening && sent.kind === "sent") {
          const { delivery } = sent;
          sent = {
            ...sent,
            delivery: delivery.then(async (outcome) => {
              await settleOpening(db, opening).catch(() => undefined);
              return outcome;
            }),
          };
        }
      }
    } catch (error) {
      // Refused before it was sent (its limits, its balance, a service that cannot be reached):
      // nothing was paid. The deadline, or a fault, is the door's to meet.
      if (error instanceof AppError && !(signal && isDeadline(error, signal))) return { kind: "refused", error };
      throw error;
    }
  } else {
    sent = checked;
  }
  const { facts, claims } = sent;
  const run = startRun((emit) => followPayment(sent, { db, onUpdate: emit, ...(signal ? { signal } : {}) }));
  return {
    kind: sent.kind,
    paymentId: facts.paymentId,
    network: facts.network.id,
    service: claims.service,
    // Neither an agent budget's key nor a channel's speaks for the wallet.
    ...(checked.kind === "fresh" && !claims.agentBudget && !isChannelCall(claims) ? { provenWallet: claims.wallet } : {}),
    ...(sent.kind === "sent" ? { outcome: sent.delivery } : {}),
    ...run,
  };
}
