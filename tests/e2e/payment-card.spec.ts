// The payment card at 1280 × 800, where a quote is taller than the chat pane: it opens at its top
// with the button that pays in view and its details folded; the service's address keeps its host
// and port whole; and a payment the person turned down reads "Declined", quietly, not as a failure.
import { chatPage } from "./chat-page";
import { expect, test } from "./wallet";

test.use({ viewport: { width: 1280, height: 800 } });

test("a quote opens at its top with the pay button in view and its details folded; the service address keeps host and port whole", async ({ page, wallet }) => {
  test.setTimeout(90_000);
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  await ui.ask("What's the weather in Lisbon?");
  const card = (await ui.reply(0)).getByTestId("payment-card");
  await expect(card).toHaveAttribute("data-status", "awaiting-signature");

  // The person lands on the card's top, and can pay without scrolling.
  await expect(card.getByRole("heading", { name: "Budget Weather" })).toBeInViewport({ ratio: 1 });
  await expect(card.getByTestId("payment-total")).toBeInViewport({ ratio: 1 });
  await expect(card.getByTestId("approve-payment")).toBeInViewport({ ratio: 1 });
  await expect(card.getByTestId("reject-payment")).toBeInViewport({ ratio: 1 });

  // The details are folded, and open on a click.
  const serviceUrl = card.getByTestId("payment-service-url");
  await expect(serviceUrl).toBeHidden();
  await card.getByText("Details", { exact: true }).click();
  await expect(serviceUrl).toBeVisible();
  // The host and its port are shown whole; only a long path may be shortened.
  const { port } = new URL((await serviceUrl.getAttribute("title")) ?? "");
  const host = serviceUrl.getByTestId("payment-service-host");
  await expect(host).toHaveText(`127.0.0.1:${port}`);
  expect(await host.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
  expect(wallet.signRequests).toBe(0);
});

test("a payment the person turned down is badged Declined, quietly: no alert, no failure colour", async ({ page, wallet }) => {
  test.setTimeout(90_000);
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  await ui.ask("What's the weather in Paris?");
  const card = (await ui.reply(0)).getByTestId("payment-card");
  await expect(card).toHaveAttribute("data-status", "awaiting-signature");
  const awaitingColour = await card.getByTestId("payment-status").evaluate((element) => getComputedStyle(element).color);
  await card.getByTestId("reject-payment").click();

  await expect(card).toHaveAttribute("data-status", "failed");
  const badge = card.getByTestId("payment-status");
  await expect(badge).toHaveText("Declined");
  await expect(card).toHaveAccessibleName("Payment to Budget Weather: Declined");
  await expect(card.getByRole("alert")).toHaveCount(0);
  await expect(card).toContainText("You turned this payment down, so nothing was sent.");
  await expect(card).toContainText("No service fee was charged.");
  // Grey, as a note: neither the failure's red nor the waiting quote's colour.
  const declinedColour = await badge.evaluate((element) => getComputedStyle(element).color);
  expect(declinedColour).not.toBe(awaitingColour);
  const [red, green, blue] = (declinedColour.match(/\d+/g) ?? []).map(Number);
  expect(Math.max(red ?? 0, green ?? 0, blue ?? 0) - Math.min(red ?? 0, green ?? 0, blue ?? 0)).toBeLessThan(40);
  expect(wallet.signRequests).toBe(0);
});
