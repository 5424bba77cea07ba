/**
 * A quotation on a topic, from a small local collection. Served by a Next.js App Router route
 * handler wrapped with `@x402/next`'s `withX402` (deployed.ts); the same collection over MPP, and
 * over a channel by a service that goes silent (quotesSilent).
 */
import { latencyTag, requiredParam, ServiceInputError, type ServiceDefinition } from "./definition";

const QUOTES: Record<string, { text: string; author: string }> = {
  money: { text: "Beware of little expenses; a small leak will sink a great ship.", author: "Benjamin Franklin" },
  time: { text: "Lost time is never found again.", author: "Benjamin Franklin" },
  work: { text: "Well begun is half done.", author: "Aristotle" },
  patience: { text: "Adopt the pace of nature: her secret is patience.", author: "Ralph Waldo Emerson" },
};
export const QUOTE_TOPICS = Object.keys(QUOTES);

export const quotations: ServiceDefinition = {
  name: "quotations",
  serviceName: "Quote Garden",
  description: `A famous quotation on a topic (${QUOTE_TOPICS.join(", ")}).`,
  method: "GET",
  path: "/api/quote",
  price: 1_000n, // 0.001 USDC
  latencyMs: 100,
  tags: ["quotation", "quotes", latencyTag(100)],
  madeWith: "@x402/next",
  discovery: {
    input: { topic: "money" },
    inputSchema: { properties: { topic: { type: "string", description: "What the quotation is about", enum: QUOTE_TOPICS } }, required: ["topic"] },
    output: {
      example: { topic: "money", ...QUOTES.money },
      schema: { properties: { topic: { type: "string" }, text: { type: "string" }, author: { type: "string" } }, required: ["topic", "text", "author"] },
    },
  },
  async handle({ query }) {
    const topic = requiredParam(query, "topic").toLowerCase();
    const quote = QUOTES[topic];
    if (!quote) throw new ServiceInputError(`no quotation on "${topic}"; known: ${QUOTE_TOPICS.join(", ")}`);
    return { topic, ...quote };
  },
};

/**
 * Quotations from the same collection over the Machine Payments Protocol (mppx's server): a
 * second MPP service, cheaper than the x402 one, so a comparison across protocols can go MPP's way.
 */
export const quotationsMpp: ServiceDefinition = {
  name: "quotations-mpp",
  serviceName: "Maxim Machine",
  description: `A famous quotation on a topic (${QUOTE_TOPICS.join(", ")}), paid over MPP.`,
  method: "GET",
  path: "/maxim",
  price: 800n, // 0.0008 USDC
  latencyMs: 100,
  tags: ["quotation", "quotes", latencyTag(100)],
  protocol: "mpp",
  discovery: quotations.discovery,
  handle: quotations.handle,
};

/**
 * Quotations paid per call from a deposit (an x402 `batch-settlement` channel, 0.002 USDC a call,
 * 0.02 USDC suggested) by a service that goes silent: it serves every paid call but never claims
 * a voucher and never answers a request for a cooperative refund (503), so a payer gets its deposit
 * back only by withdrawing it after the channel's delay, and gets it back whole (unclaimed
 * vouchers are the service's loss). It also takes `exact` at the same price, for a payer without
 * channels (settled at once, like any other). For tests: left out of the registry unless
 * test-only services are asked for.
 */
export const quotesSilent: ServiceDefinition = {
  name: "quotes-silent",
  serviceName: "Quote Stream",
  description: `A famous quotation on a topic (${QUOTE_TOPICS.join(", ")}), paid per call from a deposit (an x402 batch-settlement channel); also payable per call.`,
  method: "GET",
  path: "/quote",
  price: 2_000n, // 0.002 USDC a call
  latencyMs: 50,
  tags: ["quotation", "quotes", "channel", latencyTag(50)],
  testOnly: true,
  channel: { deposit: 20_000n, claimEvery: "never", refunds: false, alsoExact: true },
  discovery: quotations.discovery,
  handle: quotations.handle,
};
