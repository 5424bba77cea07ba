// A paid request end to end on the local sandbox: the offline model picks the cheapest weather
// service, the page shows the quote, the demo wallet signs it on Approve, and the payment settles
// on the sandbox chain; or the person rejects the quote and nothing is paid. These tests run after
// chat.spec.ts on the same server, so a message first waits out any cooldown the earlier ones left.
import { expect, test, type Page } from "@playwright/test";
import { chatPage } from "./chat-page";
import { cooldownSeconds } from "./settings";

/** Sends a message; a 429 left by an earlier test is waited out (the page follows it) and retried. */
async function sendMessage(page: Page, text: string): Promise<void> {
  const ui = chatPage(page);
  await ui.input.fill(text);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    await expect(ui.send).toBeEnabled({ timeout: (cooldownSeconds + 3) * 1000 });
    const answered = page.waitForResponse((response) => response.url().endsWith("/api/chat"));
    await ui.send.click();
    const response = await answered;
    if (response.status() !== 429) {
      expect(response.status()).toBe(200);
      await expect(ui.messages("user").filter({ hasText: text })).toBeVisible();
      return;
    }
    // The page keeps the text and counts down the server's Retry-After.
    await expect(ui.input).toHaveValue(text);
  }
  throw new Error("the message was refused twice for the cooldown");
}

test("approves a quote with the demo wallet: it settles on chain and the answer arrives", async ({ page }) => {
  test.setTimeout(90_000);
  const ui = chatPage(page);
  await page.goto("/");
  await expect(ui.wallet).toBeVisible();
  await expect(ui.wallet).toContainText("Sandbox demo wallet");
  await expect(ui.wallet).toContainText("signs payments (a local development key)");

  await sendMessage(page, "What's the weather in Lisbon?");
  const first = ui.messages("assistant").first();
  await expect(first).toHaveAttribute("data-state", "done", { timeout: 20_000 });
  const card = first.getByTestId("payment-card");
  await expect(card).toHaveAttribute("data-status", "awaiting-signature");
  await expect(card).toContainText("Budget Weather");
  await expect(card.getByTestId("payment-total")).toContainText("0.002");
  await expect(card.getByTestId("payment-total")).toContainText("USDC");
  await expect(card.getByTestId("payment-pay-to")).toHaveText(/^0x[0-9a-fA-F]{40}$/);
  await expect(card.getByTestId("payment-expiry")).toContainText("at ");
  const approve = card.getByTestId("approve-payment");
  const reject = card.getByTestId("reject-payment");
  await expect(approve).toBeEnabled();
  await expect(reject).toBeEnabled();

  await approve.click();
  // No second approval while this one is on its way.
  await expect(approve).toBeDisabled();
  await expect(reject).toBeDisabled();

  // The approval's answer is a new reply; the quote's card follows the payment to the end.
  const answer = ui.messages("assistant").nth(1);
  await expect(answer).toHaveAttribute("data-state", "done", { timeout: 45_000 });
  await expect(card).toHaveAttribute("data-status", "delivered");
  await expect(card.getByTestId("payment-status")).toHaveText("Delivered");
  await expect(approve).toHaveCount(0);
  const txLink = card.getByTestId("payment-tx-link");
  await expect(txLink).toBeVisible();
  await expect(answer).toContainText("Lisbon");
  await expect(answer.getByTestId("message-meta")).toHaveAttribute("data-finish-reason", "payment-complete");
  // (A refusal for the cooldown, if the send had to wait, is the only error the page may show.)
  await expect(page.locator('[data-testid="error-message"]:not([data-code="rate-limited"])')).toHaveCount(0);
  // The approval counted as no new message: the composer is not held for it by the page.
  expect(await ui.messages("user").count()).toBe(1);

  // The app's own transaction page shows the settlement read from the sandbox chain.
  // (The server writes it as an absolute URL of the app; it is opened here on the test's host.)
  const href = await txLink.getAttribute("href");
  const txPath = new URL(href ?? "", page.url()).pathname;
  expect(txPath).toMatch(/^\/tx\/eip155:31337\/0x[0-9a-fA-F]{64}$/);
  await page.goto(txPath);
  await expect(page.getByTestId("tx-status")).toHaveText("Confirmed");
  await expect(page.getByTestId("tx-transfer")).toContainText("0.002 USDC");
});

test("rejecting a quote pays nothing and sends nothing", async ({ page }) => {
  test.setTimeout(60_000);
  const ui = chatPage(page);
  await page.goto("/");
  await expect(ui.wallet).toBeVisible();
  await sendMessage(page, "What's the weather in Paris?");
  const reply = ui.messages("assistant").first();
  await expect(reply).toHaveAttribute("data-state", "done", { timeout: 20_000 });
  const card = reply.getByTestId("payment-card");
  await expect(card).toHaveAttribute("data-status", "awaiting-signature");

  let requests = 0;
  page.on("request", (request) => {
    if (request.url().endsWith("/api/chat")) requests += 1;
  });
  await card.getByTestId("reject-payment").click();
  await expect(card).toHaveAttribute("data-status", "failed");
  await expect(card.getByTestId("payment-reason")).toHaveAttribute("data-code", "rejected");
  await expect(card.getByTestId("payment-reason")).toContainText("No service fee was charged.");
  await expect(card.getByTestId("approve-payment")).toHaveCount(0);
  await expect(ui.messages("assistant")).toHaveCount(1);
  expect(requests).toBe(0);
});
