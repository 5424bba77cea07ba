// A rehype plugin for the replies' markdown (markdown-renderer.tsx): each table's body cell is
// given its column's name (`data-label`), which a phone shows beside the value when a wide table
// stacks its rows (markdown.module.css), and every part of a table keeps its role, which a
// browser may drop from a table that is no longer laid out as one.
//
//   <Markdown rehypePlugins={[labelTableCells]}>{"| A | B |\n|---|---|\n| 1 | 2 |"}</Markdown>
//   → <td data-label="A" role="cell">1</td>
import type { Element, ElementContent, Root, RootContent } from "hast";

const ROLES: Record<string, string> = {
  table: "table",
  thead: "rowgroup",
  tbody: "rowgroup",
  tr: "row",
  th: "columnheader",
  td: "cell",
};

const isElement = (node: RootContent | ElementContent): node is Element => node.type === "element";

const childElements = (node: Element, tagName: string): Element[] => node.children.filter(isElement).filter((child) => child.tagName === tagName);

function textOf(node: ElementContent): string {
  if (node.type === "text") return node.value;
  return isElement(node) ? node.children.map(textOf).join("") : "";
}

/** A table's column names, from its header row. */
export function columnNames(table: Element): string[] {
  const headerRow = childElements(table, "thead").flatMap((head) => childElements(head, "tr"))[0];
  return headerRow ? childElements(headerRow, "th").map((cell) => textOf(cell).trim()) : [];
}

function labelTable(table: Element): void {
  const names = columnNames(table);
  const visit = (node: Element) => {
    const role = ROLES[node.tagName];
    if (role) node.properties.role = role;
    for (const child of node.children) if (isElement(child)) visit(child);
  };
  visit(table);
  for (const row of childElements(table, "tbody").flatMap((body) => childElements(body, "tr"))) {
    childElements(row, "td").forEach((cell, index) => {
      const name = names[index];
      if (name) cell.properties.dataLabel = name;
    });
  }
}

export function labelTableCells() {
  return (tree: Root) => {
    const visit = (node: Root | Element) => {
      for (const child of node.children) {
        if (!isElement(child)) continue;
        if (child.tagName === "table") labelTable(child);
        else visit(child);
      }
    };
    visit(tree);
  };
}
