// A list of services as the offline model writes it (a discovery or a comparison): one table, a
// row per service and its price, speed, networks and protocol, with what each says of itself; a
// sentence that several services' descriptions share (what they answer, the cities they take) is
// taken out of their rows and said once under the table. Listing text is a stranger's: each cell
// is one line, cut to length, its pipes escaped.
import { dollarsOf } from "@/lib/money";
import { cleanText } from "@/lib/text";

export type ServiceView = {
  name?: string;
  url: string;
  method?: string;
  /** The paid-HTTP protocol it speaks, when the listing says: its registered name, and its name in a list. */
  protocol?: string;
  protocolLabel?: string;
  priceUsd?: string;
  /** Usage-priced: `priceUsd` is the most a call can cost. */
  upTo?: boolean;
  /** Usage-priced: what the listing says a usual call costs. */
  typicalUsd?: string;
  network?: string;
  /** The network's name, e.g. "Base". */
  chain?: string;
  description?: string;
  latencyMs?: number;
  paidCalls?: number;
  uniquePayers?: number;
};

const MAX_CELL = 160;
const MAX_SHARED = 400;

const cell = (text: string, max = MAX_CELL) => cleanText(text, max).replace(/\|/g, "\\|");

/** A description's sentences: split after a full stop that ends a word (not "e.g."), before a capital. */
function sentencesOf(description: string | undefined): string[] {
  if (!description) return [];
  return cleanText(description, 1_000)
    .split(/(?<=[\p{L}\p{N})]{2}[.!?])\s+(?=\p{Lu})/u)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0);
}

/** "A", "A and B", "A, B and C". */
function listWords(names: readonly string[]): string {
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : (names[0] ?? "");
}

const COUNT_WORDS = ["", "", "Both", "All three", "All four", "All five"];

function priceWords(service: ServiceView): string {
  if (!service.priceUsd) return "unknown";
  const price = `${service.upTo ? "up to " : ""}${dollarsOf(service.priceUsd)}`;
  return service.upTo && service.typicalUsd ? `${price}, typically ${dollarsOf(service.typicalUsd)}` : price;
}

/** "150 ms", "3 s", "2.5 s": the number and its unit kept on one line. */
function speedWords(latencyMs: number | undefined): string {
  if (latencyMs === undefined) return "";
  if (latencyMs < 1_000) return `${latencyMs}\u00a0ms`;
  return `${Math.round(latencyMs / 100) / 10}\u00a0s`;
}

function usageWords(service: ServiceView): string {
  const calls = service.paidCalls ? `${service.paidCalls} paid ${service.paidCalls === 1 ? "call" : "calls"}` : "";
  const payers = service.uniquePayers ? `${service.uniquePayers} ${service.uniquePayers === 1 ? "payer" : "payers"}` : "";
  return calls && payers ? `${calls} by ${payers}` : calls || payers;
}

/**
 * The services as one markdown table, best first, then what several of them share, once. A
 * service listed once per network it takes, at one price, is one row naming its networks.
 */
export function serviceTable(services: readonly ServiceView[]): string {
  const rows = new Map<string, { service: ServiceView; chains: string[] }>();
  for (const service of services) {
    const chain = service.chain ?? service.network ?? "unknown network";
    const key = `${service.url} ${service.priceUsd ?? ""}`;
    const found = rows.get(key);
    if (found) {
      if (!found.chains.includes(chain)) found.chains.push(chain);
    } else rows.set(key, { service, chains: [chain] });
  }
  const listed = [...rows.values()].map((row) => ({ ...row, name: cell(row.service.name ?? row.service.url, 80), sentences: sentencesOf(row.service.description) }));

  // A sentence two or more services say alike is theirs in common: said once, under the table.
  const sayers = new Map<string, string[]>();
  for (const { name, sentences } of listed) {
    for (const sentence of new Set(sentences)) sayers.set(sentence, [...(sayers.get(sentence) ?? []), name]);
  }
  const shared = [...sayers].filter(([, names]) => names.length > 1);
  const sharedSet = new Set(shared.map(([sentence]) => sentence));

  const withUsage = listed.some(({ service }) => usageWords(service) !== "");
  const withSpeed = listed.some(({ service }) => service.latencyMs !== undefined);
  const own = listed.map(({ sentences }) => sentences.filter((sentence) => !sharedSet.has(sentence)).join(" "));
  const withAbout = own.some((words) => words.length > 0);
  const header = [
    "#",
    "Service",
    "Price per call",
    ...(withSpeed ? ["Speed"] : []),
    "Network",
    "Protocol",
    ...(withUsage ? ["Paid in the last 30 days"] : []),
    ...(withAbout ? ["About"] : []),
  ];
  const lines = [`| ${header.join(" | ")} |`, `| ${header.map(() => "---").join(" | ")} |`];
  listed.forEach(({ service, chains, name }, index) => {
    const cells = [
      String(index + 1),
      name,
      cell(priceWords(service)),
      ...(withSpeed ? [speedWords(service.latencyMs)] : []),
      cell(chains.join(" or ")),
      cell(service.protocolLabel ?? service.protocol ?? ""),
      ...(withUsage ? [usageWords(service) || "none"] : []),
      ...(withAbout ? [cell(own[index] ?? "")] : []),
    ];
    lines.push(`| ${cells.join(" | ")} |`);
  });

  // Grouped by who says them, in the table's order: "All three: A B." or "Budget Weather and Meteo Machine: A."
  const bySayers = new Map<string, { names: string[]; sentences: string[] }>();
  for (const [sentence, names] of shared) {
    const key = names.join("\u0000");
    const group = bySayers.get(key) ?? { names, sentences: [] };
    group.sentences.push(sentence);
    bySayers.set(key, group);
  }
  const notes = [...bySayers.values()].map(({ names, sentences }) => {
    const who = names.length === listed.length ? (COUNT_WORDS[names.length] ?? "All of them") : listWords(names);
    return `${who}: ${cleanText(sentences.join(" "), MAX_SHARED)}`;
  });
  return [lines.join("\n"), ...notes].join("\n\n");
}
