// The protocol seam: how a paid HTTP service asks to be paid and takes its proof, whatever chain
// the money moves on (the rails, ./rails) and whatever scheme signs it. A protocol reads a 402
// (its challenge) into payment options in one form (x402's PaymentRequirements, which a rail's
// scheme checks and prepares), sends the paid call with its proof, reads what the answer claims
// was settled, and may find services of its own. ./index.ts registers each in one list, as the
// rails register their schemes; the core, discovery, the history and the card read what a
// protocol says and branch on no protocol's name. x402 (./x402.ts) and the Machine Payments
// Protocol (./mpp.ts) are the first two.
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import type { DiscoveryEnv, ServiceFilter, ServiceListing } from "@/lib/discovery/listings";
import type { ServiceCall } from "@/lib/net/service-call";

/** A service's answer to the unpaid call: its 402, the body read, and the call that got it. */
export type ServiceAnswer = { response: Response; body: unknown; call: ServiceCall };

/**
 * What a 402 asks of one protocol: its options in x402's form (only in schemes the protocol
 * carries), and the offers it left out, with why, in words an agent can relay.
 */
export type Challenge = { paymentRequired: PaymentRequired; refused: readonly string[] };

/** What a paid answer claims was settled: a claim, which only the chain can back (docs/contract.md, section 14). */
export type SettlementClaim = {
  success: boolean;
  /** The transaction it names; empty when it names none. */
  transaction: string;
  errorReason?: string;
  /** What a usage-priced settlement says it settled, atomic units. */
  amount?: string;
};

/** Services a protocol found, and what a person should know about the search (a registry that did not answer). */
export type Found = {
  services: ServiceListing[];
  notes: readonly string[];
  /** Some of where it looks did not answer (too slow, or failing): what is there is unknown, not absent. */
  incomplete?: true;
};

/** What a service's own description says of one of its operations: the service's name and the operation's inputs. */
export type DescribedOperation = { name: string; input: Record<string, unknown> | undefined };

/** The environment a protocol's own description of a service is read under. */
export type DescriptionEnv = Pick<DiscoveryEnv, "MPP_SERVICES" | "X402_ALLOW_PRIVATE_ADDRESSES">;

/** One paid-HTTP protocol: a plugin ./index.ts registers. */
export interface PaymentProtocol {
  /** Its registered name, as quotes, cards, listings and the history carry it. */
  readonly name: string;
  /** How a person reads it on a card ("x402", "MPP (Machine Payments Protocol)"). */
  readonly label: string;
  /** Its name in a list or a table column ("x402", "MPP"). */
  readonly shortLabel: string;
  /** The scheme names it carries (each a scheme of a rail); an option in another is not its to pay. */
  readonly schemes: readonly string[];
  /** What a 402 asks of this protocol, or undefined when the answer does not speak it. */
  readChallenge(answer: ServiceAnswer): Promise<Challenge | undefined>;
  /** The paid call: the same request with the completed payment as this protocol's proof, under its own timeout. */
  callPaid(call: ServiceCall, payload: PaymentPayload, options: { timeoutMs?: number; allowPrivate?: readonly string[] }): Promise<Response>;
  /** The settlement a paid answer claims, if it claims one in a form this protocol reads. */
  readSettlement(response: Response): Promise<SettlementClaim | undefined>;
  /**
   * Services this protocol finds (x402: the registries; MPP: the OpenAPI documents configured),
   * each listed only as far as `env.payable` can pay it. Never throws: a source that fails adds
   * nothing, or a note.
   */
  discover?(env: DiscoveryEnv, filter: ServiceFilter, options: { signal: AbortSignal }): Promise<Found>;
  /**
   * What the service's own description, where this protocol finds services by one (MPP: their
   * OpenAPI documents), says of the operation a call makes, paid or not: for saying why the
   * service refused the call in its own terms. Undefined when none describes it.
   */
  describeOperation?(env: DescriptionEnv, call: Pick<ServiceCall, "url" | "method">, options: { signal: AbortSignal }): Promise<DescribedOperation | undefined>;
}
