// One chat request, start to end: validate, claim the cooldown, choose the model, stream the
// agent's answer. Everything before the stream answers with a JSON error and its SPEC status;
// everything after it ends the stream with an `e:` line and the final `d:` line. Requests also
// drive the ledger's sweep of unfinished payments (at most once a minute, never a timer).
import type { Database } from "@/lib/db";
import { AppError, toAppError } from "@/lib/errors";
import type { ServerEnv } from "@/lib/env";
import { knownTxHashes } from "@/lib/payments/ledger";
import { resolveLimits } from "@/lib/payments/limits";
import { chatStreamHeaders, type FinishMetadata, type StreamError } from "@/lib/protocol/lines";
import { createLineStream } from "@/lib/protocol/writer";
import { reportApprovedPayment, sendApprovedPayment, type PaymentReport, type SentPayment } from "@/lib/payments/approved-payment";
import { sweepIfDue } from "@/lib/payments/reconcile";
import type { JSONValue, ModelMessage } from "ai";
import { runAgent, type ChatOutcome, type ToolFactory } from "./agent";
import { claimCooldown, cooldownKey } from "./cooldown";
import { selectChatModel, type ChatModel, type ModelTier } from "./models";
import { readChatRequest } from "./request";

export type ChatDependencies = {
  env: () => ServerEnv;
  database: () => Promise<Database>;
  createTools: ToolFactory;
  /** The model seam: Gemini or the offline model by default, a mock in tests. */
  chatModel?: (tier: ModelTier, env: ServerEnv) => ChatModel;
  /** The clock (tests); the wall clock by default. */
  now?: () => Date;
  /** Overrides CHAT_DEADLINE_SECONDS (tests). */
  deadlineMs?: number;
  /** Overrides the paid call's own timeout, PAID_CALL_TIMEOUT_MS (tests). */
  paidCallTimeoutMs?: number;
  log?: (message: string, details?: Record<string, unknown>) => void;
};

const defaultLog = (message: string, details?: Record<string, unknown>) => console.error(`[chat] ${message}`, details ?? "");

export async function handleChatRequest(request: Request, deps: ChatDependencies): Promise<Response> {
  const log = deps.log ?? defaultLog;
  try {
    const env = deps.env();
    const body = await readChatRequest(request, {
      // Asked only about a 64-hex value that the conversation does not mark as a transaction.
      knownTxHashes: async (hashes) => knownTxHashes(await deps.database(), hashes),
    });
    const db = await deps.database();
    // In the background: a sweep never holds up the person's request.
    void sweepIfDue({ db, env, log });
    if (!body.payment) {
      await claimCooldown({
        db,
        clientKey: cooldownKey(request, body.walletAddress),
        seconds: env.CHAT_COOLDOWN_SECONDS,
      });
    }
    const chatModel = (deps.chatModel ?? selectChatModel)(body.model, env);
    const limits = resolveLimits(body.spendingLimits, env);
    // An approved payment is sent before the stream starts, so that its refusals (402, 403,
    // 503...) are HTTP errors; what the service answered is streamed.
    const sent = body.payment
      ? await sendApprovedPayment({
          db,
          env,
          approval: body.payment,
          walletAddress: body.walletAddress,
          limits,
          log,
          // Deliberately not request.signal: a payment on its way is seen through and recorded
          // even if the person's connection goes away.
          ...(deps.paidCallTimeoutMs !== undefined ? { paidCallTimeoutMs: deps.paidCallTimeoutMs } : {}),
          ...(deps.now ? { now: deps.now() } : {}),
        })
      : undefined;

    const deadline = AbortSignal.timeout(deps.deadlineMs ?? env.CHAT_DEADLINE_SECONDS * 1000);
    const cancelled = new AbortController();
    const signal = AbortSignal.any([request.signal, deadline, cancelled.signal]);
    let outcome: ChatOutcome | undefined;
    const finishWith = (extra: Partial<FinishMetadata> = {}): FinishMetadata => ({
      ...outcome,
      ...extra,
      finishReason: outcome?.finishReason ?? "stop",
      model: chatModel.id,
    });

    const stream = createLineStream(
      async (writer) => {
        let continuation: ModelMessage[] | undefined;
        if (sent) {
          // Sandbox transaction links are relative: the app's own /tx page, on whatever host served the page.
          const report = await reportApprovedPayment(sent, { db, writer });
          outcome = { finishReason: report.finishReason, ...report.metadata };
          continuation = paymentContinuation(sent, report);
        }
        const { usage } = await runAgent({
          chatModel,
          messages: body.messages,
          createTools: deps.createTools,
          temperature: body.temperature,
          maxTokens: body.maxTokens,
          ...(continuation ? { continuation } : {}),
          context: {
            env,
            db,
            walletAddress: body.walletAddress,
            limits,
            preferences: body.preferences ?? {},
            approval: body.payment,
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
    return new Response(stream, { status: 200, headers: chatStreamHeaders });
  } catch (error) {
    const appError = toAppError(error);
    if (appError.status >= 500) log("request failed", { code: appError.code, error: errorName(error) });
    return appError.toResponse();
  }
}

/** The approved payment as the model's payForService call and its result, for it to answer from. */
function paymentContinuation(sent: SentPayment, report: PaymentReport): ModelMessage[] {
  const toolCallId = `approved-${sent.claims.paymentId}`;
  const { url, method, query, body } = sent.claims.service;
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
      content: [{ type: "tool-result", toolCallId, toolName: "payForService", output: { type: "json", value: jsonValue(report.result) } }],
    },
  ];
}

function jsonValue(value: unknown): JSONValue {
  return JSON.parse(JSON.stringify(value)) as JSONValue;
}

function describeStreamFailure(error: unknown, signals: { deadline: AbortSignal; client: AbortSignal }): StreamError {
  if (signals.deadline.aborted) {
    return { code: "timeout", message: "The answer took longer than the time limit and was cut short. Please try again." };
  }
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
