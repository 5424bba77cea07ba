// x402 as a protocol plugin (./protocol.ts): a 402's PAYMENT-REQUIRED header (v2) or body (v1),
// the payload in the PAYMENT-SIGNATURE (or X-PAYMENT) header of the paid call, the
// PAYMENT-RESPONSE it answers with, and the Bazaar registries (`X402_DISCOVERY_URLS`). Its
// schemes are x402's (`exact`, `upto`), paid on whichever rail registers them. The packages'
// code (lib/x402) is loaded by the first call that needs it.
import { X402_PROTOCOL } from "@/lib/x402/listings";
import type { PaymentProtocol } from "./protocol";

export const x402Protocol: PaymentProtocol = {
  name: X402_PROTOCOL,
  label: "x402",
  shortLabel: "x402",
  schemes: ["exact", "upto", "batch-settlement"],
  async readChallenge({ response, body }) {
    const { readPaymentRequired } = await import("@/lib/x402/payment-required");
    const paymentRequired = readPaymentRequired(response, body);
    if (!paymentRequired) return undefined;
    // Options in schemes another protocol carries (an MPP charge's) are not x402's to pay.
    const accepts = paymentRequired.accepts.filter((requirements) => this.schemes.includes(requirements.scheme));
    const refused = paymentRequired.accepts.length > accepts.length ? ["an option in a scheme x402 does not carry was left out"] : [];
    return accepts.length > 0 ? { paymentRequired: { ...paymentRequired, accepts }, refused } : undefined;
  },
  async callPaid(call, payload, options) {
    const { callServiceWithPayment } = await import("@/lib/x402/service-call");
    return callServiceWithPayment(call, payload, options);
  },
  async readSettlement(response) {
    const { readSettlement } = await import("@/lib/x402/service-call");
    return readSettlement(response);
  },
  async discover(env, filter) {
    const { findServices } = await import("@/lib/x402/discovery");
    return findServices(env, filter);
  },
};
