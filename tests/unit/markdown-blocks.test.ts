import { describe, expect, it } from "vitest";
import { splitMarkdownBlocks } from "@/components/shared/markdown-blocks";

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
