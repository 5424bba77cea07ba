"use client";
// An assistant reply as markdown. A reply with no markdown in it (plain paragraphs, as most short
// replies and a quote's words are) is shown as the renderer would show it, without the renderer.
// The renderer (react-markdown with GFM, markdown-renderer.tsx) is not part of the page's first
// load: it is fetched when the first message is sent (see preloadMarkdown) or when a reply first
// needs it, and until it is there the reply shows as plain text in the same place. So a page that
// brings back a conversation of plain replies, such as a pending quote's, loads no renderer. A
// failed download is tried again by the next reply that needs it.
import { lazy, memo, Suspense, useMemo } from "react";
import { nextTask, once } from "@/lib/lazy-load";
import { plainParagraphs } from "./markdown-blocks";
import styles from "./markdown.module.css";

/** The renderer, evaluated in three steps, each its own task: GFM's syntax, react-markdown with
 * its HTML property tables, then the renderer itself. */
const loadRenderer = once(async () => {
  await import("remark-gfm");
  await nextTask();
  await import("react-markdown");
  await nextTask();
  return import("./markdown-renderer");
});

/** Starts fetching the renderer, e.g. when a message leaves, so the reply finds it there. */
export function preloadMarkdown(): void {
  loadRenderer().catch(() => undefined);
}

function PlainText({ text }: { text: string }) {
  return <p className={styles.plain}>{text}</p>;
}

// Should the renderer fail to download, replies stay plain text rather than break the page.
const MarkdownBlocks = lazy(() =>
  loadRenderer().then(
    (module) => ({ default: module.MarkdownBlocks }),
    () => ({ default: PlainText }),
  ),
);

export const MarkdownText = memo(function MarkdownText({ text }: { text: string }) {
  const paragraphs = useMemo(() => plainParagraphs(text), [text]);
  return (
    <div className={styles.markdown} data-testid="message-text">
      {paragraphs ? (
        // As the renderer draws them: each paragraph a block of its own (markdown-blocks.ts), a <p> of its lines.
        paragraphs.map((paragraph, index) => (
          // Paragraphs only ever grow at the end, as the renderer's blocks do, so an index is an identity.
          <p key={index}>{paragraph}</p>
        ))
      ) : (
        <Suspense fallback={<PlainText text={text} />}>
          <MarkdownBlocks text={text} />
        </Suspense>
      )}
    </div>
  );
});
