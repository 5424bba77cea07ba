"use client";
// The conversation's entries as the page holds them: state for rendering, and a ref mirroring it,
// so that a send in flight never works from a stale render. Entry ids number on from those of the
// conversation kept for the tab, which comes back after a reload (use-kept-conversation.ts).
import { useCallback, useRef, useState } from "react";
import type { ChatEntry } from "./chat-entries";
import { useKeptConversation } from "./use-kept-conversation";

export type ChatEntries = {
  entries: ChatEntry[];
  /** The entries as of now, whatever the render. */
  entriesRef: { readonly current: ChatEntry[] };
  update: (change: (current: ChatEntry[]) => ChatEntry[]) => void;
  /** A new entry's id. */
  newId: () => string;
};

/** `streaming`: a reply is arriving; the conversation is kept for the tab once it is not. */
export function useChatEntries(streaming: boolean): ChatEntries {
  const [entries, setEntries] = useState<ChatEntry[]>([]);
  const entriesRef = useRef<ChatEntry[]>([]);
  const nextIdRef = useRef(0);

  const update = useCallback((change: (current: ChatEntry[]) => ChatEntry[]) => {
    entriesRef.current = change(entriesRef.current);
    setEntries(entriesRef.current);
  }, []);

  const newId = useCallback(() => `entry-${(nextIdRef.current += 1)}`, []);

  useKeptConversation({ entries, streaming, entriesRef, nextIdRef, setEntries });

  return { entries, entriesRef, update, newId };
}
