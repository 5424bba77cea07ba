// What the agent says, as a person reads it (the offline model, on the sandbox): a service's
// refusal in the service's own terms, said once; a comparison as one table with what the
// services share said once; and every amount of money written one way, "$1.00", as the budget
// panel writes it.
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
