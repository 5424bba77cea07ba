// Paying a Machine Payments Protocol service from the page, in Chromium against the production
// build on the sandbox: the offline model compares the quotations sold over x402 and over MPP
// (mppx's server), quotes the cheaper MPP one, the card says so, the browser wallet signs the
// EIP-3009 authorization, and the answer comes back paid on chain.
import { expect, test } from "./wallet";
import { chatPage } from "./chat-page";

test("pays an MPP service from the page: the card says MPP, the wallet signs once, the data arrives", async ({ page, wallet }) => {
  test.setTimeout(120_000);
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");

  await ui.ask("A quotation on money, please");
  const first = await ui.reply(0);
  const card = first.getByTestId("payment-card");
  await expect(card).toHaveAttribute("data-status", "awaiting-signature");
  await expect(card.getByTestId("payment-protocol")).toHaveAttribute("data-protocol", "mpp");
  await expect(card.getByTestId("payment-protocol")).toContainText("MPP");
  await expect(card.getByTestId("payment-total")).toContainText("0.0008");
  expect(wallet.signRequests).toBe(0);
  await card.getByTestId("approve-payment").click();

  const answer = await ui.reply(1);
  await expect(card).toHaveAttribute("data-status", "delivered");
  expect(wallet.signRequests).toBe(1);
  await expect(answer).toContainText("Benjamin Franklin");
  await expect(card.getByTestId("payment-tx-link")).toBeVisible();
  await expect(ui.budget.getByTestId("budget-meter-day")).toHaveAttribute("data-spent", "0.0008");
  await expect(ui.errors).toHaveCount(0);
});
