// The Machine Payments Protocol as a protocol plugin (./protocol.ts): a 402's
// `WWW-Authenticate: Payment` challenges, read and checked with mppx (lib/mpp/charge.ts) into
// options in MPP's `evm` charge scheme, the credential in `Authorization: Payment` (or the header
// the challenge names) of the paid call, the `Payment-Receipt` it answers with, and services found
// by their OpenAPI documents (`MPP_SERVICES`). mppx is loaded by the first call that needs it.
import { MPP_EVM_CHARGE, MPP_PROTOCOL } from "@/lib/mpp/scheme";
import type { PaymentProtocol } from "./protocol";

export const mppProtocol: PaymentProtocol = {
  name: MPP_PROTOCOL,
  label: "MPP (Machine Payments Protocol)",
  shortLabel: "MPP",
  schemes: [MPP_EVM_CHARGE],
  async readChallenge({ response, call }) {
    const { hasPaymentChallenge, readMppChallenges } = await import("@/lib/mpp/charge");
    if (!hasPaymentChallenge(response)) return undefined;
    // A challenge's digest is of the body as sent: a POST's JSON text.
    return readMppChallenges(response, { url: call.url, body: call.method === "POST" ? JSON.stringify(call.body ?? {}) : undefined });
  },
  async callPaid(call, payload, options) {
    const { callServiceWithCredential } = await import("@/lib/mpp/service-call");
    return callServiceWithCredential(call, payload, options);
  },
  async readSettlement(response) {
    const { readMppReceipt } = await import("@/lib/mpp/service-call");
    return readMppReceipt(response);
  },
  async discover(env, filter, { signal }) {
    const { findMppServices } = await import("@/lib/mpp/discovery");
    return { services: await findMppServices(env, filter, { signal }).catch(() => []), notes: [] };
  },
  async describeOperation(env, call, { signal }) {
    const { describeMppOperation } = await import("@/lib/mpp/discovery");
    return describeMppOperation(env, call, { signal });
  },
};
