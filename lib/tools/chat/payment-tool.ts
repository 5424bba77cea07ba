// payForService, request A of the approval round trip (docs/contract.md, section 4), as the chat's tool: the
// payment core (lib/payments/quote.ts) calls the service and quotes the payment; this turns its
// updates into `p:` lines, its notices into `e:` lines and its result into the model's. Nothing
// is paid here: paying needs the signature, which comes with request B.
import { tool, zodSchema } from "ai";
import type { ToolContext } from "@/lib/chat/agent";
import { payForServiceInput, serviceCallOf } from "@/lib/tools/pay";
import { walletsOf } from "@/lib/chat/request";
import { toPaymentStatus } from "@/lib/protocol/payment-lines";

// Wrapped once per process so that its JSON schema is made once (see discovery-tools.ts).
const inputSchema = zodSchema(payForServiceInput);

export function createPaymentTool(context: ToolContext) {
  return tool({
    description:
      "Request a paid x402 service. If it asks for payment, this checks the person's limits and balance and prepares the payment for their wallet to approve; it never pays without their signature. Returns the quote (service fee, gas fee, total) or the service's data.",
    inputSchema,
    execute: async (input) => {
      // The payment core is loaded by the first quote, not with the chat route (cold start).
      const { quotePayment } = await import("@/lib/payments/quote");
      const result = await quotePayment({
        db: context.db,
        env: context.env,
        call: serviceCallOf(input),
        wallets: walletsOf(context),
        limits: context.limits,
        defaultChain: context.preferences.defaultChain,
        confirmationThreshold: context.preferences.confirmationThreshold ?? 0n,
        silentPayments: context.silentPayments,
        agentBudget: context.agentBudget,
        binding: context.conversation,
        ...(context.admitQuote ? { admit: context.admitQuote } : {}),
        signal: context.signal,
        onUpdate: (update) => context.writer.payment(toPaymentStatus(update)),
      });
      if (result.notice) context.writer.error(result.notice);
      if (result.end) context.setOutcome({ finishReason: result.end, ...(result.paymentId ? { paymentId: result.paymentId } : {}) });
      return result.report;
    },
  });
}
