// What the agent says, as a person reads it (the offline model, on the sandbox): a service's
// refusal in the service's own terms, said once; a comparison as one table with what the
// services share said once; on a phone, a table of many columns stacked row by row rather than
// running off the side; and every amount of money written one way, "$1.00", as the budget panel
// writes it.
import { expectNoSeriousA11yViolations } from "./axe";
import { chatPage } from "./chat-page";
import { expect, test } from "./wallet";

const occurrences = (text: string, part: string) => text.split(part).length - 1;

test("a city the weather service does not cover is said once, in words: no alert, nothing meant for the model, no 'Payment failed'", async ({ page }) => {
  const ui = chatPage(page);
  await page.goto("/");
  await ui.ask("What's the weather in Atlantis?");
  const reply = await ui.reply(0);
  await expect(reply).toContainText('Budget Weather has nothing for city "Atlantis": it takes Lisbon, London, Paris');
  await expect(reply).toContainText("Nothing was quoted or paid.");
  expect(occurrences(await reply.innerText(), "Atlantis")).toBe(1);
  await expect(reply).not.toContainText("Ask the person");
  await expect(ui.errors).toHaveCount(0);
  await expect(reply.getByTestId("payment-card")).toHaveCount(0);
  await expect(reply.getByTestId("message-meta")).toHaveText("Offline model");
});

test("an MPP service's refusal names the service and what it takes, read from its own OpenAPI document", async ({ page }) => {
  const ui = chatPage(page);
  await page.goto("/");
  await ui.ask("A quotation about love, please");
  const reply = await ui.reply(0);
  await expect(reply).toContainText('Maxim Machine has nothing for topic "love": it takes money, time, work or patience. Nothing was paid.');
  await expect(reply).not.toContainText("HTTP 400");
  await expect(ui.errors).toHaveCount(0);
  await expect(reply.getByTestId("message-meta")).toHaveText("Offline model");
});

test("a comparison is one table, with what the services share said once", async ({ page }) => {
  const ui = chatPage(page);
  await page.goto("/");
  await ui.ask("Compare prices for weather");
  const reply = await ui.reply(0);
  const table = reply.getByRole("table");
  await expect(table).toHaveCount(1);
  await expect(table.getByRole("row")).toHaveCount(4);
  await expect(table.getByRole("row").nth(1)).toContainText("Budget Weather");
  await expect(table.getByRole("row").nth(1)).toContainText("$0.002");
  await expect(table.getByRole("row").nth(2)).toContainText("Meteo Machine");
  await expect(table.getByRole("row").nth(2)).toContainText("MPP");
  await expect(table.getByRole("row").nth(3)).toContainText("QuickWeather Pro");
  await expect(table.getByRole("row").nth(3)).toContainText("$0.01");
  // The twelve cities, and what the services all answer, once for the three of them.
  const text = await reply.innerText();
  expect(occurrences(text, "Reykjavik")).toBe(1);
  expect(occurrences(text, "Current weather for a city")).toBe(1);
});

test("on a phone, the list of services reads without scrolling sideways: each service a block of its columns' names and values, still a table to a screen reader", async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 812 });
  const ui = chatPage(page);
  await page.goto("/");
  await ui.ask("List the available services");
  const reply = await ui.reply(0);
  const table = reply.getByRole("table");
  await expect(table).toHaveCount(1);
  const maxim = table.getByRole("row").filter({ hasText: "Maxim Machine" });
  await expect(maxim).toHaveCount(1);
  await expect(table.getByRole("columnheader", { name: "About" })).toHaveCount(1);

  // Nothing runs off the side: the table is no wider than the reply, and a service's own words
  // sit inside the reply, named by their column.
  const overflow = await table.evaluate((element) => element.scrollWidth - (element.parentElement as HTMLElement).clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  const about = maxim.getByRole("cell").filter({ hasText: "A famous quotation" });
  const [aboutBox, replyBox] = [await about.boundingBox(), await reply.boundingBox()];
  expect(aboutBox && replyBox && aboutBox.x + aboutBox.width <= replyBox.x + replyBox.width).toBe(true);
  expect(await about.evaluate((cell) => getComputedStyle(cell, "::before").content)).toContain("About");
  // Each block opens with the service's name: its number is its place, not a line of its own.
  const service = maxim.getByRole("cell").filter({ hasText: "Maxim Machine" });
  const firstLineTop = await maxim.evaluate((row) => row.getBoundingClientRect().top + row.clientTop + Number.parseFloat(getComputedStyle(row).paddingTop));
  expect(Math.abs(((await service.boundingBox())?.y ?? 0) - firstLineTop)).toBeLessThan(2);
  await expect(maxim.getByRole("cell").first()).toHaveText("1");
  await expectNoSeriousA11yViolations(page, "the list of services on a phone");

  // On a wide screen the same reply is a table of columns again: a row's cells side by side.
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect
    .poll(() => maxim.getByRole("cell").evaluateAll((cells) => new Set(cells.map((cell) => Math.round(cell.getBoundingClientRect().top))).size))
    .toBe(1);
  expect(await about.evaluate((cell) => getComputedStyle(cell, "::before").content)).toBe("none");
});

test("amounts are written one way in replies, as in the budget panel: $0.50 and $5.00, never $0.5 or $5", async ({ page, wallet }) => {
  test.setTimeout(90_000);
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  await expect(ui.budget.getByTestId("budget-meter-day")).toHaveAttribute("data-spent", "0");
  expect(wallet.signRequests).toBe(0);
  await ui.ask("Set my daily limit to 0.5");
  const proposal = await ui.reply(0);
  await expect(proposal).toContainText("daily limit → $0.50");
  await expect(ui.budget.getByTestId("budget-meter-day")).toContainText("$0.00 of $0.50 spent");

  await ui.ask("How much have I spent this week?");
  const spending = await ui.reply(1);
  await expect(spending).toContainText("Last 7 days: spent $0.00 of $5.00, $5.00 left.");
  await expect(spending).toContainText("Per-payment limit: $0.50.");
  await expect(spending).not.toContainText(/\$\d+(?!\.?\d)|\$\d+\.\d(?!\d)/);
});
