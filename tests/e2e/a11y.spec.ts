// Accessibility and layout of the main states, in light and dark, at 1280 and 375 px (there with
// the notices unfolded and the top bar's menu open too): an axe scan with no serious or critical
// violations, none of the rules Lighthouse's accessibility score adds (a main landmark, headings in
// order), and a screenshot of each state kept in test-results/screens for a person to look at.
import type { Page } from "@playwright/test";
import { expectNoLighthouseA11yFailures, expectNoSeriousA11yViolations, screenshot } from "./axe";
import { chatPage } from "./chat-page";
import { expect, test } from "./wallet";

async function scan(page: Page, state: string): Promise<void> {
  const label = `${state}-${page.viewportSize()?.width ?? 0}`;
  await screenshot(page, label);
  await expectNoSeriousA11yViolations(page, label);
  await expectNoLighthouseA11yFailures(page, label);
}

for (const colorScheme of ["light", "dark"] as const) {
  for (const width of [1280, 375]) {
    test(`the page passes axe and lays out in ${colorScheme} at ${width} px: empty, quote, paid, settings`, async ({ page, wallet }) => {
      test.setTimeout(90_000);
      await page.emulateMedia({ colorScheme });
      await page.setViewportSize({ width, height: 860 });
      const ui = chatPage(page);
      await page.goto("/");
      await expect(ui.input).toBeVisible();
      await scan(page, `${colorScheme}-empty`);
      if (width < 600) {
        // On a phone: the notices unfolded and the top bar's menu open.
        await ui.bannerToggle.click();
        await ui.sandboxBannerToggle.click();
        await ui.menu.click();
        await scan(page, `${colorScheme}-menu`);
        await ui.menu.click();
      }

      await ui.connect("Test Wallet");
      await ui.ask("What's the weather in Singapore?");
      const card = (await ui.reply(0)).getByTestId("payment-card");
      await expect(card).toHaveAttribute("data-status", "awaiting-signature");
      await scan(page, `${colorScheme}-quote`);

      await card.getByTestId("approve-payment").click();
      await expect(card).toHaveAttribute("data-status", "delivered", { timeout: 45_000 });
      expect(wallet.signRequests).toBe(1);
      if (width < 960) await ui.topBarAction("budget-toggle");
      await expect(ui.budget.getByTestId("budget-payment")).toHaveCount(1);
      await scan(page, `${colorScheme}-paid`);
      if (width < 960) await page.getByTestId("budget-close").click();

      await ui.topBarAction("settings-open");
      await expect(page.getByTestId("settings-dialog")).toBeVisible();
      await scan(page, `${colorScheme}-settings`);
    });
  }
}
