"use client";
// An assistant reply as markdown. The renderer (react-markdown with GFM, markdown-renderer.tsx)
// is not part of the page's first load: it is fetched when the first message is sent (see
// preloadMarkdown) or when a reply first needs it, and until it is there the reply shows as
// plain text in the same place. A failed download is tried again by the next reply that needs it.
import { lazy, memo, Suspense } from "react";
import { nextTask, once } from "@/lib/client/lazy-load";
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
  return (
    <div className={styles.markdown} data-testid="message-text">
      <Suspense fallback={<PlainText text={text} />}>
        <MarkdownBlocks text={text} />
      </Suspense>
    </div>
  );
});
