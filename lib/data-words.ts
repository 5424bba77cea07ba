// A paid service's answer as a person reads it, for the offline model: a flat record becomes a
// small table with its field names in words and units where the name says them
// (temperatureC → "Temperature | 11.9 °C"), times become dates in words, a list of records
// becomes a bulleted list of their titles; anything else is shown as bounded JSON. The data is
// a stranger's: it is only ever displayed, and every text is cut to length and kept to one line.
import { dollarsOf } from "@/lib/money";
import { cleanText } from "@/lib/text";

const MAX_ROWS = 12;
const MAX_ITEMS = 10;
const MAX_TEXT = 200;

/** Unit suffixes a field name may end with, and how the value is written with them. */
const UNITS: Array<{ suffix: RegExp; write: (value: string) => string }> = [
  { suffix: /[a-z]C$/, write: (value) => `${value} °C` },
  { suffix: /Percent$/, write: (value) => `${value} %` },
  { suffix: /Kph$/, write: (value) => `${value} km/h` },
  { suffix: /Ms$/, write: (value) => `${value} ms` },
  { suffix: /Usd$/, write: (value) => dollarsOf(value) },
];
const UNIT_WORDS = /(TemperatureC|Percent|Kph|Ms|Usd)$|(?<=[a-z])C$/;

/** "humidityPercent" → "Humidity", "observedAt" → "Observed", "priceUsd" → "Price". */
function fieldWords(key: string): string {
  const bare = key.replace(UNIT_WORDS, "").replace(/At$/, "") || key;
  const words = bare.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ").trim().toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

function valueWords(key: string, value: unknown): string {
  if (typeof value === "string" && ISO_TIME.test(value)) {
    const date = new Date(value);
    if (!Number.isNaN(date.getTime())) {
      return `${date.toLocaleString("en-GB", { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", timeZone: "UTC" })} UTC`;
    }
  }
  const text = cleanText(String(value), MAX_TEXT).replace(/\|/g, "\\|");
  const unit = typeof value === "number" ? UNITS.find((candidate) => candidate.suffix.test(key)) : undefined;
  return unit ? unit.write(text) : text;
}

const isScalar = (value: unknown) => value === null || ["string", "number", "boolean"].includes(typeof value);
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function table(record: Record<string, unknown>): string {
  const rows = Object.entries(record)
    .filter(([, value]) => isScalar(value) && value !== null && value !== "")
    .slice(0, MAX_ROWS)
    .map(([key, value]) => `| ${cleanText(fieldWords(key), 60)} | ${valueWords(key, value)} |`);
  return rows.length > 0 ? ["| Field | Value |", "| --- | --- |", ...rows].join("\n") : "";
}

/** What a list item is called: its title, name, text or headline, else its first text. */
function itemWords(item: unknown): string {
  if (!isRecord(item)) return valueWords("", item);
  const named = ["title", "headline", "name", "text", "label"].map((key) => item[key]).find((value) => typeof value === "string");
  const first = named ?? Object.values(item).find((value) => typeof value === "string");
  const extra = ["source", "date", "author"].map((key) => item[key]).filter((value): value is string => typeof value === "string" && value !== named);
  return [first ?? JSON.stringify(item), ...extra].map((part) => valueWords("", part)).join(" · ");
}

export function describeServiceData(data: unknown): string {
  if (typeof data === "string") return `> ${cleanText(data, 600)}`;
  if (Array.isArray(data)) return data.slice(0, MAX_ITEMS).map((item) => `- ${itemWords(item)}`).join("\n");
  if (isRecord(data)) {
    const lists = Object.entries(data).filter(([, value]) => Array.isArray(value) && value.length > 0);
    const parts = [table(data)];
    for (const [key, list] of lists.slice(0, 2)) {
      parts.push(`${fieldWords(key)}:\n${(list as unknown[]).slice(0, MAX_ITEMS).map((item) => `- ${itemWords(item)}`).join("\n")}`);
    }
    const text = parts.filter(Boolean).join("\n\n");
    if (text) return text;
  }
  const json = JSON.stringify(data, null, 2) ?? String(data);
  return `\`\`\`json\n${json.length > 1_500 ? `${json.slice(0, 1_500)}…` : json}\n\`\`\``;
}

/** The data as it came, bounded, in a `raw-data` fence the page shows behind a disclosure. */
export function rawDataBlock(data: unknown): string {
  const json = JSON.stringify(data, null, 2) ?? String(data);
  const text = json.length > 3_000 ? `${json.slice(0, 3_000)}…` : json;
  // A fence longer than any run of backticks in the data, so the data cannot close it.
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}raw-data\n${text}\n${fence}`;
}
