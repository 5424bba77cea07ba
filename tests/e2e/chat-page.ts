// The chat page's parts as the end-to-end tests find them, by data-testid.
import type { Page } from "@playwright/test";

export function chatPage(page: Page) {
  return {
    banner: page.getByTestId("offline-banner"),
    wallet: page.getByTestId("demo-wallet"),
    list: page.getByTestId("message-list"),
    input: page.getByTestId("composer-input"),
    send: page.getByTestId("send-button"),
    stop: page.getByTestId("stop-button"),
    cooldown: page.getByTestId("cooldown-indicator"),
    errors: page.getByTestId("error-message"),
    messages: (role: "user" | "assistant") => page.locator(`[data-testid="message"][data-role="${role}"]`),
  };
}
