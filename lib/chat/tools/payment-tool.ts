// payForService, request A of the approval round trip (docs/contract.md, section 4), as the chat's tool: the
// payment core quotes the payment under the chat's policy (bound to the conversation; one
// payment without a prompt per message the person sends; after a paid answer, a new quote counts
// as a new message), and this turns what it tells into `p:` lines, its reasons into `e:` lines,
// the finish reason and the model's result. Nothing is paid here: paying needs the signature,
// which comes with request B.
import { tool, zodSchema } from "ai";
import type { ToolContext } from "@/lib/chat/agent";
import { formatDollars, formatUsd } from "@/lib/money";
import type { QuoteResult } from "@/lib/payments";
import type { AgentReport } from "@/lib/payments/payment";
import type { StreamError } from "@/lib/protocol/lines";
import { toPaymentStatus } from "@/lib/protocol/payment-lines";
import { payForServiceAnswer, payForServiceInput, serviceCallOf, withinWords } from "@/lib/tools/pay";
import type { ServiceCall } from "@/lib/net/service-call";

// Wrapped once per process so that its JSON schema is made once (see discovery-tools.ts).
const inputSchema = zodSchema(payForServiceInput);

export function createPaymentTool(context: ToolContext) {
  return tool({
    description:
      "Request a paid x402 service. If it asks for payment, this checks the person's limits and balance and prepares the payment for their wallet to approve; it never pays without their signature. Returns the quote (service fee, gas fee, total) or the service's data.",
    inputSchema,
    execute: (input) => quoteInChat(context, serviceCallOf(input)),
  });
}

async function quoteInChat(context: ToolContext, call: ServiceCall) {
  const { agentBudget, silentPayments } = context;
  // The message's payment without a prompt is claimed now, before the first await, so that two
  // calls in one step (a model may make them in parallel) cannot both take it; a quote that the
  // budget does not pay gives it back.
  const silent = agentBudget !== undefined && silentPayments.left > 0;
  if (silent) silentPayments.left -= 1;
  const run = context.payments.quote({
    call,
    wallets: context.wallets,
    ...(context.channelKeys ? { channelKeys: context.channelKeys } : {}),
    limits: context.limits,
    defaultChain: context.preferences.defaultChain,
    policy: {
      binding: context.conversation,
      ...(context.quoteAdmission ? { admission: context.quoteAdmission } : {}),
      ...(agentBudget
        ? {
            budget: silent
              ? { grant: agentBudget, threshold: context.preferences.confirmationThreshold ?? 0n }
              : { grant: agentBudget, withheld: "Your agent budget pays at most one payment without asking for each message you send; this one, in the same reply, needs your wallet's approval." },
          }
        : {}),
    },
    signal: context.signal,
  });
  for await (const update of run.events) context.writer.payment(toPaymentStatus(update));
  const result = await run.result;
  if (silent && !(result.kind === "quoted" && result.quote.facts.paidFrom === "agent-budget")) silentPayments.left += 1;
  const notice = noticeOf(result);
  if (notice) context.writer.error(notice);
  const end = endOf(result);
  if (end) context.setOutcome({ finishReason: end, ...(result.kind === "failed" ? { paymentId: result.paymentId } : {}) });
  return answerOf(result);
}

/** What the model is told. */
function answerOf(result: QuoteResult) {
  if (result.kind === "rate-limited") {
    return {
      status: "rate-limited",
      summary: `Another payment in the same reply as a paid answer counts as a new message, and must wait: ${result.wait} Nothing was quoted or paid; tell the person to ask again then.`,
    };
  }
  if (result.kind !== "quoted") return payForServiceAnswer(result);
  const { facts, approval } = result.quote;
  const { network, amount } = facts;
  // Usage-priced (x402 `upto`): the wallet signs for the maximum; the service settles what it uses.
  const price = `${facts.upTo ? "up to " : ""}${formatDollars(amount)} USDC to ${facts.service.name} on ${network.name}${facts.upTo ? " (the service charges what it uses, at most this)" : ""}`;
  const quoted = { status: "awaiting-signature", paymentId: result.paymentId, service: facts.service.name, network: network.name };
  if (facts.paidFrom === "agent-budget") {
    return {
      ...quoted,
      totalUsd: formatUsd(amount),
      paidFrom: "agent budget",
      summary: `This payment of ${price} is within your agent budget and your confirmation threshold, so it is paid from the budget now, without a wallet prompt. The answer follows.`,
    } satisfies AgentReport;
  }
  return {
    ...quoted,
    serviceFeeUsd: formatUsd(amount),
    gasFeeUsd: formatUsd(network.payerFee),
    totalUsd: formatUsd(amount + network.payerFee),
    ...(facts.upTo ? { upTo: `up to ${formatDollars(amount)}` } : {}),
    expiresAt: approval.expiresAt.toISOString(),
    summary: `The payment of ${price} (no gas fee for you: the facilitator pays it) is ready. Please review it on the card and approve it in your wallet ${withinWords(approval.expiresAt.getTime() - Date.now())}.`,
  } satisfies AgentReport;
}

/** A problem the person sees as an `e:` line: one that reached no payment card. A value the
 * service does not take is not one: the agent says it in its reply, once, with what it takes. */
function noticeOf(result: QuoteResult): StreamError | undefined {
  switch (result.kind) {
    case "too-large":
      return { code: "payload-too-large", message: `${result.problem} Nothing was sent or paid.` };
    case "unreachable":
      return { code: "service-unavailable", message: result.problem };
    case "unreadable":
      return { code: "payment-failed", message: "The service asked for payment in a form this agent cannot read." };
    case "rate-limited":
      return { code: "rate-limited", message: `Another payment after a paid answer counts as a new message. ${result.wait}` };
    case "not-payable":
      return { code: "payment-failed", message: result.message };
    default:
      return undefined;
  }
}

/** How the quote ends the person's request, when it does. */
function endOf(result: QuoteResult) {
  switch (result.kind) {
    case "too-large":
    case "unreadable":
    case "bad-input":
    case "not-payable":
      return "payment-failed" as const;
    case "unreachable":
      return "service-unavailable" as const;
    case "service-error":
      return result.httpStatus >= 500 ? ("service-unavailable" as const) : undefined;
    case "failed":
      return result.end;
    default:
      return undefined;
  }
}
