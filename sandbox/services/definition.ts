/**
 * What a sandbox service is: its listing (name, price, latency, input and output schema) and
 * its handler over local data. The x402 plumbing lives in x402-service.ts, not here.
 */
import type { DeclareDiscoveryExtensionInput } from "@x402/extensions/bazaar";

export type ServiceRequest = {
  query: URLSearchParams;
  /** Parsed JSON body of a POST; undefined for GET. */
  body: unknown;
};

/** A bad request from the caller: answered 400, and the payment is not settled. */
export class ServiceInputError extends Error {}

export type ServiceRail = "evm" | "solana";

/** The paid-HTTP protocol a service speaks: x402, or the Machine Payments Protocol (mppx's server). */
export type ServiceProtocol = "x402" | "mpp";

export type ServiceDefinition = {
  /** Stable slug, used in SandboxInfo and by `setServiceOnline`. */
  name: string;
  /** Display name for listings. */
  serviceName: string;
  description: string;
  method: "GET" | "POST";
  path: string;
  /** Atomic USDC units (6 decimals); for an `upto` service, the most one request can cost. */
  price: bigint;
  /**
   * Usage-priced (x402 `upto`): the payer signs for `price` at most, and a paid request settles
   * what `charge` says it used, from the request and the answer (at most `price`; zero settles
   * nothing). `typical`, what a usual request costs, is said in the listing. Absent: `exact`.
   */
  upto?: { charge(request: ServiceRequest, answer: unknown): bigint; typical: bigint };
  /**
   * Priced per call over an x402 `batch-settlement` channel: `price` a call, paid by a cumulative
   * voucher against the payer's deposit (channel.ts says how the service keeps its channels).
   * Absent: not a channel service.
   */
  channel?: ChannelTerms;
  /** How long the handler takes on purpose, declared in the listing so speed can be compared. */
  latencyMs: number;
  tags: string[];
  /**
   * The protocol it is paid through; default x402. An MPP service is served by mppx's own server
   * (mpp-service.ts) on the sandbox chain only, is listed by its OpenAPI document rather than in
   * the x402 registry, and takes GET requests.
   */
  protocol?: ServiceProtocol;
  /** Listed only when the sandbox is asked to include test-only services. */
  testOnly?: boolean;
  /** Where it takes payment: the sandbox's EVM chain, its Solana, or both (the 402 lists one option each). Default: EVM. */
  rails?: readonly ServiceRail[];
  /** The authorization window the 402 asks for; default 300 s. Tests ask for more. */
  maxTimeoutSeconds?: number;
  /**
   * Fields its Solana option's `extra` carries besides the facilitator's fee payer: a seller's
   * fixed `memo` (which the facilitator then requires verbatim), a `recentBlockhash`. For tests.
   */
  solanaExtra?: Record<string, string>;
  /**
   * Served by a server made with this x402 middleware, as deployed services are (deployed.ts);
   * absent: by the sandbox's own server over @x402/core (x402-service.ts), which tests can make misbehave.
   */
  madeWith?: "@x402/express" | "@x402/hono" | "@x402/next";
  /**
   * Declares x402 `offer-receipt`: the 402 carries an offer for each payment option, and a paid
   * answer a receipt naming its transaction, both signed (EIP-712) with the payee's own key, as
   * the spec's simplest binding of a key to a service has it.
   */
  signsReceipts?: boolean;
  discovery: DeclareDiscoveryExtensionInput;
  handle(request: ServiceRequest): Promise<unknown>;
};

/** How a channel service deals with its payers' deposits. */
export type ChannelTerms = {
  /** The deposit its 402 suggests (`extra.minDeposit`), atomic USDC; the payer may deposit more. */
  deposit: bigint;
  /**
   * After how many paid calls it claims its payers' latest vouchers and sweeps what it claimed to
   * its payee; "never": it never claims, so a payer gets its whole deposit back by withdrawing.
   */
  claimEvery: number | "never";
  /** Whether it answers a payer's request for a cooperative refund; when not (503), the payer's way back is a withdrawal after the delay. */
  refunds: boolean;
  /** Also takes `exact` at the same price, listed after the channel option, for a payer without channels. */
  alsoExact?: boolean;
};

export function requiredParam(query: URLSearchParams, name: string): string {
  const value = query.get(name)?.trim();
  if (!value) throw new ServiceInputError(`query parameter "${name}" is required`);
  return value;
}

export function latencyTag(latencyMs: number): string {
  return `latency-ms:${latencyMs}`;
}

export function formatLatency(latencyMs: number): string {
  return latencyMs < 1_000 ? `${latencyMs} ms` : `${latencyMs / 1_000} s`;
}

export type ServiceScheme = "exact" | "upto" | "batch-settlement";

/** The x402 schemes a service takes payment in, in the order its 402 offers them. */
export function schemesOf(definition: ServiceDefinition): ServiceScheme[] {
  if (definition.channel) return definition.channel.alsoExact ? ["batch-settlement", "exact"] : ["batch-settlement"];
  return [definition.upto ? "upto" : "exact"];
}
