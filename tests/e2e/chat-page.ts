// The chat page as the end-to-end tests use it: its parts by data-testid, and what a person does
// with them (send, connect a wallet, approve, open the settings), shared by every spec.
import { expect, type Page } from "@playwright/test";
import { cooldownSeconds } from "./settings";

export function chatPage(page: Page) {
  const ui = {
    banner: page.getByTestId("offline-banner"),
    sandboxBanner: page.getByTestId("sandbox-banner"),
    list: page.getByTestId("message-list"),
    input: page.getByTestId("composer-input"),
    send: page.getByTestId("send-button"),
    stop: page.getByTestId("stop-button"),
    retry: page.getByTestId("retry-button"),
    cooldown: page.getByTestId("cooldown-indicator"),
    errors: page.getByTestId("error-message"),
    budget: page.getByTestId("budget-panel"),
    messages: (role: "user" | "assistant") => page.locator(`[data-testid="message"][data-role="${role}"]`),
    cards: page.getByTestId("payment-card"),
    /** The conversation and the composer: the page's main landmark. */
    chat: page.getByRole("main"),
    /** On a phone: the line each notice folds into, and the menu that holds the top bar's actions. */
    bannerToggle: page.getByTestId("offline-banner-toggle"),
    sandboxBannerToggle: page.getByTestId("sandbox-banner-toggle"),
    menu: page.getByTestId("top-bar-menu"),
    walletList: page.getByRole("dialog"),

    /** Clicks one of the top bar's actions (budget-toggle, ai-apps-open, settings-open) as a person
     * would: on a phone it is in the top bar's menu, which is opened first. */
    async topBarAction(testId: string): Promise<void> {
      const action = page.getByTestId(testId);
      if (!(await action.isVisible()) && (await ui.menu.isVisible())) await ui.menu.click();
      await action.click();
    },

    /** Opens RainbowKit's wallet list from the connect button, as a person would. */
    async openWalletList(): Promise<void> {
      // While the wallet libraries load, a disabled placeholder holds the button's place; a click
      // that landed as RainbowKit's modal was still opening is made again.
      await expect(async () => {
        if (!(await ui.walletList.isVisible())) await page.getByTestId("wallet-connect").getByRole("button", { name: /connect wallet/i, disabled: false }).click();
        await expect(ui.walletList).toBeVisible({ timeout: 5_000 });
      }).toPass({ timeout: 40_000 });
    },

    /** Connects a wallet through RainbowKit's modal, by the name it is listed under. */
    async connect(walletName: string): Promise<void> {
      const connectButton = page.getByTestId("wallet-connect").getByRole("button", { name: /connect wallet/i });
      const modal = page.getByRole("dialog");
      // As a person would: open the modal and pick the wallet; if a click landed while RainbowKit's
      // modal was still opening and it closed without connecting, open it and pick again.
      await expect(async () => {
        if ((await connectButton.count()) === 0) return;
        // While the wallet libraries load, a disabled placeholder holds the button's place.
        if (!(await modal.isVisible())) await page.getByTestId("wallet-connect").getByRole("button", { name: /connect wallet/i, disabled: false }).click();
        await modal.getByRole("button", { name: new RegExp(walletName, "i") }).first().click({ timeout: 5_000 });
        await expect(connectButton).toHaveCount(0, { timeout: 8_000 });
      }).toPass({ timeout: 40_000 });
    },

    /** Sends a message; one the server holds back for a cooldown left by an earlier test (429) is
     * held by the page and sent when the wait is over. */
    async ask(text: string): Promise<void> {
      await ui.input.fill(text);
      await expect(ui.send).toBeEnabled({ timeout: (cooldownSeconds + 3) * 1000 });
      const answered = page.waitForResponse((response) => response.url().endsWith("/api/chat") && response.status() !== 429, {
        timeout: (cooldownSeconds + 15) * 1000,
      });
      await ui.send.click();
      expect((await answered).status()).toBe(200);
      await expect(ui.messages("user").filter({ hasText: text }).last()).toBeVisible();
    },

    /** Asks for a paid service and waits for the quote card of the reply at `index` (0-based among
     * assistant replies) to wait for approval; that card. */
    async quote(text: string, index = 0) {
      await ui.ask(text);
      const card = (await ui.reply(index)).getByTestId("payment-card");
      await expect(card).toHaveAttribute("data-status", "awaiting-signature");
      return card;
    },

    /** Waits for the reply at `index` (0-based among assistant replies) to finish. */
    async reply(index: number) {
      const reply = ui.messages("assistant").nth(index);
      await expect(reply).toHaveAttribute("data-state", /done|failed|stopped/, { timeout: 45_000 });
      return reply;
    },
  };
  return ui;
}
