"use client";
// An assistant reply as markdown. The renderer (react-markdown with GFM, markdown-renderer.tsx)
// is not part of the page's first load: it is fetched when the first message is sent (see
// preloadMarkdown) or when a reply first needs it, and until it is there the reply shows as
// plain text in the same place.
import { lazy, memo, Suspense } from "react";
import styles from "./markdown.module.css";

let rendererImport: Promise<typeof import("./markdown-renderer")> | undefined;
function loadRenderer() {
  if (!rendererImport) {
    rendererImport = import("./markdown-renderer");
    // A failed download is tried again by the next reply that needs it.
    rendererImport.catch(() => {
      rendererImport = undefined;
    });
  }
  return rendererImport;
}

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
