import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import Markdown from "react-markdown";
import remarkGfm from "remark-gfm";
import { describe, expect, it } from "vitest";
import { plainParagraphs, splitMarkdownBlocks } from "@/components/shared/markdown-blocks";

describe("splitMarkdownBlocks", () => {
  it("splits paragraphs at blank lines and joins back to the same text", () => {
    const text = "First paragraph.\n\nSecond one\nstill second.\n\n- a\n- b\n";
    const blocks = splitMarkdownBlocks(text);
    expect(blocks).toEqual(["First paragraph.\n\n", "Second one\nstill second.\n\n", "- a\n- b\n"]);
    expect(blocks.join("")).toBe(text);
  });

  it("keeps a fenced code block with blank lines whole, also while it is still open", () => {
    const closed = "Code:\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\nAfter.";
    expect(splitMarkdownBlocks(closed)).toEqual(["Code:\n\n", "```ts\nconst a = 1;\n\nconst b = 2;\n```\n\n", "After."]);
    const open = "Code:\n\n~~~\nx\n\ny";
    expect(splitMarkdownBlocks(open)).toEqual(["Code:\n\n", "~~~\nx\n\ny"]);
  });

  it("keeps an indented continuation with the list item it belongs to", () => {
    const text = "- item\n\n  more of the item\n\nNext.";
    expect(splitMarkdownBlocks(text)).toEqual(["- item\n\n  more of the item\n\n", "Next."]);
  });

  it("leaves text with link reference definitions whole", () => {
    const text = "See [the docs][1].\n\n[1]: https://example.com";
    expect(splitMarkdownBlocks(text)).toEqual([text]);
  });

  it("keeps earlier blocks unchanged as more text streams in", () => {
    const full = "# Title\n\nSome text.\n\n| a | b |\n| - | - |\n| 1 | 2 |\n";
    let previous: string[] = [];
    for (let end = 1; end <= full.length; end += 1) {
      const blocks = splitMarkdownBlocks(full.slice(0, end));
      expect(blocks.join("")).toBe(full.slice(0, end));
      // Every block but the last one before stays as it was.
      expect(blocks.slice(0, Math.max(0, previous.length - 1))).toEqual(previous.slice(0, -1));
      previous = blocks;
    }
  });

  it("returns one empty block for empty text", () => {
    expect(splitMarkdownBlocks("")).toEqual([""]);
  });
});

describe("plainParagraphs", () => {
  /** What the reply's renderer draws (markdown-renderer.tsx: GFM, one Markdown per block). */
  const rendered = (text: string) =>
    splitMarkdownBlocks(text)
      .map((block) => renderToStaticMarkup(createElement(Markdown, { remarkPlugins: [remarkGfm] }, block)))
      .join("");
  /** What the page draws without it (markdown.tsx). */
  const drawn = (paragraphs: string[]) => paragraphs.map((paragraph) => renderToStaticMarkup(createElement("p", null, paragraph))).join("");

  it("finds the paragraphs of a reply with no markdown in it, as the renderer draws them", () => {
    const plain = [
      "(Offline model: simple built-in rules answer, as no Gemini key is set.)\n\nThe payment of $0.01 (no gas fee for you: the facilitator pays it) is ready. Please review it on the card and approve it in your wallet within 5 minutes.",
      "I can find paid x402 services, compare their prices, and pay them in USDC within your limits.\nTry: \"What's the weather in Lisbon?\", or \"Set my daily limit to 2\".",
      "One line.",
      "First.\n\n\nSecond, after two blank lines.\n",
      "\nA blank line first.",
      "50% off: 3 + 4 = 7, 2024 was a year; a-b and x - y (fine) #1 + 2.",
      "Ünïcödé, emoji 🙂 and “quotes”.",
    ];
    for (const text of plain) {
      const paragraphs = plainParagraphs(text);
      expect(paragraphs, text).toBeDefined();
      expect(drawn(paragraphs ?? []), text).toBe(rendered(text));
    }
    expect(plainParagraphs("Line one\nline two\n\nNext.")).toEqual(["Line one\nline two", "Next."]);
  });

  it("leaves anything that may be markdown to the renderer", () => {
    const markdown = [
      "**bold**",
      "_em_",
      "`code`",
      "a [link](https://example.com)",
      "see https://example.com",
      "www.example.com",
      "write to a@example.com",
      "| a | b |\n| - | - |\n| 1 | 2 |",
      "~~gone~~",
      "<b>html</b>",
      "a \\* escape",
      "&amp; a reference",
      "# Heading",
      "> quoted",
      "- item",
      "+ item",
      "1. item",
      "2) item",
      "Title\n===",
      "Title\n---",
      "    code",
      "text\n  indented continuation",
      "a hard break  \nafter it",
      "a\ttab",
      "windows\r\nline",
      "   \n",
    ];
    for (const text of markdown) expect(plainParagraphs(text), text).toBeUndefined();
  });
});
