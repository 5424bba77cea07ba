"use client";
// The conversation kept for the tab's session (conversation-store.ts) as the chat's state meets it:
// brought back after a reload, read after hydration (the server's HTML has none), and kept whenever
// no reply is streaming, and as the page goes away.
import { startTransition, useEffect, useRef, type Dispatch, type RefObject, type SetStateAction } from "react";
import type { ChatEntry } from "./chat-entries";
import { endRestoring, loadConversation, saveConversation } from "./conversation-store";

export type KeptConversationParameters = {
  entries: ChatEntry[];
  streaming: boolean;
  /** The entries an in-flight send works from; the restored ones go there at once. */
  entriesRef: RefObject<ChatEntry[]>;
  /** The last entry number given out: a restored conversation's new entries number on from its own. */
  nextIdRef: RefObject<number>;
  setEntries: Dispatch<SetStateAction<ChatEntry[]>>;
};

export function useKeptConversation({ entries, streaming, entriesRef, nextIdRef, setEntries }: KeptConversationParameters): void {
  const restored = useRef(false);
  const revealOnRender = useRef(false);
  // What storage holds already: the conversation just brought back is not written again.
  const stored = useRef<ChatEntry[] | undefined>(undefined);
  useEffect(() => {
    // Read and checked in a task of its own, not in the hydration's: on a phone each is a long
    // stretch of the main thread.
    const timer = setTimeout(() => {
      const saved = loadConversation();
      if (saved.length > 0 && entriesRef.current.length === 0) {
        nextIdRef.current = Math.max(0, ...saved.map((entry) => Number(/^entry-(\d+)$/.exec(entry.id)?.[1] ?? 0)));
        entriesRef.current = saved;
        stored.current = saved;
        // A transition: rendering a long conversation yields to the page between its parts.
        startTransition(() => setEntries(saved));
        // The welcome stays hidden until the conversation is rendered in its place.
        revealOnRender.current = true;
      } else endRestoring();
      restored.current = true;
    }, 0);
    // Not before it is read: what storage holds is not replaced by the empty start.
    const keep = () => restored.current && saveConversation(entriesRef.current);
    window.addEventListener("pagehide", keep);
    return () => {
      clearTimeout(timer);
      window.removeEventListener("pagehide", keep);
    };
  }, [entriesRef, nextIdRef, setEntries]);
  useEffect(() => {
    if (revealOnRender.current && entries.length > 0) {
      revealOnRender.current = false;
      endRestoring();
    }
  }, [entries]);
  useEffect(() => {
    if (!restored.current || streaming || entriesRef.current === stored.current) return;
    stored.current = entriesRef.current;
    saveConversation(entriesRef.current);
  }, [entries, entriesRef, streaming]);
}
