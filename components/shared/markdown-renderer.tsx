"use client";
// The markdown renderer, loaded when the first reply needs it (markdown.tsx). An assistant
// reply rendered as markdown (GFM: tables, lists, code, links), safely: raw HTML is shown as
// text (react-markdown's default), links go through safeLink and open in a new tab without an
// opener or referrer, and images are never loaded (a service's text could plant a tracking
// pixel): their alt text is shown instead. A streaming reply is parsed block by block,
// each block memoized, so a new word re-parses only the block it lands in.
import { memo, useMemo, type ComponentPropsWithoutRef } from "react";
import Markdown, { type Components, type ExtraProps } from "react-markdown";
import remarkGfm from "remark-gfm";
import { safeLink } from "@/lib/client/safe-link";
import { splitMarkdownBlocks } from "./markdown-blocks";
import styles from "./markdown.module.css";
import { columnNames, labelTableCells } from "./table-cell-labels";

const remarkPlugins = [remarkGfm];
const rehypePlugins = [labelTableCells];

/** From this many columns a table is too wide for a phone: there, each row stacks its cells. */
const STACKED_FROM_COLUMNS = 4;

function transformUrl(url: string): string | undefined {
  return safeLink(url);
}

function MarkdownLink({ node: _node, href, children, ...rest }: ComponentPropsWithoutRef<"a"> & ExtraProps) {
  if (!href) return <span className={styles.deadLink}>{children}</span>;
  return (
    <a {...rest} href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  );
}

// Only the alt text: a link here could sit inside another link, and the image stays unloaded.
function MarkdownImage({ alt, src }: ComponentPropsWithoutRef<"img"> & ExtraProps) {
  const source = typeof src === "string" ? src : undefined;
  return (
    <span className={styles.image} title={source ? `Image not loaded: ${source}` : "Image not loaded"}>
      [Image{alt ? `: ${alt}` : ""}]
    </span>
  );
}

// On a phone a table of many columns (a list of services) stacks each row's cells, each named by
// its column (table-cell-labels.ts); a narrower one, and code, scroll sideways there, focusable so
// a keyboard can scroll them too.
function MarkdownTable({ node, ...rest }: ComponentPropsWithoutRef<"table"> & ExtraProps) {
  const stacked = node !== undefined && columnNames(node).length >= STACKED_FROM_COLUMNS;
  return (
    <div className={styles.tableScroll} tabIndex={0}>
      <table {...rest} className={stacked ? styles.stacked : undefined} />
    </div>
  );
}

// A code block fenced as `raw-data` is the data behind an answer: shown on demand, behind a disclosure.
function MarkdownPre({ node, ...rest }: ComponentPropsWithoutRef<"pre"> & ExtraProps) {
  const code = node?.children[0];
  const classes = code?.type === "element" ? code.properties.className : undefined;
  const pre = <pre {...rest} tabIndex={0} />;
  if (!Array.isArray(classes) || !classes.includes("language-raw-data")) return pre;
  return (
    <details className={styles.rawData} data-testid="raw-data">
      <summary>The service's raw data</summary>
      {pre}
    </details>
  );
}

// GFM task lists: a drawn box, not a form control without a label.
function MarkdownInput({ type, checked }: ComponentPropsWithoutRef<"input"> & ExtraProps) {
  if (type !== "checkbox") return null;
  return (
    <span className={styles.task} role="img" aria-label={checked ? "done" : "not done"}>
      {checked ? "☑" : "☐"}
    </span>
  );
}

// A reply sits under the page's own headings and the payment cards' h3: its headings start at h4.
function heading(level: 4 | 5 | 6) {
  const Tag = `h${level}` as const;
  return function MarkdownHeading({ node: _node, ...rest }: ComponentPropsWithoutRef<"h4"> & ExtraProps) {
    return <Tag {...rest} />;
  };
}

const components: Components = {
  a: MarkdownLink,
  img: MarkdownImage,
  table: MarkdownTable,
  pre: MarkdownPre,
  input: MarkdownInput,
  h1: heading(4),
  h2: heading(4),
  h3: heading(5),
  h4: heading(6),
  h5: heading(6),
  h6: heading(6),
};

const MarkdownBlock = memo(function MarkdownBlock({ source }: { source: string }) {
  return (
    <Markdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components} urlTransform={transformUrl}>
      {source}
    </Markdown>
  );
});

export function MarkdownBlocks({ text }: { text: string }) {
  const blocks = useMemo(() => splitMarkdownBlocks(text), [text]);
  // Blocks only ever grow at the end, so a block's index is its identity.
  return (
    <>
      {blocks.map((block, index) => (
        <MarkdownBlock key={index} source={block} />
      ))}
    </>
  );
}
