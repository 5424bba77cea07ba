"use client";
// The client side of the chat cooldown (docs/contract.md, section 5): a countdown to the next allowed message,
// read from local storage (lib/client/cooldown-store) so it survives a refresh and holds across
// tabs. `seconds` is the server's CHAT_COOLDOWN_SECONDS; 0 turns the client wait off. It ends when
// the server's does: it is counted again from the moment the server took the message (its answer
// arriving, which is after the server counted it), and rounded up to whole seconds as the
// server's Retry-After is, so at 0 the server takes the next message.
import { useCallback, useEffect, useState, useSyncExternalStore } from "react";
import { readNextMessageAt, subscribeNextMessageAt, writeNextMessageAt } from "@/lib/client/cooldown-store";

export type Cooldown = {
  /** Whole seconds left; 0 when a message may be sent. */
  remainingSeconds: number;
  /** Starts the wait after a message is sent; returns a function that undoes it. */
  start: () => () => void;
  /** The server took the message: the wait counts from now, never from before the server's own count. */
  countFromNow: () => void;
  /** Follows the server's 429: wait this many seconds from now. */
  waitFor: (seconds: number) => void;
};

// During server rendering and hydration there is no storage to read: no cooldown is assumed,
// and the real value arrives in the render right after hydration.
const serverSnapshot = () => 0;

/** The stored time, or 0 once it has passed: a cooldown that has run out is no cooldown, and the
 * page hydrated with none (a different value would force a synchronous render of the whole chat
 * right after hydration, on every visit after the first message). */
function readRunningCooldown(): number {
  const at = readNextMessageAt();
  return at > Date.now() ? at : 0;
}

export function useCooldown(seconds: number): Cooldown {
  const nextMessageAt = useSyncExternalStore(subscribeNextMessageAt, readRunningCooldown, serverSnapshot);
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => {
    const current = Date.now();
    // No wait running (a page's usual load): nothing to count, and no render of the chat for it.
    if (nextMessageAt <= current) return;
    setNow(current);
    // A stored time further away than one full cooldown is stale (the setting was lowered) or
    // tampered with; it must not lock the composer for longer than the server would.
    if (seconds > 0 && nextMessageAt > current + seconds * 1000 + 1000) {
      writeNextMessageAt(current + seconds * 1000);
      return;
    }
    const timer = window.setInterval(() => {
      const tick = Date.now();
      setNow(tick);
      if (tick >= nextMessageAt) window.clearInterval(timer);
    }, 250);
    return () => window.clearInterval(timer);
  }, [nextMessageAt, seconds]);

  const start = useCallback(() => {
    if (seconds <= 0) return () => undefined;
    const previous = readNextMessageAt();
    const current = Date.now();
    setNow(current);
    writeNextMessageAt(current + seconds * 1000);
    return () => writeNextMessageAt(previous);
  }, [seconds]);

  const countFromNow = useCallback(() => {
    if (seconds <= 0) return;
    const current = Date.now();
    setNow(current);
    writeNextMessageAt(current + seconds * 1000);
  }, [seconds]);

  const waitFor = useCallback((wait: number) => {
    const current = Date.now();
    setNow(current);
    writeNextMessageAt(current + Math.ceil(wait) * 1000);
  }, []);

  // Capped at one full cooldown: `now` can lag a render behind a change from another tab.
  const left = nextMessageAt > now ? Math.ceil((nextMessageAt - now) / 1000) : 0;
  const remainingSeconds = seconds > 0 ? Math.min(left, seconds) : left;
  return { remainingSeconds, start, countFromNow, waitFor };
}
