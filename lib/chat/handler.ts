// One chat request, start to end: validate, hand an approval to the payment core, claim the
// cooldown, choose the model, stream the agent's answer. Everything before the stream answers with a JSON error and
// its status (docs/contract.md, section 2); everything after it ends the stream with an `e:` line and the final `d:`
// line. One deadline covers it all from the request's arrival: work before the stream that
// outlasts it (a slow body, database or pre-flight) is answered with a stream that says so.
// The payment core (lib/payments) is opened once per request, and quotes and approvals go
// through it: this door turns what it tells into `p:`, `e:` and `d:` lines and the model's turn.
import type { Database } from "@/lib/db";
import { beforeDeadline, isDeadline } from "@/lib/deadline";
import { AppError, toAppError } from "@/lib/errors";
import { afterPendingWrites } from "@/lib/pending-writes";
import type { ServerEnv } from "@/lib/env";
import { knownTxHashes } from "@/lib/payments/ledger";
import { resolveLimits } from "@/lib/payments/limits";
import { chatStreamHeaders, type FinishMetadata, type StreamError } from "@/lib/protocol/lines";
import { createLineStream } from "@/lib/protocol/writer";
import { openPayments, type KeepAlive } from "@/lib/payments";
import type { AgentReport } from "@/lib/payments/payment";
import type { ServiceCall } from "@/lib/net/service-call";
import type { ModelMessage } from "ai";
import { jsonValue, runAgent, type ChatOutcome, type ToolFactory } from "./agent";
import { conversationDigest } from "./conversation";
import { claimCooldown, cooldownKeys } from "@/lib/cooldown";
import { defaultModelTier, selectChatModel, type ChatModel, type ModelTier } from "./models";
import { toPaymentStatus } from "@/lib/protocol/payment-lines";
import { sameAddress } from "@/lib/address";
import { readChatRequest, walletsOf } from "./request";
import { isSignedInAs, sessionCookie } from "@/lib/session";
import { clientKey, type RateLimiter } from "@/lib/rate-limit";

export type ChatDependencies = {
  env: () => ServerEnv;
  database: () => Promise<Database>;
  createTools: ToolFactory;
  /**
   * Approval checks per client before the cooldown can apply (an approval of a live quote is
   * exempt from it): a caller who asks too often is answered 429 before any signature check or
   * chain read. None in tests that do not exercise it.
   */
  approvalGate?: RateLimiter;
  /** The model seam: Gemini or the offline model by default, a mock in tests. */
  chatModel?: (tier: ModelTier, env: ServerEnv) => ChatModel;
  /** The clock (tests); the wall clock by default. */
  now?: () => Date;
  /** Where the host keeps the function alive for the sweep a request starts (Next's `after()`). */
  keepAlive?: KeepAlive;
  /** Overrides CHAT_DEADLINE_SECONDS (tests). */
  deadlineMs?: number;
  /** Overrides the paid call's own timeout, PAID_CALL_TIMEOUT_MS (tests). */
  paidCallTimeoutMs?: number;
  log?: (message: string, details?: Record<string, unknown>) => void;
};

const defaultLog = (message: string, details?: Record<string, unknown>) => console.error(`[chat] ${message}`, details ?? "");

const timeoutError: StreamError = {
  code: "timeout",
  message: "The answer took longer than the time limit and was cut short. Please try again.",
};

export async function handleChatRequest(request: Request, deps: ChatDependencies): Promise<Response> {
  const log = deps.log ?? defaultLog;
  const pickModel = deps.chatModel ?? selectChatModel;
  let env: ServerEnv;
  try {
    env = deps.env();
  } catch (error) {
    return failure(error, log);
  }
  // Counted from the request's arrival: the stream gets what the work before it left.
  const deadline = AbortSignal.timeout(deps.deadlineMs ?? env.CHAT_DEADLINE_SECONDS * 1000);
  const step = <T>(work: Promise<T>) => beforeDeadline(work, deadline);
  // What a deadline before the stream needs to say: the model to name, whether a payment was at stake.
  let chatModel: ChatModel | undefined;
  let approving = false;
  try {
    const now = deps.now?.();
    const body = await step(
      readChatRequest(request, {
        // Asked only about a 64-hex value that the conversation does not mark as a transaction.
        knownTxHashes: async (hashes) => knownTxHashes(await deps.database(), hashes),
      }),
    );
    approving = body.payment !== undefined;
    const model = pickModel(body.model, env);
    chatModel = model;
    const db = await step(deps.database());
    // Opening the payment core keeps the ledger's unfinished payments swept, in the background.
    const payments = openPayments({ db, env, log, ...(now ? { now } : {}), ...(deps.keepAlive ? { keepAlive: deps.keepAlive } : {}) });
    const conversation = conversationDigest(body);
    // A wallet has proved itself when the request carries its signed-in session, or an approval
    // it signed: only then does the request count against its cooldown, and only then does it
    // see its own history. A wallet merely named is counted under its client.
    const signedIn = Object.values(walletsOf(body)).filter((wallet) => isSignedInAs(request, wallet, env, now));
    const cooldownFor = (wallets: readonly string[]) => ({ keys: cooldownKeys(request, wallets, env), seconds: env.CHAT_COOLDOWN_SECONDS, ...(now ? { now } : {}) });
    const limits = resolveLimits(body.spendingLimits, env);
    // An approval is looked at before the cooldown: one of a live quote belongs to the message
    // that made the quote; any other counts as a message of its own, but its answer is never
    // hidden behind a 429. A fresh one is paid before the stream starts, so that its refusals
    // (402, 403, 503...) are HTTP errors; what the service answered is streamed.
    const { payment } = body;
    const approval = payment
      ? await payments.approve({
          approval: { paymentId: payment.paymentId, token: payment.token, answers: payment },
          wallets: Object.values(walletsOf(body)),
          limits,
          policy: {
            binding: conversation,
            ...(deps.approvalGate ? { gate: { limiter: deps.approvalGate, key: clientKey(request, env) } } : {}),
            cooldown: cooldownFor(signedIn),
          },
          // Deliberately not request.signal: a payment on its way is seen through and recorded
          // even if the person's connection goes away. The deadline only ends the wait for it.
          signal: deadline,
          ...(deps.paidCallTimeoutMs !== undefined ? { paidCallTimeoutMs: deps.paidCallTimeoutMs } : {}),
          ...(now ? { now } : {}),
        })
      : undefined;
    if (approval?.kind === "refused") throw approval.error;
    // A message claims the cooldown.
    if (!approval) await step(claimCooldown({ db, ...cooldownFor(signedIn) }));
    const approvedBy = approval?.provenWallet;
    const provenWallets = approvedBy ? [approvedBy, ...signedIn.filter((wallet) => !sameAddress(wallet, approvedBy))] : signedIn;

    const cancelled = new AbortController();
    const signal = AbortSignal.any([request.signal, deadline, cancelled.signal]);
    let outcome: ChatOutcome | undefined;
    const finishWith = (extra: Partial<FinishMetadata> = {}): FinishMetadata => ({
      ...outcome,
      ...extra,
      finishReason: outcome?.finishReason ?? "stop",
      model: model.id,
    });

    const stream = createLineStream(
      async (writer) => {
        let continuation: ModelMessage[] | undefined;
        if (approval) {
          for await (const update of approval.events) writer.payment(toPaymentStatus(update));
          const paid = await approval.result;
          const { paymentId, network, txHash, explorerUrl } = paid;
          outcome = { finishReason: paid.end ?? "stop", paymentId, network, ...(txHash ? { txHash } : {}), ...(explorerUrl ? { explorerUrl } : {}) };
          if (paid.outcomeUnknown) {
            writer.error({ code: "timeout", message: paid.report.summary });
            return finishWith();
          }
          // Only a payment sent now has something new for the model: a copy of an earlier
          // approval, or an expired one, is answered from its outcome alone.
          if (approval.kind !== "sent") {
            writer.text(paid.report.summary);
            return finishWith();
          }
          continuation = paymentContinuation(approval.paymentId, approval.service, paid.report);
          // The payment's lines leave before the model's turn on its result begins, not after
          // its first steps.
          await afterPendingWrites();
        }
        const { usage } = await runAgent({
          chatModel: model,
          messages: body.messages,
          createTools: deps.createTools,
          temperature: body.temperature,
          maxTokens: body.maxTokens,
          ...(continuation ? { continuation } : {}),
          context: {
            env,
            db,
            payments,
            wallets: walletsOf(body),
            limits,
            preferences: body.preferences ?? {},
            approval: body.payment,
            agentBudget: body.agentBudget,
            ...(body.channelKeys ? { channelKeys: body.channelKeys } : {}),
            provenWallets,
            conversation,
            // One payment without a prompt per message the person sends: the message's first
            // quote may be one; any later quote in its reply, or after its approval, asks.
            silentPayments: { left: approval ? 0 : 1 },
            // A quote made after a payment sent now, in the same request, counts as a new message.
            ...(approval?.kind === "sent" ? { quoteAdmission: cooldownFor(provenWallets) } : {}),
            writer,
            // The first payment outcome of a request stands; a later call cannot overwrite it.
            setOutcome: (next) => {
              outcome ??= next;
            },
            signal,
          },
        });
        return finishWith(usage ? { usage } : {});
      },
      {
        onFailure: (error) => {
          const streamError = describeStreamFailure(error, { deadline, client: request.signal });
          if (streamError.code === "model-error" || streamError.code === "internal") {
            log("stream failed", { code: streamError.code, error: errorName(error) });
          }
          return { error: streamError, finish: finishWith() };
        },
        onCancel: () => cancelled.abort(new DOMException("The client went away.", "AbortError")),
      },
    );
    const headers = new Headers(chatStreamHeaders);
    // The approval's signature proved the wallet: its session starts here, as a sign-in would.
    if (approvedBy && !signedIn.some((wallet) => sameAddress(wallet, approvedBy))) headers.append("Set-Cookie", sessionCookie(request, approvedBy, env, now));
    return new Response(stream, { status: 200, headers });
  } catch (error) {
    if (isDeadline(error, deadline)) {
      // Out of time before the stream began: the stream still ends properly, and says so.
      return deadlineResponse((chatModel ?? pickModel(defaultModelTier, env)).id, approving);
    }
    return failure(error, log);
  }
}

/** An error before the stream, as its JSON answer; only server faults are logged. */
function failure(error: unknown, log: NonNullable<ChatDependencies["log"]>): Response {
  const appError = toAppError(error);
  if (appError.status >= 500) log("request failed", { code: appError.code, error: errorName(error) });
  return appError.toResponse();
}

/** The whole answer of a request whose time ran out before its stream began. */
function deadlineResponse(modelId: string, approving: boolean): Response {
  const error: StreamError = approving
    ? { code: "timeout", message: "The payment could not be sent within the time limit. Nothing was paid. Please try again." }
    : timeoutError;
  const stream = createLineStream(
    async (writer) => {
      writer.error(error);
      return { finishReason: "stop", model: modelId };
    },
    { onFailure: () => ({ error, finish: { finishReason: "stop", model: modelId } }) },
  );
  return new Response(stream, { status: 200, headers: chatStreamHeaders });
}

/** The approved payment as the model's payForService call and its result, for it to answer from. */
function paymentContinuation(paymentId: string, service: ServiceCall, report: AgentReport): ModelMessage[] {
  const toolCallId = `approved-${paymentId}`;
  const { url, method, query, body } = service;
  return [
    {
      role: "assistant",
      content: [
        {
          type: "tool-call",
          toolCallId,
          toolName: "payForService",
          input: { url, method, ...(query ? { query } : {}), ...(body !== undefined ? { body } : {}) },
        },
      ],
    },
    {
      role: "tool",
      content: [{ type: "tool-result", toolCallId, toolName: "payForService", output: { type: "json", value: jsonValue(report) } }],
    },
  ];
}

function describeStreamFailure(error: unknown, signals: { deadline: AbortSignal; client: AbortSignal }): StreamError {
  if (signals.deadline.aborted) return timeoutError;
  if (signals.client.aborted || (error instanceof DOMException && error.name === "AbortError")) {
    return { code: "aborted", message: "The request was cancelled." };
  }
  if (error instanceof AppError) return { code: error.code, message: error.message };
  return { code: "model-error", message: "The model could not answer right now. Please try again in a moment." };
}

// Only the error's kind is logged: its message could quote the conversation.
function errorName(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (cause: ${error.cause.name})` : "";
    return `${error.name}${cause}`;
  }
  return typeof error;
}
