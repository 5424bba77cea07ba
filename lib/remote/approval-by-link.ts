// The page's side of a payment an AI app asked for (docs/contract.md, section 11):
// `GET /api/mcp/payments/{paymentId}` reads it for the approval view (the quote as the card
// shows it, and how it stands), and `POST` with the wallet's signature pays it through the
// payment core's one approval call, as the chat's request B does: the same checks of the
// approval, the same reservation against the limits (the grant's, over the wallet's whole
// ledger), the same delivery. Its outcome, and the service's data, are kept for the app's getPayment. The
// service's data is shown in the page only to the wallet's own session.
import { z } from "zod";
import type { Database } from "@/lib/db";
import type { ServerEnv } from "@/lib/env";
import { beforeDeadline } from "@/lib/deadline";
import { AppError, toAppError } from "@/lib/errors";
import { readJsonBody } from "@/lib/net/request-body";
import { answerProblem, answerShape } from "@/lib/payments/answers";
import { formatUsd } from "@/lib/money";
import { openPayments, type KeepAlive } from "@/lib/payments";
import { totalOf, type PaymentOutcome } from "@/lib/payments/payment";
import type { PaymentStatus } from "@/lib/protocol/lines";
import { toPaymentStatus } from "@/lib/protocol/payment-lines";
import { clientKey, type RateLimiter } from "@/lib/rate-limit";
import { isSignedInAs, sessionCookie } from "@/lib/session";
import { grantBinding, isRevoked } from "./grant-token";
import { APPROVAL_DEADLINE_MS, findRemotePayment, quoteForPage, recordRemoteResult, type RemotePayment, type RemotePaymentResult } from "./remote-payments";
import { describeRemotePayment, paymentIdInput } from "./payment-view";

export type ApprovalByLinkDependencies = {
  env: () => ServerEnv;
  database: () => Promise<Database>;
  /** Approval checks per client, as the chat's. */
  approvalGate?: RateLimiter;
  now?: () => Date;
  paidCallTimeoutMs?: number;
  log?: (message: string, details?: Record<string, unknown>) => void;
  /** Where the host keeps the function alive for the sweep a request starts (Next's `after()`). */
  keepAlive?: KeepAlive;
};

const noStore = { "Cache-Control": "no-store" };
// The wallet's answers, as the chat takes them (lib/payments/answers.ts): `signed`, one per
// request of the quote's `approval.toSign`, or the older single fields.
const approvalSchema = z
  .strictObject(answerShape)
  .superRefine((approval, ctx) => {
    const problem = answerProblem(approval);
    if (problem) ctx.addIssue({ code: "custom", message: problem.message, path: [problem.path] });
  });

export async function handleMcpPaymentRequest(request: Request, paymentId: string, deps: ApprovalByLinkDependencies): Promise<Response> {
  const log = deps.log ?? ((message: string, details?: Record<string, unknown>) => console.error(`[mcp-approval] ${message}`, details ?? ""));
  const now = deps.now?.() ?? new Date();
  try {
    const env = deps.env();
    if (!paymentIdInput.safeParse(paymentId).success) throw notFound();
    const db = await deps.database();
    // Opening the payment core keeps the ledger's unfinished payments swept, in the background.
    const payments = openPayments({ db, env, log, now, ...(deps.keepAlive ? { keepAlive: deps.keepAlive } : {}) });
    const payment = await findRemotePayment(db, paymentId);
    if (!payment) throw notFound();
    const ownSession = isSignedInAs(request, payment.wallet, env, now);
    const origin = env.appOrigin;
    if (request.method === "GET") {
      return Response.json(await pageView(db, payment, { origin, now, ownSession }), { headers: noStore });
    }
    if (request.method !== "POST") throw new AppError("bad-request", "Read a payment with GET, approve it with POST.");
    const json = await readJsonBody(request, { expected: "{ signed: [...] }, one answer per request of the quote's toSign" });
    const parsed = approvalSchema.safeParse(json);
    if (!parsed.success) {
      throw new AppError("bad-request", "The approval is not valid: send { signed: [...] }, the wallet's answers in the order of the quote's toSign.", {
        details: { fields: parsed.error.issues.map((issue) => ({ path: issue.path.join(".") || "(body)", message: issue.message })) },
      });
    }
    // The grant may have ended since the quote: nothing is paid under a grant that is gone.
    if (payment.grantValidUntil.getTime() <= now.getTime() || (await isRevoked(db, { id: payment.grantId, wallet: payment.wallet }))) {
      throw new AppError("unauthorized", "The AI app's access grant ended (revoked or expired) after it asked for this payment. Nothing was paid.");
    }
    const token = payment.quote.approval?.token;
    if (!token) throw new AppError("bad-request", "This payment holds no quote to approve.");
    const deadline = AbortSignal.timeout(APPROVAL_DEADLINE_MS);
    const approval = await payments.approve({
      approval: { paymentId, token, answers: parsed.data },
      wallets: [payment.wallet],
      limits: payment.limits,
      policy: {
        binding: grantBinding(payment.grantId),
        ...(deps.approvalGate ? { gate: { limiter: deps.approvalGate, key: clientKey(request, env) } } : {}),
      },
      signal: deadline,
      ...(deps.paidCallTimeoutMs !== undefined ? { paidCallTimeoutMs: deps.paidCallTimeoutMs } : {}),
      now,
    });
    if (approval.kind === "refused") throw approval.error;
    // The outcome is kept for the app whenever it comes, whoever is still waiting for it.
    const kept = approval.outcome
      ?.then((outcome) => recordRemoteResult(db, paymentId, resultOf(outcome)))
      .catch(() => log("outcome not kept for the app", { paymentId }));
    const updates: PaymentStatus[] = [];
    for await (const update of approval.events) updates.push(toPaymentStatus(update));
    const told = await approval.result;
    // Once the page is told how it ended, the app reads the same: the outcome is kept before the answer.
    if (kept) await beforeDeadline(kept, deadline).catch(() => undefined);
    const card = updates.at(-1);
    if (approval.kind === "expired") {
      const summary = told.report.summary;
      await recordRemoteResult(db, paymentId, { status: "expired", summary, publicSummary: summary, end: "payment-failed", ...(card ? { card } : {}) });
    }
    const headers = new Headers(noStore);
    // The wallet's signature proved it: its session starts here, as in the chat.
    if (approval.provenWallet && !ownSession) headers.append("Set-Cookie", sessionCookie(request, payment.wallet, env, now));
    return Response.json(
      {
        paymentId,
        status: told.report.status,
        summary: told.report.summary,
        updates,
        ...(told.txHash ? { txHash: told.txHash } : {}),
        ...(told.explorerUrl ? { explorerUrl: told.explorerUrl } : {}),
        // The service's answer, to the wallet that just proved itself.
        ...("data" in told.report && (approval.provenWallet || ownSession) ? { data: told.report.data } : {}),
      },
      { headers },
    );
  } catch (error) {
    const appError = toAppError(error);
    if (appError.status >= 500) log("request failed", { code: appError.code, error: error instanceof Error ? error.name : typeof error });
    const response = appError.toResponse();
    response.headers.set("Cache-Control", "no-store");
    return response;
  }
}

/** The approval view's read: the quote as the card shows it, where the payment stands, and its data for the wallet's own session. */
async function pageView(db: Database, payment: RemotePayment, { origin, now, ownSession }: { origin: string; now: Date; ownSession: boolean }) {
  const standing = await describeRemotePayment(db, payment, { origin, now, withData: ownSession });
  const card = payment.result?.card;
  return {
    paymentId: payment.paymentId,
    wallet: payment.wallet,
    app: payment.appLabel,
    quote: quoteForPage(payment.quote),
    ...(card ? { card } : {}),
    ...standing,
    ownSession,
  };
}

function resultOf(outcome: PaymentOutcome): RemotePaymentResult {
  const last = outcome.updates.at(-1);
  const { report } = outcome;
  const paid = outcome.updates.find((update) => update.stage === "delivered" || update.stage === "confirmed");
  return {
    status: report.status,
    summary: report.summary,
    publicSummary:
      "data" in report && paid
        ? `Paid $${formatUsd(totalOf(paid.facts))} USDC to ${paid.facts.service.name} on ${paid.facts.network.name}${outcome.txHash ? ` (transaction ${outcome.txHash})` : ""}. The service's answer is for the app that asked and the wallet that paid.`
        : report.summary,
    end: outcome.end,
    ...(outcome.txHash ? { txHash: outcome.txHash } : {}),
    ...(outcome.explorerUrl ? { explorerUrl: outcome.explorerUrl } : {}),
    ...("data" in report ? { data: report.data } : {}),
    ...(last ? { card: toPaymentStatus(last) } : {}),
  };
}

const notFound = () => new AppError("not-found", "There is no payment with this id waiting here. Ask the AI app for the payment again.");
