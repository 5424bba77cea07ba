// Browser-side store of the chat cooldown (docs/contract.md, section 5): the time from which the next message
// may be sent, kept in local storage so that it survives a refresh and is shared by every tab.
// The server enforces the same pause (429); this store only spares the person a refused request.

const STORAGE_KEY = "x402-agent.chat.next-message-at";

type Listener = () => void;
const listeners = new Set<Listener>();

// Used when local storage is unavailable (disabled cookies, some private modes): the cooldown
// then lasts for this page's life only, which is still better than none.
let memoryValue = 0;

/** Epoch milliseconds from which the next message may be sent; 0 when there is no cooldown. */
export function readNextMessageAt(): number {
  let raw: string | null;
  try {
    raw = window.localStorage.getItem(STORAGE_KEY);
  } catch {
    return memoryValue;
  }
  if (raw === null) return 0;
  const value = Number(raw);
  // A hand-edited or corrupt value must not lock the composer.
  return Number.isSafeInteger(value) && value > 0 ? value : 0;
}

/** Stores the time of the next allowed message (0 clears it) and tells every subscriber. */
export function writeNextMessageAt(at: number): void {
  const value = Math.max(0, Math.round(at));
  memoryValue = value;
  try {
    if (value === 0) window.localStorage.removeItem(STORAGE_KEY);
    else window.localStorage.setItem(STORAGE_KEY, String(value));
  } catch {
    // Storage refused: memoryValue already holds it.
  }
  // The `storage` event only reaches other tabs, so this tab's subscribers are told here.
  for (const listener of listeners) listener();
}

/** Subscribes to changes from this tab and from other tabs; returns the unsubscribe function. */
export function subscribeNextMessageAt(listener: Listener): () => void {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key === STORAGE_KEY || event.key === null) listener();
  };
  window.addEventListener("storage", onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", onStorage);
  };
}

// A message written during the cooldown and held until it ends (components/chat/use-composer.ts):
// kept in this tab's session storage, so a reload brings it back still held, and another tab
// (which has its own conversation) never sends it.
const HELD_KEY = "x402-agent.chat.held-message";

/** The held message's text, or undefined when none is held (or storage is unavailable). */
export function readHeldMessage(): string | undefined {
  try {
    const text = window.sessionStorage.getItem(HELD_KEY);
    return text && text.trim().length > 0 ? text : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps the held message's text; undefined forgets it. */
export function writeHeldMessage(text: string | undefined): void {
  try {
    if (text === undefined || text.trim().length === 0) window.sessionStorage.removeItem(HELD_KEY);
    else window.sessionStorage.setItem(HELD_KEY, text);
  } catch {
    // Storage refused: the message is held for this page's life only.
  }
}
