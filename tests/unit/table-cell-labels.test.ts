import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import Markdown from "react-markdown";
import remarkGfm from "remark-gfm";
import { describe, expect, it } from "vitest";
import { labelTableCells } from "@/components/shared/table-cell-labels";

const render = (source: string) => renderToStaticMarkup(createElement(Markdown, { remarkPlugins: [remarkGfm], rehypePlugins: [labelTableCells] }, source));

describe("a reply's table cells named by their columns", () => {
  it("names each body cell by its column's header, which a phone shows beside the value when the rows stack", () => {
    const html = render("| # | Service | Price per call |\n|---|---|---|\n| 1 | Budget **Weather** | $0.002 |");
    expect(html).toContain('<td role="cell" data-label="#">1</td>');
    expect(html).toContain('<td role="cell" data-label="Service">Budget <strong>Weather</strong></td>');
    expect(html).toContain('<td role="cell" data-label="Price per call">$0.002</td>');
  });

  it("keeps every part of the table in its role, for a browser that drops them from a table laid out as blocks", () => {
    const html = render("| A | B |\n|---|---|\n| 1 | 2 |");
    expect(html).toMatch(/<table role="table"><thead role="rowgroup"><tr role="row"><th role="columnheader">A<\/th>/);
    expect(html).toContain('<tbody role="rowgroup"><tr role="row">');
  });

  it("leaves text outside tables, and the header's own cells, as they were", () => {
    const html = render("Plain *text*.\n\n| A |\n|---|\n| 1 |");
    expect(html).toContain("<p>Plain <em>text</em>.</p>");
    expect(html).toContain('<th role="columnheader">A</th>');
    expect(html).toContain('<td role="cell" data-label="A">1</td>');
  });
});
