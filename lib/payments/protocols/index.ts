// The protocols this server pays services through, in one list, as the rails are in theirs
// (../rails/index.ts): a new protocol is a module of its own (./protocol.ts says what it
// answers) and one entry here. Their order is the order of preference: a 402 that speaks two is
// paid through the first that offers an option a rail can pay. Nothing else in the core names a
// protocol: it asks this list which one a 402 speaks, which one carries a scheme, and which one
// sends a payment.
import type { PaymentRequired } from "@x402/core/types";
import type { DiscoveryEnv, ServiceFilter, ServiceListing } from "@/lib/discovery/listings";
import { mppProtocol } from "./mpp";
import type { DescribedOperation, DescriptionEnv, Found, PaymentProtocol, ServiceAnswer } from "./protocol";
import { x402Protocol } from "./x402";

export type { DescribedOperation, PaymentProtocol, SettlementClaim } from "./protocol";

/** Every protocol, in the order of preference. */
export const paymentProtocols: readonly PaymentProtocol[] = [mppProtocol, x402Protocol];

/** What a person and the model are told of a payment's protocol. */
export type ProtocolInfo = Pick<PaymentProtocol, "name" | "label">;

/**
 * The protocol that carries a scheme, for a payment quoted or recorded in it. A scheme no
 * protocol names (none today) is the first-registered x402's, which carried every scheme before
 * protocols were named.
 */
export function protocolOfScheme(scheme: string | undefined): PaymentProtocol {
  return paymentProtocols.find((protocol) => scheme !== undefined && protocol.schemes.includes(scheme)) ?? x402Protocol;
}

/** A protocol's name and label, as a payment's facts carry them. */
export function infoOf(protocol: PaymentProtocol): ProtocolInfo {
  return { name: protocol.name, label: protocol.label };
}

export type PaymentRequest =
  /** Asked in this protocol: its options (only in schemes it carries). */
  | { kind: "asked"; paymentRequired: PaymentRequired; protocol: PaymentProtocol }
  /** Asked only in ways none of the protocols can pay: why, in words an agent can relay. */
  | { kind: "unpayable"; message: string }
  /** Not a payment request any protocol reads. */
  | { kind: "unreadable" };

/**
 * What a 402 asks, in the protocol it is paid through: the first, in the order of preference,
 * with an option a rail can pay (`payable`); else the first with any option (quoted, and refused
 * with the rails' reasons); else why none of what it asks can be paid.
 */
export async function readPaymentRequest(answer: ServiceAnswer, payable: (requirements: PaymentRequired["accepts"][number], x402Version: number) => boolean): Promise<PaymentRequest> {
  const read = await Promise.all(paymentProtocols.map(async (protocol) => ({ protocol, challenge: await protocol.readChallenge(answer).catch(() => undefined) })));
  const spoken = read.flatMap(({ protocol, challenge }) => (challenge ? [{ protocol, ...challenge }] : []));
  const withOptions = spoken.filter(({ paymentRequired }) => paymentRequired.accepts.length > 0);
  const chosen =
    withOptions.find(({ paymentRequired }) => paymentRequired.accepts.some((requirements) => payable(requirements, paymentRequired.x402Version))) ?? withOptions[0];
  if (chosen) return { kind: "asked", paymentRequired: chosen.paymentRequired, protocol: chosen.protocol };
  const refused = [...new Set(spoken.flatMap(({ refused }) => refused))];
  if (refused.length > 0) return { kind: "unpayable", message: `The service asks for a payment this agent cannot make: ${refused.join("; ")}. Nothing was quoted or paid.` };
  return { kind: "unreadable" };
}

/**
 * Every service the protocols find that matches `filter`, under one signal: each protocol lists
 * only what a rail can pay in a scheme it carries (`env.payable`, narrowed to its schemes). A
 * protocol that fails adds nothing.
 */
export async function discoverServices(env: DiscoveryEnv, filter: ServiceFilter, { signal }: { signal: AbortSignal }): Promise<{ services: ServiceListing[]; notes: string[]; incomplete?: true }> {
  const found = await Promise.all(
    paymentProtocols.map((protocol): Found | Promise<Found> => {
      if (!protocol.discover) return { services: [], notes: [] };
      const own: DiscoveryEnv = {
        ...env,
        payable: (requirements) =>
          protocol.schemes.includes(requirements.scheme) ? env.payable(requirements) : { payable: false, reason: `scheme ${requirements.scheme} is not ${protocol.label}'s` },
      };
      return protocol.discover(own, filter, { signal }).catch((): Found => ({ services: [], notes: [], incomplete: true }));
    }),
  );
  return { services: found.flatMap((one) => one.services), notes: found.flatMap((one) => [...one.notes]), ...(found.some((one) => one.incomplete) ? { incomplete: true as const } : {}) };
}

/**
 * What the first protocol that describes the call's operation says of it (its service's name and
 * inputs), or undefined when none does or none can be read: each description's code loads only here.
 */
export async function describeOperation(env: DescriptionEnv, call: { url: string; method: "GET" | "POST" }, { signal }: { signal: AbortSignal }): Promise<DescribedOperation | undefined> {
  for (const protocol of paymentProtocols) {
    const described = await protocol.describeOperation?.(env, call, { signal }).catch(() => undefined);
    if (described) return described;
  }
  return undefined;
}
