// The conversation kept for the tab's session (sessionStorage): a reload brings it back, closing
// the tab ends it, "New chat" clears it. What comes back is checked as a stream line is (a
// payment's status through the page's own wall), so a stored value can never take the chat down;
// a reply cut by the reload is shown as stopped. Refusals (a cooldown's wait, a bad request) were
// about that moment and are not kept.
import { readPaymentStatus } from "@/lib/protocol/stream-payloads";
import type { AssistantEntry, ChatEntry } from "./chat-entries";

const KEY = "x402-agent.conversation.v1";
/** The document's mark while a stored conversation comes back (globals.css: `html[data-restoring]`). */
const RESTORING = "data-restoring";

/**
 * Run before the page paints (an inline script in its HTML): marks the document while a stored
 * conversation waits for the page's scripts to bring it back, so that the empty chat's welcome,
 * which is what the server's HTML holds, is not painted first (globals.css hides it under the
 * mark; `endRestoring` lifts it once the conversation is on screen).
 */
export const MARK_RESTORING_SCRIPT = `try{if(sessionStorage.getItem(${JSON.stringify(KEY)}))document.documentElement.setAttribute(${JSON.stringify(RESTORING)},"")}catch(e){}`;

export function endRestoring(): void {
  document.documentElement.removeAttribute(RESTORING);
}

/** The most entries kept: a longer conversation keeps its latest. */
const MAX_ENTRIES = 200;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function restoreEntry(value: unknown): ChatEntry | undefined {
  if (!isRecord(value) || typeof value.id !== "string") return undefined;
  if (value.role === "user" && typeof value.content === "string") return { id: value.id, role: "user", content: value.content };
  if (value.role !== "assistant" || typeof value.content !== "string") return undefined;
  // What the page wrote itself, read back: the fields a renderer depends on are checked again.
  const entry: Partial<AssistantEntry> & Pick<AssistantEntry, "id" | "role" | "content"> = { ...value, id: value.id, role: "assistant", content: value.content };
  const payments = (Array.isArray(value.payments) ? value.payments : []).flatMap((payment: unknown) => readPaymentStatus(payment) ?? []);
  const state = entry.state === "waiting" || entry.state === "streaming" ? "stopped" : entry.state;
  return { ...entry, payments, errors: Array.isArray(entry.errors) ? entry.errors : [], state } as AssistantEntry;
}

export function loadConversation(): ChatEntry[] {
  try {
    const stored = window.sessionStorage.getItem(KEY);
    if (!stored) return [];
    const parsed: unknown = JSON.parse(stored);
    return Array.isArray(parsed) ? parsed.flatMap((entry) => restoreEntry(entry) ?? []).slice(-MAX_ENTRIES) : [];
  } catch {
    return [];
  }
}

export function saveConversation(entries: readonly ChatEntry[]): void {
  try {
    if (entries.length === 0) window.sessionStorage.removeItem(KEY);
    else window.sessionStorage.setItem(KEY, JSON.stringify(entries.filter((entry) => entry.role !== "refusal").slice(-MAX_ENTRIES)));
  } catch {
    // Storage full or refused (a private window's quota): the conversation lives in memory only.
  }
}
