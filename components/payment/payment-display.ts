// How a payment card writes times, countdowns, long hex values and a service's signed receipt: in
// the person's locale (Intl) and short enough for a phone, never as ISO strings. Pure functions,
// but for the times a tab keeps once written (below), so they are unit-tested.
import type { ReceiptSummary } from "@/lib/payments/payment";
import type { PaymentStatus } from "@/lib/protocol/lines";

/** Remaining time as `m:ss`, or `h:mm:ss` from an hour up; rounded up, so 0:00 means over. */
export function formatCountdown(milliseconds: number): string {
  const total = Math.max(0, Math.ceil(milliseconds / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const ss = String(seconds).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${ss}` : `${minutes}:${ss}`;
}

/**
 * A moment as the person reads it: the time alone when it falls on the day of `now`, the date
 * and time otherwise. `locale` undefined means the browser's own. A moment this tab has written
 * before is read back from the tab's kept times (below), not written again.
 */
export function formatLocalTime(at: Date, now: Date = new Date(), locale?: string): string {
  const sameDay = at.toDateString() === now.toDateString();
  // The offset is the zone's at that moment (a zone changed mid-session, or daylight saving, is another key).
  const key = `${locale ?? globalThis.navigator?.language ?? ""}|${sameDay ? "time" : "date"}|${at.getTimezoneOffset()}|${at.getTime()}`;
  const times = keptTimes();
  const kept = times.get(key);
  if (kept !== undefined) return kept;
  const text = timeFormat(locale, sameDay).format(at);
  keepTime(times, key, text);
  return text;
}

// Making a DateTimeFormat costs far more than using one (a card re-renders every second for its
// countdown): one per locale and style, made on first use.
const timeFormats = new Map<string, Intl.DateTimeFormat>();
function timeFormat(locale: string | undefined, sameDay: boolean): Intl.DateTimeFormat {
  const key = `${locale ?? ""}|${sameDay}`;
  let format = timeFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, sameDay ? { hour: "numeric", minute: "2-digit" } : { dateStyle: "medium", timeStyle: "short" });
    timeFormats.set(key, format);
  }
  return format;
}

// The times this tab has written, kept for its session (sessionStorage, beside the conversation):
// the page's first DateTimeFormat loads the locale's calendar data, 10-20 ms of a desktop's main
// thread and several times that on a phone, and a reload that brings back a quote would pay it
// while its card is being shown, before it can be approved. The card's times come back with it.
const TIMES_KEY = "x402-agent.times.v1";
/** The most times kept: the latest, as a conversation keeps its latest entries. */
const MAX_KEPT_TIMES = 100;
let keptTimesRead: Map<string, string> | undefined;

function keptTimes(): Map<string, string> {
  if (keptTimesRead) return keptTimesRead;
  keptTimesRead = new Map();
  try {
    const parsed: unknown = JSON.parse(globalThis.sessionStorage?.getItem(TIMES_KEY) ?? "[]");
    if (Array.isArray(parsed)) {
      for (const pair of parsed) {
        // What the page wrote itself, read back: a pair of short strings or nothing.
        if (Array.isArray(pair) && typeof pair[0] === "string" && typeof pair[1] === "string" && pair[0].length <= 100 && pair[1].length <= 60) {
          keptTimesRead.set(pair[0], pair[1]);
        }
      }
    }
  } catch {
    // Unreadable or refused: times are written again, as on a first visit.
  }
  return keptTimesRead;
}

function keepTime(times: Map<string, string>, key: string, text: string): void {
  times.set(key, text);
  while (times.size > MAX_KEPT_TIMES) times.delete(times.keys().next().value as string);
  try {
    globalThis.sessionStorage?.setItem(TIMES_KEY, JSON.stringify([...times]));
  } catch {
    // Storage full or refused: kept in memory for this page only.
  }
}

/**
 * A moment from a stream field: an ISO 8601 string, or Unix time as a number or a string of
 * digits (seconds, as an EIP-3009 `validBefore` is, or milliseconds when that large).
 */
export function parseMoment(value: unknown): Date | undefined {
  let millis: number;
  if (typeof value === "number") {
    millis = value < 1e12 ? value * 1000 : value;
  } else if (typeof value === "string" && /^\d+$/.test(value)) {
    const number = Number(value);
    millis = number < 1e12 ? number * 1000 : number;
  } else if (typeof value === "string") {
    millis = Date.parse(value);
  } else {
    return undefined;
  }
  return Number.isFinite(millis) && millis > 0 ? new Date(millis) : undefined;
}

/** When a quote waiting for approval runs out (its `approval.expiresAt`), in milliseconds; undefined when it names none. */
export function quoteDeadline(payment: Pick<PaymentStatus, "status" | "approval">): number | undefined {
  return payment.status === "awaiting-signature" ? parseMoment(payment.approval?.expiresAt)?.getTime() : undefined;
}

/** Whether a quote has run out: nothing can approve it any more. */
export function quoteExpired(payment: Pick<PaymentStatus, "status" | "approval">, now = Date.now()): boolean {
  const deadline = quoteDeadline(payment);
  return deadline !== undefined && deadline <= now;
}

const isoMoment = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g;

/** A server message with every ISO 8601 timestamp in it written the person's way. */
export function localizeIsoTimes(message: string, format: (at: Date) => string): string {
  return message.replace(isoMoment, (match) => {
    const at = new Date(match);
    return Number.isNaN(at.getTime()) ? match : format(at);
  });
}

/**
 * A service URL in the parts a card shows: the scheme (`http://`), the host with its port, whole
 * ("127.0.0.1:4151", "weather.example"), and the rest (path and query), the only part that may be
 * shortened. Something that is not a URL is all `rest`.
 */
export function serviceAddressParts(url: string): { scheme: string; host: string; rest: string } {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)(.*)$/i.exec(url);
  if (!match) return { scheme: "", host: "", rest: url };
  const [, scheme = "", host = "", rest = ""] = match;
  return { scheme, host, rest: rest === "/" ? "" : rest };
}

/** `0x1234…abcd`: enough of a hash or address to recognise it, the whole value elsewhere. */
export function shortHex(value: string, head = 6, tail = 4): string {
  return value.length > head + tail + 1 ? `${value.slice(0, head)}…${value.slice(-tail)}` : value;
}

/**
 * A service's signed receipt in a line (docs/contract.md, section 3): a verified one names the
 * key that signed it; an unverified one says why, and never reads as proof.
 */
export function receiptWords(receipt: ReceiptSummary): string {
  if (receipt.status === "verified") return `Signed receipt · verified by ${shortHex(receipt.signer ?? "an unnamed key")}`;
  return `Receipt did not verify: ${receipt.reason ?? "no reason was given"}`;
}
