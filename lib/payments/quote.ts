// Request A of the approval round trip (docs/contract.md, section 4): call the service, and on HTTP 402 read
// what it asks, choose what to pay (only what a rail can pay; among that, what is within the
// per-payment limit first, then the default chain, then the cheapest), run pre-flight, and quote
// the payment for the payer's wallet to sign, with a token that carries the quote to request B.
// Nothing is paid here: paying needs the signature, which comes with request B (./approval.ts).
// A door reaches it through the front door (./index.ts): it hears each step as an update and
// gets a typed result, whose reasons it words for its own people.
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { appendPaymentIdentifierToExtensions, PAYMENT_IDENTIFIER } from "@x402/extensions/payment-identifier";
import { claimCooldown, } from "@/lib/cooldown";
import type { Database } from "@/lib/db";
import type { ServerEnv } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { formatDollars } from "@/lib/money";
import { cleanText } from "@/lib/text";
import { listingInput, serviceInputProblem, serviceRefusalProblem } from "@/lib/x402/service-input";
import { callService, callSizeProblem, readServiceBody, ServiceUnreachableError, type ServiceCall } from "@/lib/net/service-call";
import { typicalFromTags } from "@/lib/discovery/listings";
import { chooseAgentBudget, type AgentBudgetUse } from "./agent-budget";
import type { DoorPolicy } from "./policy";
import { channelFactsOf, issueApproval, newPaymentId, type ApprovalClaims } from "./approval-token";
import { findDrawBreach, findPaymentByNonce } from "./ledger";
import { findLiveChannel } from "./ledger/channels";
import type { SpendingLimits } from "./limits";
import type { PaymentApproval, PaymentEnd, PaymentFacts, PaymentFailureCode, PaymentUpdate } from "./payment";
import { describeBreach, runPreflight, type PreflightResult } from "./preflight";
import { describeOperation, infoOf, readPaymentRequest } from "./protocols";
import { paymentRails, type PayableOption, type RailEnv } from "./rails";
import type { ChannelConfig, ChannelScheme, PayableRequirement, PaymentRail, PaymentScheme, PreparedPayment, WalletFallback } from "./rails/rail";
import { checkOffer } from "./receipt";

export type QuotePaymentParameters = {
  db: Database;
  env: ServerEnv;
  call: ServiceCall;
  /**
   * The person's wallets, by the CAIP-2 namespace of the rail each pays on (an EVM wallet, a
   * Solana wallet): a service is paid from the one of its rail, and all of them count against
   * one set of limits. Without any, a paid service asks for a wallet first.
   */
  wallets: Readonly<Record<string, string>>;
  /** The page's channel keys, by rail namespace: with one, a service's pay-as-you-go channel can be paid (CreateQuoteParameters). */
  channelKeys?: Readonly<Partial<Record<string, string>>>;
  limits: SpendingLimits;
  defaultChain: string | undefined;
  policy: QuotePolicy;
  signal: AbortSignal;
};

/** What a door sets for its quotes: the parts of its policy that apply to request A. */
export type QuotePolicy = Pick<DoorPolicy, "binding" | "admission" | "budget">;

/**
 * What request A came to, as reasons a door words for its own people (lib/tools/pay.ts words
 * them for the model and an AI app alike). Whatever reached a payment card was told as updates.
 */
export type QuoteResult =
  /** The service answered without asking to be paid. */
  | { kind: "free"; data: unknown }
  /** The service answered with an error, and asked for no payment (`problem`: why it refused, in its own terms, when it says). */
  | { kind: "service-error"; httpStatus: number; problem?: string }
  /** Nothing was sent: the call is larger than an approval can carry (`problem`, in the person's words). */
  | { kind: "too-large"; problem: string }
  /** The service could not be reached (`problem`, in the person's words). */
  | { kind: "unreachable"; problem: string }
  /** The service asked for payment in a form that is neither x402 nor an MPP challenge. */
  | { kind: "unreadable" }
  /** The service says it would refuse this request (`problem`: which input, in the person's words). */
  | { kind: "bad-input"; problem: string }
  /** A paid service, and no wallet to pay it from. */
  | { kind: "wallet-needed" }
  /** The door's cooldown holds this quote back: nothing was quoted. */
  | { kind: "rate-limited"; retryAfterSeconds: number; wait: string }
  /** None of the service's payment options can be paid here (`message`: why, in the person's words). */
  | { kind: "not-payable"; message: string }
  /** Quoted, then refused before the wallet was asked (told on the card as `failed`). */
  | { kind: "failed"; paymentId: string; code: PaymentFailureCode; end: PaymentEnd; message: string; why: "preflight" | "identical" | "too-large" }
  /** Waiting for the wallet's signature, or the agent budget's: the quote as told on the card. */
  | { kind: "quoted"; paymentId: string; quote: QuotedUpdate };

/** The `awaiting-signature` update of a quote: its facts, and what the wallet signs. */
export type QuotedUpdate = PaymentUpdate & { stage: "awaiting-signature"; approval: PaymentApproval };

/** Request A: calls the service and, on HTTP 402, quotes the payment, telling each step through `emit`. */
export async function quotePayment(parameters: QuotePaymentParameters, emit: (update: PaymentUpdate) => void): Promise<QuoteResult> {
  const { call, env, policy } = parameters;
  // The approval token carries the request, so a request too large for it is refused now,
  // before anything is sent, rather than quoted and then impossible to approve.
  const tooLarge = callSizeProblem(call);
  if (tooLarge) return { kind: "too-large", problem: tooLarge };
  let response: Response;
  try {
    response = await callService(call, { signal: parameters.signal, allowPrivate: env.X402_ALLOW_PRIVATE_ADDRESSES });
  } catch (error) {
    if (!(error instanceof ServiceUnreachableError)) throw error;
    return { kind: "unreachable", problem: error.message };
  }
  if (response.status !== 402) {
    const data = await readServiceBody(response);
    if (!response.ok) return { kind: "service-error", httpStatus: response.status, ...(await refusalOf(response.status, data, parameters)) };
    return { kind: "free", data };
  }

  const rails = paymentRails(env);
  const asked = await readPaymentRequest({ response, body: await readServiceBody(response), call }, (requirements, x402Version) => rails.check(requirements, x402Version).payable);
  if (asked.kind === "unreadable") return { kind: "unreadable" };
  if (asked.kind === "unpayable") return { kind: "not-payable", message: asked.message };
  const { paymentRequired, protocol } = asked;
  const serviceName = cleanText(paymentRequired.resource?.serviceName || new URL(call.url).host, 80);
  // A request the service says it would refuse is not quoted: the person would sign for nothing.
  const inputProblem = serviceInputProblem(paymentRequired, call, serviceName);
  if (inputProblem) return { kind: "bad-input", problem: inputProblem };
  const wallets = Object.values(parameters.wallets);
  if (wallets.length === 0) return { kind: "wallet-needed" };
  if (policy.admission) {
    try {
      await claimCooldown({ db: parameters.db, ...policy.admission });
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== "rate-limited") throw error;
      const retryAfterSeconds = Number((error.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds ?? policy.admission.seconds);
      return { kind: "rate-limited", retryAfterSeconds, wait: error.message };
    }
  }
  let quote = await createQuote({
    paymentRequired,
    wallet: parameters.wallets,
    perPaymentLimit: parameters.limits.perPayment,
    defaultChain: parameters.defaultChain,
    env,
    ...(parameters.channelKeys
      ? {
          channelKeys: parameters.channelKeys,
          // A hold serves the service it was opened for: this origin, this payment option but its amount.
          liveChannel: (option) =>
            findLiveChannel(parameters.db, { ...option, wallet: option.payer, binding: { serviceOrigin: new URL(call.url).origin, requirements: option.requirements } }),
        }
      : {}),
  });
  if ("code" in quote) return { kind: "not-payable", message: quote.message };

  const paymentId = newPaymentId();
  const facts: PaymentFacts = {
    paymentId,
    service: { name: serviceName, url: call.url },
    network: quote.network,
    amount: quote.amount,
    ...(quote.scheme.usagePriced ? { upTo: true as const, ...typicalOf(paymentRequired.resource?.tags, quote.amount) } : {}),
    payTo: quote.payTo,
    protocol: infoOf(protocol),
    ...(quote.channel ? { channel: channelFactsOf(channelClaims(quote.channel)) } : {}),
  };
  emit({ facts, stage: "checking" });
  // A small payment within the page's agent budget is signed by its session key, without a
  // prompt; anything else asks the wallet, saying why when a budget was there but did not apply.
  const { rail, scheme, network, amount, payer: wallet } = quote;
  const { db, limits } = parameters;
  // The person's other wallets, whose payments count against the same limits.
  const countedWith = wallets.filter((other) => other !== wallet);
  const notes: string[] = [];
  // The agent budget pays fixed prices only: its session key holds no Permit2 allowance, which a
  // usage-priced payment needs, so the wallet signs those.
  // A channel's calls are signed by the page's channel key, and its deposit by the wallet.
  const offered = policy.budget && "threshold" in policy.budget && !scheme.usagePriced && !quote.channel ? policy.budget : undefined;
  const choice = await chooseAgentBudget({ db, grant: offered?.grant, wallet, rail, network, amount, threshold: offered?.threshold ?? 0n });
  if (policy.budget && "withheld" in policy.budget) notes.push(policy.budget.withheld);
  let budget: AgentBudgetUse | undefined;
  let preflight: PreflightResult | undefined;
  if (choice.use) {
    // The same option, signed by the session key instead of the wallet.
    const fromBudget = exposing(await scheme.prepare({ paymentRequired, requirement: quote, payer: choice.budget.payer }), quote);
    const checked = await runPreflight({ db, wallet, countedWith, budget: choice.budget, rail, network, amount, limits });
    if (checked.ok || checked.code === "limit-exceeded") {
      quote = { ...quote, ...fromBudget, payer: choice.budget.payer };
      budget = choice;
      preflight = checked;
    } else {
      // The session address holds less than the grant says is left (moved away, or not yet
      // funded): the wallet pays this one.
      notes.push(`${checked.message} This payment needs your wallet's approval.`);
    }
  } else if (choice.note) {
    notes.push(choice.note);
  }
  if (quote.channel?.note) notes.push(quote.channel.note);
  // A call on an open channel is a draw from a deposit the limits count already: it is held to
  // every limit of this door as a payment of its price (the ledger takes it again, atomically,
  // when it is approved), and nothing of the wallet's balance is asked.
  if (quote.channel && !quote.channel.opening) {
    const breach = await findDrawBreach(db, { wallet: [wallet, ...countedWith], amount, limits });
    preflight = breach ? { ok: false, code: "limit-exceeded", message: describeBreach(breach), breach } : { ok: true, balance: 0n, warnings: [] };
  }
  preflight ??= await runPreflight({ db, wallet, countedWith, rail, network, amount, limits });
  if (budget) facts.paidFrom = "agent-budget";
  const fail = (code: PaymentFailureCode, end: PaymentEnd, message: string, why: Extract<QuoteResult, { kind: "failed" }>["why"], remedy?: WalletFallback): QuoteResult => {
    emit({ facts, stage: "failed", reason: { code, message, ...(remedy ? { remedy } : {}) } });
    return { kind: "failed", paymentId, code, end, message, why };
  };
  if (!preflight.ok) {
    const { code, message } = preflight;
    return code === "blockchain-error" ? fail("network-congestion", "payment-failed", message, "preflight") : fail(code, code, message, "preflight");
  }
  // What the scheme needs of the payer first (for `upto`, Permit2's allowance): said before signing.
  const notReady = await scheme.readiness?.({ network, payer: quote.payer, amount, prepared: quote });
  if (notReady) return fail("payment-failed", "payment-failed", notReady.message, "preflight", notReady.remedy);

  // A quote alike in every byte to a payment already sent (a service that fixes everything that
  // tells its payments apart, within one blockhash on Solana) could only be that payment again:
  // said plainly now rather than signed, and never told as the other payment's outcome.
  const earlier = await findPaymentByNonce(db, quote.exposure.instrument);
  if (earlier) {
    const message = `${serviceName} asked for a payment identical, byte for byte, to one already sent moments ago (the service fixes every detail that would tell them apart), so approving it could only repeat that payment. Nothing was quoted or paid; ask again in a few seconds for a fresh quote.`;
    return fail("payment-failed", "payment-failed", message, "identical");
  }

  // A service that signs its offers (x402 `offer-receipt`): its offer for these terms is checked
  // now, and its receipt after payment is held to it. One that does not verify is said now.
  const offer = await checkOffer({ paymentRequired, quoted: quote, resourceUrl: call.url });
  if (offer?.problem) {
    notes.push(`${serviceName}'s signed offer did not verify (${offer.problem}): a receipt it gives for this payment will not count as proof.`);
  }
  const claims: ApprovalClaims = {
    v: 1,
    paymentId,
    wallet,
    service: { name: serviceName, ...call },
    network: network.id,
    scheme: scheme.scheme,
    asset: quote.asset,
    payTo: quote.payTo,
    amount: amount.toString(),
    nonce: quote.exposure.instrument,
    expiresAt: quote.exposure.until,
    toSign: quote.toSign,
    payload: withPaymentIdentifier(quote.unsignedPayload, paymentId),
    ...(budget ? { agentBudget: budget.grant } : {}),
    ...(countedWith.length > 0 ? { countedWith } : {}),
    ...(offer ? { offer } : {}),
    ...(quote.channel ? { channel: channelClaims(quote.channel) } : {}),
    binding: policy.binding,
  };
  const token = issueApproval(claims, env);
  if (token === undefined) return fail("payment-failed", "payment-failed", `${serviceName}'s payment request is too large to approve here.`, "too-large");
  const quoted: QuotedUpdate = {
    facts,
    stage: "awaiting-signature",
    approval: { toSign: quote.toSign, token, expiresAt: new Date(quote.exposure.until * 1000) },
    warnings: [...notes, ...preflight.warnings],
    ...(quote.networkChoice ? { networkChoice: quote.networkChoice } : {}),
  };
  emit(quoted);
  return { kind: "quoted", paymentId, quote: quoted };
}

export type PaymentQuote = PayableRequirement &
  PreparedPayment & {
    x402Version: number;
    rail: PaymentRail;
    scheme: PaymentScheme;
    payer: string;
    /** When the service takes more than one network: why this one, in the person's words. */
    networkChoice?: string;
    /** Paid through a pay-as-you-go channel: `amount` is then the deposit when opening, else the call's price. */
    channel?: ChannelQuote;
  };

export type QuoteRefusal = { code: "payment-failed"; message: string };

export type CreateQuoteParameters = {
  paymentRequired: PaymentRequired;
  /**
   * Who would pay. One address pays on any rail that accepts it (a test's key, an agent budget's
   * session key); the person's wallets by rail namespace pay on their own rail only, and a
   * service's options on a rail with no wallet connected are not chosen.
   */
  wallet: string | Readonly<Record<string, string>>;
  perPaymentLimit: bigint;
  defaultChain: string | undefined;
  env: RailEnv;
  /**
   * The page's channel keys by rail namespace (the `payerAuthorizer` of a pay-as-you-go channel,
   * whose vouchers the page signs without a prompt). Without one, a service's channel option is
   * not a candidate, and the service is paid another way it takes.
   */
  channelKeys?: Readonly<Partial<Record<string, string>>>;
  /** This payer's live channel with the option's service under that key, opened on this option (`requirements`), from the ledger. */
  liveChannel?: (option: { payer: string; network: string; receiver: string; channelKey: string; requirements: PayableRequirement["requirements"] }) => Promise<LiveChannel | undefined>;
};

/** What the ledger holds of a channel a quote may pay through: `price`, a call's price when it was opened. */
export type LiveChannel = { channelId: string; config: ChannelConfig; state: "opening" | "open"; deposit: bigint; vouched: bigint; price: bigint };

/** How a quote pays through a channel: opening it (the deposit, then the first call) or one call on it (from `expected`, the ledger's cumulative base). */
export type ChannelQuote = {
  channelId: string;
  opening: boolean;
  price: bigint;
  deposit: bigint;
  /** The cumulative amount vouched before this call, as the ledger held it when quoted. */
  expected: bigint;
  withdrawDelaySeconds: number;
  /** Why a new channel is opened while one exists, or why this call asks the person, in their words. */
  note?: string;
  /** A call the person confirms before the channel key signs it: priced above what the channel was opened at. */
  confirm?: true;
};

type Candidate = PayableOption & { payer: string };

/**
 * Chooses what to pay among the options a service accepts, and builds what the payer's wallet
 * signs. Only options a rail's scheme can pay, with a wallet to pay them, are candidates; among them,
 * those within the per-payment limit come first, then the default chain, then the cheapest.
 * When every candidate is above the limit the cheapest is still quoted: pre-flight then refuses
 * it as `limit-exceeded`, so the person sees the price and the limit that stopped it on a
 * payment card, like any other limit (docs/contract.md, section 3, `checking`).
 */
export async function createQuote({ paymentRequired, wallet, perPaymentLimit, defaultChain, env, channelKeys, liveChannel }: CreateQuoteParameters): Promise<PaymentQuote | QuoteRefusal> {
  const rails = paymentRails(env);
  const candidates: Candidate[] = [];
  const reasons: string[] = [];
  const walletless: string[] = [];
  for (const requirements of paymentRequired.accepts) {
    const check = rails.check(requirements, paymentRequired.x402Version, wallet);
    if (!check.payable) {
      reasons.push(check.reason);
      continue;
    }
    const payer = typeof wallet === "string" ? wallet : wallet[check.rail.namespace];
    // A channel's vouchers are the page's channel key's to sign: without one, another option pays.
    if (check.scheme.channel && !channelKeys?.[check.rail.namespace]) {
      reasons.push("a pay-as-you-go channel needs the page's channel key, which this request did not bring");
      continue;
    }
    if (payer) candidates.push({ ...check, payer });
    else walletless.push(check.network.name);
  }
  if (candidates.length === 0) {
    if (walletless.length > 0) {
      return { code: "payment-failed", message: `The service takes payment on ${[...new Set(walletless)].join(" or ")} only, and no wallet for it is connected: connect one, then ask again.` };
    }
    return { code: "payment-failed", message: `The service asks for a payment this agent cannot make: ${[...new Set(reasons)].join("; ") || "no payment options"}.` };
  }
  const withinLimit = (candidate: PayableRequirement) => candidate.amount <= perPaymentLimit;
  candidates.sort(
    (a, b) =>
      Number(withinLimit(b)) - Number(withinLimit(a)) ||
      Number(b.network.id === defaultChain) - Number(a.network.id === defaultChain) ||
      // A channel pays repeat calls without a transaction or a prompt: it comes first at a price no higher.
      (a.amount === b.amount ? Number(b.scheme.channel !== undefined) - Number(a.scheme.channel !== undefined) : 0) ||
      (a.amount < b.amount ? -1 : a.amount > b.amount ? 1 : 0),
  );
  const first = candidates[0] as Candidate;
  // Above the limit, the card shows the lowest price asked, not the default chain's.
  const chosen = withinLimit(first) ? first : candidates.reduce((cheapest, next) => (next.amount < cheapest.amount ? next : cheapest));
  const channelKey = channelKeys?.[chosen.rail.namespace];
  if (chosen.scheme.channel && channelKey) {
    const through = await channelQuote({ chosen, channel: chosen.scheme.channel, channelKey, x402Version: paymentRequired.x402Version, perPaymentLimit, liveChannel });
    if ("code" in through) return through;
    return { x402Version: paymentRequired.x402Version, ...chosen, ...through.prepared, amount: through.channel.opening ? through.channel.deposit : chosen.amount, channel: through.channel };
  }
  const prepared = exposing(await chosen.scheme.prepare({ paymentRequired, requirement: chosen, payer: chosen.payer }), chosen);
  const networkChoice = withinLimit(chosen) ? whyThisNetwork({ chosen, candidates, walletless, defaultChain, withinLimit }) : undefined;
  return { x402Version: paymentRequired.x402Version, ...chosen, ...prepared, ...(networkChoice ? { networkChoice } : {}) };
}

/** What the approval token carries of a channel quote. */
function channelClaims(channel: ChannelQuote): NonNullable<ApprovalClaims["channel"]> {
  return {
    id: channel.channelId,
    opening: channel.opening,
    price: channel.price.toString(),
    deposit: channel.deposit.toString(),
    expected: channel.expected.toString(),
    withdrawDelaySeconds: channel.withdrawDelaySeconds,
    ...(channel.confirm ? { confirm: true as const } : {}),
  };
}

/** A deposit when the service suggests none: this many calls. */
const DEFAULT_DEPOSIT_CALLS = 20n;

/**
 * Paying through a channel: one call on the live one when its deposit covers it, else opening
 * one. The deposit is what the service suggests (or 20 calls), at most the per-payment limit (it
 * is one signature that moves money) and never less than one call. A voucher's cumulative amount
 * is the ledger's, never the service's.
 */
async function channelQuote({
  chosen,
  channel,
  channelKey,
  x402Version,
  perPaymentLimit,
  liveChannel,
}: {
  chosen: Candidate;
  channel: ChannelScheme;
  channelKey: string;
  x402Version: number;
  perPaymentLimit: bigint;
  liveChannel: CreateQuoteParameters["liveChannel"];
}): Promise<{ prepared: PreparedPayment; channel: ChannelQuote } | QuoteRefusal> {
  const price = chosen.amount;
  const { withdrawDelaySeconds, suggestedDeposit } = channel.terms(chosen);
  const live = await liveChannel?.({ payer: chosen.payer, network: chosen.network.id, receiver: chosen.payTo, channelKey, requirements: chosen.requirements });
  if (live?.state === "opening") {
    return { code: "payment-failed", message: "Your deposit for this service is still being confirmed on chain. Nothing was paid; ask again in a moment." };
  }
  if (live && live.vouched + price <= live.deposit) {
    const prepared = await channel.call({ requirement: chosen, x402Version, config: live.config, cumulative: live.vouched + price });
    if (prepared.exposure.amount !== 0n) throw new Error("a channel's call exposed money of its own");
    // The deposit was agreed to at its opening price: a call priced above it is the person's to confirm.
    const raised =
      price > live.price
        ? { confirm: true as const, note: `This call costs ${formatDollars(price)}, more than the ${formatDollars(live.price)} a call cost when you opened this deposit: it is taken from the deposit only once you confirm it.` }
        : {};
    return { prepared, channel: { channelId: live.channelId, opening: false, price, deposit: live.deposit, expected: live.vouched, withdrawDelaySeconds, ...raised } };
  }
  const wanted = suggestedDeposit ?? price * DEFAULT_DEPOSIT_CALLS;
  const deposit = wanted > perPaymentLimit ? (perPaymentLimit > price ? perPaymentLimit : price) : wanted;
  const opened = await channel.open({ requirement: chosen, x402Version, payer: chosen.payer, channelKey, deposit });
  if (opened.exposure.amount !== deposit) throw new Error("a channel's opening exposes other than its deposit");
  const note = live ? "Your deposit with this service is used up: this opens a new one. Close the old one in Channels to get back what is left of it." : undefined;
  return {
    prepared: opened,
    channel: { channelId: opened.channelId, opening: true, price, deposit, expected: 0n, withdrawDelaySeconds, ...(note ? { note } : {}) },
  };
}

/**
 * A prepared payment whose exposure is what the core will count for it: the requirement's amount
 * (a usage-priced one's maximum). A scheme that exposes more than it asks to be counted for is a
 * fault of this server, never quoted.
 */
function exposing<P extends PreparedPayment>(prepared: P, requirement: Pick<PayableRequirement, "amount">): P {
  if (prepared.exposure.amount !== requirement.amount) throw new Error("a scheme prepared a payment whose exposure is not the amount it is counted for");
  return prepared;
}

/**
 * Why the quote pays on its network when the service takes others too: their wallet is not
 * connected, this is the person's default chain, the others are above the per-payment limit, or
 * this is the cheapest (or, at no lower price elsewhere, the one the service lists first).
 */
function whyThisNetwork({
  chosen,
  candidates,
  walletless,
  defaultChain,
  withinLimit,
}: {
  chosen: Candidate;
  candidates: readonly Candidate[];
  walletless: readonly string[];
  defaultChain: string | undefined;
  withinLimit: (candidate: PayableRequirement) => boolean;
}): string | undefined {
  const others = candidates.filter((candidate) => candidate.network.id !== chosen.network.id);
  const names = (list: readonly string[]) => [...new Set(list)].join(" or ");
  if (others.length === 0) {
    return walletless.length > 0 ? `The service also takes ${names(walletless)}; no wallet for it is connected.` : undefined;
  }
  const also = `The service also takes ${names([...others.map((other) => other.network.name), ...walletless])}`;
  if (chosen.network.id === defaultChain) return `${also}; this is your default chain.`;
  if (others.every((other) => !withinLimit(other))) return `${also}, above your per-payment limit there.`;
  if (others.every((other) => other.amount > chosen.amount)) return `${also}, at a higher price there.`;
  return `${also}, at no lower price; the service lists this one first.`;
}

/**
 * The payload with this payment's id in the `payment-identifier` extension, where the service
 * declared it: a retried call is then recognized by the service as the same payment. Outside the
 * signed part on both rails, so it changes nothing the wallet signs.
 */
function withPaymentIdentifier(payload: PaymentPayload, paymentId: string): PaymentPayload {
  if (!payload.extensions || !(PAYMENT_IDENTIFIER in payload.extensions)) return payload;
  return { ...payload, extensions: appendPaymentIdentifierToExtensions(structuredClone(payload.extensions), paymentId) };
}

/** What a usage-priced service says a usual request costs, as its listing does (a `typical-usd:` tag). */
function typicalOf(tags: readonly unknown[] | undefined, maximum: bigint): { typical?: bigint } {
  const typical = typicalFromTags(tags, maximum);
  return typical === undefined ? {} : { typical };
}

/** How long a refusal waits for the service's OpenAPI document, when it is not read already. */
const REFUSAL_LOOKUP_MS = 1_500;

/**
 * Why a service refused the call before asking to be paid (a 4xx), in its own terms: what its
 * own description declares (an OpenAPI document a protocol found it by, read by the first
 * discovery), else the message of its answer. A server error says nothing of the call.
 */
async function refusalOf(status: number, answer: unknown, { call, env, signal }: QuotePaymentParameters): Promise<{ problem?: string }> {
  if (status >= 500) return {};
  const operation = await describeOperation(env, call, { signal: AbortSignal.any([signal, AbortSignal.timeout(REFUSAL_LOOKUP_MS)]) });
  const problem = serviceRefusalProblem({ answer, call, serviceName: cleanText(operation?.name || new URL(call.url).host, 80), declared: listingInput(operation?.input) });
  return problem ? { problem } : {};
}
