// What the offline model says or does next, decided from the conversation alone. It recognises
// the five request kinds of docs/contract.md, section 1 by plain keyword rules, calls the same tools Gemini
// would, and answers from their results in sentences (a list of services, and a paid service's
// data, as a small table).
// The first reply of a conversation says once that it comes from the offline model.

import { dollarsOf } from "@/lib/money";
import { describeServiceData, rawDataBlock } from "@/lib/data-words";
import { serviceTable, type ServiceView } from "./service-table";

export type OfflineToolResult = { toolName: string; input: unknown; output: unknown; isError: boolean };

export type OfflineTurnInput = {
  userText: string;
  earlierUserTexts: string[];
  toolResults: OfflineToolResult[];
  availableTools: ReadonlySet<string>;
};

export type OfflineTurn =
  | { kind: "text"; text: string }
  | { kind: "tool"; toolName: string; input: Record<string, unknown> };

export const OFFLINE_NOTICE = "(Offline model: simple built-in rules answer, as no Gemini key is set.)";

type Intent =
  | { kind: "spending"; period?: "day" | "week" | "month" }
  | { kind: "preferences"; changes: Record<string, unknown> }
  | { kind: "compare"; query: string }
  | { kind: "discover"; query?: string }
  | { kind: "request"; topic: Topic }
  | { kind: "help" };

type Topic = { query: string; params: Record<string, string> };

export function decideOfflineTurn(input: OfflineTurnInput): OfflineTurn {
  const turn = decideTurn(input);
  // Said once, on the conversation's first answer: the page's banner says it all along.
  return turn.kind === "text" && input.earlierUserTexts.length === 0 ? { kind: "text", text: `${OFFLINE_NOTICE}\n\n${turn.text}` } : turn;
}

function decideTurn(input: OfflineTurnInput): OfflineTurn {
  const intent = classify(input.userText);
  const done = input.toolResults;
  const last = done.at(-1);

  if (last) {
    // A direct request goes on from the price comparison to paying the best match.
    if (
      intent.kind === "request" &&
      last.toolName === "comparePrices" &&
      !last.isError &&
      input.availableTools.has("payForService") &&
      !done.some((result) => result.toolName === "payForService")
    ) {
      const best = firstService(last.output);
      if (best) {
        const method = best.method === "POST" ? "POST" : "GET";
        // A POST service reads its parameters from a JSON body (as its listing declares), a GET one from the query.
        const params = hasKeys(intent.topic.params) ? { [method === "POST" ? "body" : "query"]: intent.topic.params } : {};
        return { kind: "tool", toolName: "payForService", input: { url: best.url, method, ...params } };
      }
    }
    return text(summarise(last));
  }

  const call = toolCallFor(intent);
  if (call && input.availableTools.has(call.toolName)) return call;
  if (call) {
    return text(
      `I understood that as a request to ${describe(call.toolName)}, but that tool is not available right now.`,
    );
  }
  return text(helpText());
}

function text(body: string): OfflineTurn {
  return { kind: "text", text: body };
}

type ToolTurn = Extract<OfflineTurn, { kind: "tool" }>;

function toolCallFor(intent: Intent): ToolTurn | undefined {
  switch (intent.kind) {
    case "spending":
      return { kind: "tool", toolName: "getSpending", input: intent.period ? { period: intent.period } : {} };
    case "preferences":
      return { kind: "tool", toolName: "updatePreferences", input: intent.changes };
    case "compare":
      return { kind: "tool", toolName: "comparePrices", input: { query: intent.query } };
    case "discover":
      return { kind: "tool", toolName: "discoverServices", input: intent.query ? { query: intent.query } : {} };
    case "request":
      return { kind: "tool", toolName: "comparePrices", input: { query: intent.topic.query } };
    case "help":
      return undefined;
  }
}

function describe(toolName: string): string {
  const names: Record<string, string> = {
    getSpending: "check your spending",
    updatePreferences: "change your settings",
    comparePrices: "compare prices",
    discoverServices: "list services",
    payForService: "pay for a service",
  };
  return names[toolName] ?? toolName;
}

// --- Understanding the request ----------------------------------------------------------------

function classify(raw: string): Intent {
  const text = raw.toLowerCase();
  if (/\b(spent|spending|spend so far|budget|remaining|left to spend|history|how much (have|did) i)\b/.test(text)) {
    const period = /\b(today|daily|day)\b/.test(text)
      ? "day"
      : /\b(week|weekly)\b/.test(text)
        ? "week"
        : /\b(month|monthly)\b/.test(text)
          ? "month"
          : undefined;
    return period ? { kind: "spending", period } : { kind: "spending" };
  }
  const changes = preferenceChanges(text);
  if (changes) return { kind: "preferences", changes };
  const topic = topicOf(raw);
  if (/\b(compare|comparison|cheapest|cheaper|fastest|faster|price list|prices of|prices for)\b/.test(text)) {
    return { kind: "compare", query: topic?.query ?? stripFiller(text) };
  }
  if (/\b(list|what services|which services|available services|discover|catalog|what can you (buy|pay))\b/.test(text)) {
    return topic ? { kind: "discover", query: topic.query } : { kind: "discover" };
  }
  if (topic) return { kind: "request", topic };
  // Anything else that asks for something ("Book me a flight to Rome") is looked for, so the
  // answer says whether a service for it exists; a greeting or "what can you do?" gets the help.
  const wanted = wantedWords(text);
  if (!isSmallTalk(text) && wanted) return { kind: "discover", query: wanted };
  return { kind: "help" };
}

/** A greeting, thanks, or a question about the agent itself. */
function isSmallTalk(text: string): boolean {
  return /^\s*(hi|hello|hey|thanks|thank you|good (morning|afternoon|evening)|help)\b/.test(text) || /\bwhat (can|do) you do\b|\bwho are you\b|\bhow does (this|it) work\b/.test(text);
}

const NOT_WANTED = new Set(
  "a an the me my i to for of in on at and or please can could would you your get find buy order book show tell give want need some any what whats is are how do does it this that with from about".split(" "),
);

/** The words of a request that say what is wanted ("flight rome"), or undefined when none are left. */
function wantedWords(text: string): string | undefined {
  const words = text
    .replace(/[^a-z0-9' ]+/g, " ")
    .split(/\s+/)
    .filter((word) => word.length > 2 && !NOT_WANTED.has(word.replace(/'s$/, "")));
  return words.length > 0 ? words.slice(0, 4).join(" ") : undefined;
}

function preferenceChanges(text: string): Record<string, unknown> | undefined {
  if (!/\b(prefer|preference|default (chain|network)|threshold|set|change|lower|raise|limit)\b/.test(text)) {
    return undefined;
  }
  const changes: Record<string, unknown> = {};
  if (/\bprefer\b.*\b(cheap|cheapest|cost|price)\b|\bpriority\b.*\bcost\b/.test(text)) changes.priority = "cost";
  if (/\bprefer\b.*\b(fast|fastest|speed|quick)\b|\bpriority\b.*\bspeed\b/.test(text)) changes.priority = "speed";
  const chain = /\bdefault (?:chain|network)\b/.test(text)
    ? /\b(base sepolia|base|sandbox|local|solana devnet|solana)\b/.exec(text)?.[1]
    : undefined;
  if (chain) {
    const ids: Record<string, string> = {
      "base sepolia": "eip155:84532",
      base: "eip155:8453",
      // The sandbox's Solana answers as devnet.
      "solana devnet": "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
      solana: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
    };
    changes.defaultChain = ids[chain] ?? "eip155:31337";
  }
  const limits: Record<string, string> = {};
  for (const match of text.matchAll(/\b(daily|weekly|monthly|per[- ]payment)\s+limit\s+(?:to|of|at)?\s*\$?\s*(\d+(?:\.\d{1,6})?)/g)) {
    const period = match[1] ?? "";
    const key = period.startsWith("per") ? "perPayment" : period;
    limits[key] = match[2] ?? "";
  }
  if (hasKeys(limits)) changes.spendingLimits = limits;
  const threshold = /\bthreshold\s+(?:to|of|at)?\s*\$?\s*(\d+(?:\.\d{1,6})?)/.exec(text)?.[1];
  if (threshold) changes.confirmationThreshold = threshold;
  return hasKeys(changes) ? changes : undefined;
}

/** What a request is about, with the parameters a service of that kind takes. */
function topicOf(raw: string): Topic | undefined {
  const text = raw.toLowerCase();
  if (/\bweather|forecast|temperature\b/.test(text)) {
    const city = /\b(?:in|for|at|on)\s+([A-Za-z][A-Za-z .'-]*?)(?:[?.!,]|\s+(?:today|tomorrow|now|please)\b|$)/.exec(raw)?.[1]?.trim();
    return { query: "weather", params: city ? { city } : {} };
  }
  if (/\b(bitcoin|btc|ether|eth|solana|sol|crypto)\b/.test(text)) {
    const symbol = /\b(bitcoin|btc)\b/.test(text) ? "BTC" : /\b(solana|sol)\b/.test(text) ? "SOL" : /\b(ether|eth)\b/.test(text) ? "ETH" : undefined;
    return { query: "crypto price", params: symbol ? { symbol } : {} };
  }
  const ticker = /\b(aapl|msft|nvda|tsla|spy)\b/.exec(text)?.[1];
  if (ticker || /\b(stocks?|share price|ticker)\b/.test(text)) {
    return { query: "stock price", params: ticker ? { symbol: ticker.toUpperCase() } : {} };
  }
  if (/\b(news|headlines?)\b/.test(text)) {
    const topic = /\b(?:about|on)\s+([a-z ]+?)(?:[?.!,]|$)/.exec(text)?.[1]?.trim();
    return { query: "news", params: topic ? { topic } : {} };
  }
  const conversion = /\bconvert\s+(\d+(?:\.\d+)?)\s*([a-z]{3})\s+(?:to|in|into)\s+([a-z]{3})\b/.exec(text);
  if (conversion || /\b(exchange rate|currency)\b/.test(text)) {
    return {
      query: "currency conversion",
      params: conversion
        ? { amount: conversion[1] ?? "", from: (conversion[2] ?? "").toUpperCase(), to: (conversion[3] ?? "").toUpperCase() }
        : {},
    };
  }
  const define = /\b(?:define|definition of|meaning of)\s+(?:the\s+word\s+)?["“]?([a-z]+)/.exec(text);
  if (define) return { query: "dictionary", params: { word: define[1] ?? "" } };
  if (/\btranslate\b/.test(text)) {
    const quoted = /["“](.+?)["”]/.exec(raw)?.[1];
    const target = /\b(?:to|into)\s+([a-z]+)\s*[?.!]?\s*$/.exec(text)?.[1];
    return { query: "translate", params: { ...(quoted ? { text: quoted } : {}), ...(target ? { to: target } : {}) } };
  }
  if (/\b(quotation|maxim)s?\b/.test(text)) {
    const topic = /\b(?:about|on)\s+([a-z]+)/.exec(text)?.[1];
    return { query: "quotation", params: topic ? { topic } : {} };
  }
  const search = /\bsearch\s+(?:the\s+)?(?:x402\s+)?(?:notes|docs|documentation|library)\s+(?:for|about|on)\s+["“]?([^"”?!.]+)/i.exec(raw);
  if (search) return { query: "search documentation", params: { q: (search[1] ?? "").trim() } };
  if (/\bsummari[sz]e\b/.test(text)) {
    // The text in quotes, else whatever follows a colon ("Summarize this text: …").
    const given = /["“](.+?)["”]/s.exec(raw)?.[1] ?? /\bsummari[sz]e\b[^:]*:\s*([\s\S]+)$/i.exec(raw)?.[1]?.trim();
    return { query: "summarize", params: given ? { text: given } : {} };
  }
  return undefined;
}

function stripFiller(text: string): string {
  return text.replace(/\b(compare|the|prices?|of|for|please|services?|cheapest|fastest)\b/g, " ").replace(/\s+/g, " ").trim();
}

// --- Answering from tool results ----------------------------------------------------------------

function firstService(output: unknown): ServiceView | undefined {
  const list = servicesOf(output);
  return list[0];
}

function servicesOf(output: unknown): ServiceView[] {
  const list = isRecord(output) && Array.isArray(output.services) ? output.services : Array.isArray(output) ? output : [];
  return list.flatMap((item): ServiceView[] => {
    if (!isRecord(item) || typeof item.url !== "string") return [];
    return [
      {
        url: item.url,
        ...(typeof item.name === "string" ? { name: item.name } : {}),
        ...(typeof item.method === "string" ? { method: item.method } : {}),
        ...(typeof item.protocol === "string" ? { protocol: item.protocol } : {}),
        ...(typeof item.protocolLabel === "string" ? { protocolLabel: item.protocolLabel } : {}),
        ...(typeof item.priceUsd === "string" ? { priceUsd: item.priceUsd } : {}),
        ...(item.upTo === true ? { upTo: true } : {}),
        ...(typeof item.typicalUsd === "string" ? { typicalUsd: item.typicalUsd } : {}),
        ...(typeof item.network === "string" ? { network: item.network } : {}),
        ...(typeof item.chain === "string" ? { chain: item.chain } : {}),
        ...(typeof item.description === "string" ? { description: item.description } : {}),
        ...(typeof item.latencyMs === "number" ? { latencyMs: item.latencyMs } : {}),
        ...trackRecordOf(item.lastThirtyDays),
      },
    ];
  });
}

function trackRecordOf(value: unknown): Pick<ServiceView, "paidCalls" | "uniquePayers"> {
  if (!isRecord(value)) return {};
  return {
    ...(typeof value.paidCalls === "number" ? { paidCalls: value.paidCalls } : {}),
    ...(typeof value.uniquePayers === "number" ? { uniquePayers: value.uniquePayers } : {}),
  };
}

function summarise(result: OfflineToolResult): string {
  if (result.isError) return `That did not work: ${stringify(result.output)}`;
  const output = result.output;
  switch (result.toolName) {
    case "discoverServices":
    case "comparePrices": {
      const services = servicesOf(output);
      const notes = [
        ...(isRecord(output) && typeof output.trackRecordNote === "string" ? [output.trackRecordNote] : []),
        ...(isRecord(output) && Array.isArray(output.searchNotes) ? output.searchNotes.filter((note): note is string => typeof note === "string") : []),
      ];
      if (services.length === 0) {
        const query = isRecord(result.input) && typeof result.input.query === "string" ? result.input.query : undefined;
        const unknown = isRecord(output) && output.incomplete === true;
        const none = unknown
          ? `I could not search everywhere${query ? ` for "${query}"` : ""}, so I cannot say that no paid service for it exists.`
          : query
            ? `No paid service for "${query}" was found in the x402 registries or the MPP services.`
            : "I found no matching paid services (x402 registries, MPP services).";
        return [none, ...notes, "What I can get: weather, crypto and stock prices, news, currency conversion, definitions, translations, quotations, summaries of a text and searches of the x402 notes."].join("\n");
      }
      const heading = result.toolName === "comparePrices" ? "Here is how they compare, best first:" : "These paid services are available:";
      return [heading, serviceTable(services), ...notes].join("\n\n");
    }
    case "payForService":
      if (isRecord(output) && output.status === "delivered" && "data" in output) return deliveredWords(output);
      if (isRecord(output) && typeof output.summary === "string") return output.summary;
      return `Result of ${describe(result.toolName)}:\n${stringify(output)}`;
    default:
      if (isRecord(output) && typeof output.summary === "string") return output.summary;
      return `Result of ${describe(result.toolName)}:\n${stringify(output)}`;
  }
}

/** A delivered payment: what was paid, to whom, and the service's answer as a person reads it. */
function deliveredWords(output: Record<string, unknown>): string {
  const service = typeof output.service === "string" ? output.service : "The service";
  const network = typeof output.network === "string" ? ` on ${output.network}` : "";
  const text = (field: string) => (typeof output[field] === "string" ? (output[field] as string) : undefined);
  const [paidUsd, maxUsd, heldUsd, heldUntil] = [text("paidUsd"), text("maxUsd"), text("heldUsd"), text("heldUntil")];
  const [depositUsd, leftInDepositUsd] = [text("depositUsd"), text("leftInDepositUsd")];
  let sentence: string;
  if (depositUsd !== undefined && paidUsd !== undefined) {
    // A call on a pay-as-you-go channel: taken from the deposit the person signed, no transaction of its own.
    const left = leftInDepositUsd !== undefined ? ` (${dollarsOf(leftInDepositUsd)} left in it)` : "";
    sentence = `Paid ${dollarsOf(paidUsd)} to ${service}${network} from your deposit of ${dollarsOf(depositUsd)}${left}.`;
  } else if (heldUsd !== undefined) {
    // Usage-priced, nothing settled yet: the maximum still counts, and may still move.
    const until = heldUntil && !Number.isNaN(Date.parse(heldUntil)) ? ` until ${new Date(heldUntil).toISOString().slice(11, 16)} UTC` : "";
    sentence = `${service}${network} charged nothing so far: its maximum of ${dollarsOf(heldUsd)} stays held against your limits${until} unless it collects it.`;
  } else if (paidUsd !== undefined && maxUsd !== undefined) {
    sentence = `Charged ${dollarsOf(paidUsd)} of the up to ${dollarsOf(maxUsd)} approved, by ${service}${network}.`;
  } else {
    sentence = `${paidUsd !== undefined ? `Paid ${dollarsOf(paidUsd)}` : "Paid"} to ${service}${network}.`;
  }
  return `${sentence} Its answer:\n\n${describeServiceData(output.data)}\n\n${rawDataBlock(output.data)}`;
}

function helpText(): string {
  return [
    "I can find paid services (x402 ones in the registries and MPP ones), compare their prices, and pay them in USDC within your limits, with your wallet's signature.",
    "What I can get: the weather, crypto and stock prices, news headlines, currency conversion, definitions, translations, quotations (an MPP service), a summary of a text (priced by use: up to a maximum, charged what it uses), a search of the x402 notes, and market ticks paid from a deposit you make once (each later call costs no prompt; close it to get the rest back).",
    "Try: \"What's the weather in Lisbon?\", \"Summarize this text: …\", \"What is the NVDA stock price?\", \"Compare prices for weather\", \"How much have I spent this week?\", or \"Set my daily limit to 2\".",
  ].join("\n");
}

function stringify(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function hasKeys(value: Record<string, unknown>): boolean {
  return Object.keys(value).length > 0;
}
