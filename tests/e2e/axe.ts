// Accessibility and looks, for the end-to-end tests: an axe scan of the page as it is that fails
// on serious or critical violations with a list a person can act on, and screenshots kept with
// the test results (test-results/screens/<name>.png) for a person to look at.
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/** WCAG 2.0 and 2.1, levels A and AA. */
const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];
const SCREENS_DIR = "test-results/screens";

export type A11yOptions = {
  /** Selectors axe leaves out, e.g. a third-party widget the page cannot change. */
  exclude?: string[];
};

/** One line per violation: rule, impact, what it asks for, where, and axe's page about it. */
function describeViolations(violations: Awaited<ReturnType<AxeBuilder["analyze"]>>["violations"]): string[] {
  return violations.map((violation) => {
    const where = violation.nodes
      .slice(0, 5)
      .map((node) => `    ${node.target.join(" ")}${node.failureSummary ? `: ${node.failureSummary.replace(/\s+/g, " ").trim()}` : ""}`);
    const more = violation.nodes.length > 5 ? [`    ... and ${violation.nodes.length - 5} more`] : [];
    return [`${violation.id} (${violation.impact}): ${violation.help} [${violation.helpUrl}]`, ...where, ...more].join("\n");
  });
}

/** Fails the test, naming `label`, when axe finds serious or critical WCAG A/AA violations. */
export async function expectNoSeriousA11yViolations(page: Page, label: string, { exclude = [] }: A11yOptions = {}): Promise<void> {
  let builder = new AxeBuilder({ page }).withTags(WCAG_TAGS);
  for (const selector of exclude) builder = builder.exclude(selector);
  const { violations } = await builder.analyze();
  const serious = violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
  expect(serious.length, `serious or critical accessibility violations in ${label}:\n${describeViolations(serious).join("\n")}`).toBe(0);
}

/**
 * The rules Lighthouse's accessibility score counts that the WCAG A/AA tags leave out: axe's best
 * practices (a main landmark, headings that go down one level at a time, ...) and WCAG 2.2's
 * target size. Lighthouse fails a page on any violation of them, whatever its impact.
 */
const LIGHTHOUSE_BEST_PRACTICE_RULES = [
  "landmark-one-main",
  "heading-order",
  "empty-heading",
  "skip-link",
  "tabindex",
  "accesskeys",
  "aria-allowed-role",
  "aria-dialog-name",
  "aria-text",
  "aria-treeitem-name",
  "image-redundant-alt",
  "presentation-role-conflict",
  "table-duplicate-name",
  "target-size",
];

/** Fails the test, naming `label`, on any violation of the rules above. */
export async function expectNoLighthouseA11yFailures(page: Page, label: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).withRules(LIGHTHOUSE_BEST_PRACTICE_RULES).analyze();
  expect(violations.length, `accessibility violations Lighthouse counts in ${label}:\n${describeViolations(violations).join("\n")}`).toBe(0);
}

/** Saves the viewport to test-results/screens/<name>.png and returns the path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const path = `${SCREENS_DIR}/${name.replace(/[^\w.-]+/g, "-")}.png`;
  await page.screenshot({ path });
  return path;
}
