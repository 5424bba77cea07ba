// Accessibility and layout of the main states, in light and dark, at 1280 and 375 px: an axe
// scan with no serious or critical violations, and a screenshot of each state kept with the test
// results for a person to look at.
import AxeBuilder from "@axe-core/playwright";
import type { Page, TestInfo } from "@playwright/test";
import { chatPage } from "./chat-page";
import { expect, test } from "./wallet";

async function scan(page: Page, testInfo: TestInfo, state: string): Promise<void> {
  const width = page.viewportSize()?.width ?? 0;
  await page.screenshot({ path: testInfo.outputPath(`${state}-${width}.png`), fullPage: false });
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const serious = results.violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
  const report = serious.map((violation) => `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
  expect(report, `${state} at ${width}px`).toEqual([]);
}

for (const colorScheme of ["light", "dark"] as const) {
  for (const width of [1280, 375]) {
    test(`the page passes axe and lays out in ${colorScheme} at ${width} px: empty, quote, paid, settings`, async ({ page, wallet }, testInfo) => {
      test.setTimeout(90_000);
      await page.emulateMedia({ colorScheme });
      await page.setViewportSize({ width, height: 860 });
      const ui = chatPage(page);
      await page.goto("/");
      await expect(ui.input).toBeVisible();
      await scan(page, testInfo, `${colorScheme}-empty`);

      await ui.connect("Test Wallet");
      await ui.ask("What's the weather in Singapore?");
      const card = (await ui.reply(0)).getByTestId("payment-card");
      await expect(card).toHaveAttribute("data-status", "awaiting-signature");
      await scan(page, testInfo, `${colorScheme}-quote`);

      await card.getByTestId("approve-payment").click();
      await expect(card).toHaveAttribute("data-status", "delivered", { timeout: 45_000 });
      expect(wallet.signRequests).toBe(1);
      if (width < 960) await page.getByTestId("budget-toggle").click();
      await expect(ui.budget.getByTestId("budget-payment")).toHaveCount(1);
      await scan(page, testInfo, `${colorScheme}-paid`);
      if (width < 960) await page.getByTestId("budget-toggle").click();

      await page.getByTestId("settings-open").click();
      await expect(page.getByTestId("settings-dialog")).toBeVisible();
      await scan(page, testInfo, `${colorScheme}-settings`);
    });
  }
}
