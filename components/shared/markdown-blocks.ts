// Splits an assistant reply into top-level markdown blocks, so that while a reply streams in
// only its last block is parsed again: the blocks before it keep their text and their memoized
// render. Splitting happens only where it cannot change the result: at a blank line outside a
// code fence that is followed by an unindented line (an indented one may continue a list item
// or be code), and not at all when the text holds link reference definitions, which reach
// across blocks. And tells a reply with no markdown in it, which needs no renderer at all.

const fenceOpen = /^ {0,3}(`{3,}|~{3,})/;
const definition = /^ {0,3}\[[^\]]+\]:/m;

/** The blocks, in order; joined together they are the text again. */
export function splitMarkdownBlocks(text: string): string[] {
  if (definition.test(text)) return [text];
  const lines = text.split("\n");
  const blocks: string[] = [];
  let current: string[] = [];
  let fence: string | undefined;
  let afterBlank = false;
  for (const [index, line] of lines.entries()) {
    const last = index === lines.length - 1;
    if (fence === undefined && afterBlank && line.length > 0 && !/^[ \t]/.test(line) && line.trim().length > 0) {
      blocks.push(`${current.join("\n")}\n`);
      current = [];
    }
    current.push(line);
    if (fence !== undefined) {
      const close = line.match(fenceOpen);
      if (close?.[1] && close[1][0] === fence[0] && close[1].length >= fence.length && line.trim() === close[1]) fence = undefined;
      afterBlank = false;
    } else {
      const open = line.match(fenceOpen);
      if (open?.[1]) {
        fence = open[1];
        afterBlank = false;
      } else {
        afterBlank = line.trim().length === 0;
      }
    }
    if (last) blocks.push(current.join("\n"));
  }
  return blocks;
}

// What makes markdown of a reply, besides paragraphs: inline syntax (emphasis, code, links,
// images, HTML, autolinks, strikethrough, tables, escapes, character references), tabs and
// carriage returns; and at a line's start, headings, block quotes, lists, fences, setext
// underlines and thematic breaks. Deliberately wider than markdown itself: text that merely
// might be markdown goes to the renderer.
const inlineSyntax = /[*_`[\]<>|~\\&@\t\r]|:\/\/|www\./i;
const blockStart = /^(?:#|>|[-+*](?:\s|$)|\d{1,9}[.)](?:\s|$)|=+$|-+$)/;

/**
 * The paragraphs of a reply with no markdown in it, or undefined for any other: what the renderer
 * would show for such text (each paragraph a `<p>` of its lines, as they are), found without it.
 * Lines with leading or trailing white space are left to the renderer too: it may read them as
 * code, a list item's continuation or a hard line break.
 */
export function plainParagraphs(text: string): string[] | undefined {
  if (inlineSyntax.test(text)) return undefined;
  const paragraphs: string[] = [];
  let lines: string[] = [];
  for (const line of text.split("\n")) {
    if (line.length === 0) {
      if (lines.length > 0) paragraphs.push(lines.join("\n"));
      lines = [];
      continue;
    }
    if (line.trim() !== line || blockStart.test(line)) return undefined;
    lines.push(line);
  }
  if (lines.length > 0) paragraphs.push(lines.join("\n"));
  return paragraphs;
}
