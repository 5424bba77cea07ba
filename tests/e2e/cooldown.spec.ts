// The chat's cooldown as a person meets it: the page's countdown and the server's window end at
// the same instant (both counted from the message's arrival, rounded the same way), and a message
// the server still holds back is held by the page and sent when the wait is over, never dropped;
// and one the person writes and sends during the wait is held the same way, kept across a reload.
// Each test is a client of its own (tests/e2e/wallet.ts), so no other test's message holds it up.
import { chatPage } from "./chat-page";
import { cooldownSeconds } from "./settings";
import { expect, test } from "./wallet";

test("a message that took two seconds to arrive counts from its arrival: when the countdown reaches 0, the next message goes through", async ({ page }) => {
  test.setTimeout(60_000);
  const ui = chatPage(page);
  await page.goto("/");
  // A slow way to the server, as on a phone's network: the first message arrives two seconds after it leaves.
  let delayed = false;
  await page.route("**/api/chat", async (route) => {
    if (!delayed) {
      delayed = true;
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
    await route.fallback();
  });
  await ui.input.fill("Hello!");
  await ui.send.click();
  await ui.reply(0);

  await ui.input.fill("What can you do?");
  await expect(ui.cooldown).toBeHidden({ timeout: (cooldownSeconds + 5) * 1000 });
  const answered = page.waitForResponse((response) => response.url().endsWith("/api/chat"));
  await ui.send.click();
  expect((await answered).status()).toBe(200);
  await expect(ui.messages("user")).toHaveCount(2);
  await expect((await ui.reply(1)).getByTestId("message-meta")).toHaveText("Offline model");
  await expect(ui.errors).toHaveCount(0);
});

test("a message the server still holds back is held and sent when the wait is over, never dropped; the next wait survives a reload", async ({ page }) => {
  test.setTimeout(60_000);
  const ui = chatPage(page);
  await page.goto("/");
  await expect(ui.input).toBeEnabled();
  // This client sent a message a moment ago from elsewhere (another browser): the server's slot
  // is taken, and this page has nothing stored that says so.
  const elsewhere = await page.evaluate(async () => {
    const response = await fetch("/api/chat", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "hello" }] }),
    });
    await response.text();
    return response.status;
  });
  expect(elsewhere).toBe(200);
  await expect(ui.cooldown).toBeHidden();

  await ui.input.fill("Compare prices for weather");
  const refused = page.waitForResponse((response) => response.url().endsWith("/api/chat"));
  await ui.send.click();
  expect((await refused).status()).toBe(429);
  // Held, not refused: the page says when it goes, shows no error, and keeps the text meanwhile.
  await expect(ui.cooldown).toContainText(/Sending in \d+ s/);
  await expect(ui.errors).toHaveCount(0);
  await expect(ui.input).toHaveValue("Compare prices for weather");

  // Then it goes by itself, once.
  await expect(ui.messages("user")).toHaveText([/Compare prices for weather$/], { timeout: (cooldownSeconds + 5) * 1000 });
  await expect(await ui.reply(0)).toHaveAttribute("data-state", "done");
  await expect(ui.input).toHaveValue("");
  await expect(ui.errors).toHaveCount(0);

  // The wait it started holds across a reload.
  await page.reload();
  await expect(ui.cooldown).toContainText(/Next message in \d+ s/);
});

test("a message written during the wait is held, said as 'Sending in', kept across a reload, and sent once when the wait is over; a cancelled one is not sent", async ({ page }) => {
  test.setTimeout(90_000);
  const ui = chatPage(page);
  await page.goto("/");
  await ui.ask("Hello!");
  await ui.reply(0);
  await expect(ui.cooldown).toContainText(/Next message in \d+ s/);

  // Written and sent during the wait: held, not refused, with nothing sent to the server meanwhile.
  let posted = 0;
  page.on("request", (request) => {
    if (request.url().endsWith("/api/chat") && request.method() === "POST") posted++;
  });
  await ui.input.fill("What can you do?");
  await ui.send.click();
  await expect(ui.cooldown).toContainText(/Sending in \d+ s/);
  await expect(ui.input).toHaveValue("What can you do?");
  await expect(ui.send).toBeDisabled();

  // Cancelled: the text stays to edit, and it is not sent when the wait ends.
  await page.getByTestId("cancel-held").click();
  await expect(ui.cooldown).toContainText(/Next message in \d+ s/);
  await expect(ui.input).toHaveValue("What can you do?");

  // Held again, and the tab reloaded: still held, with its text and its countdown.
  await ui.send.click();
  await expect(ui.cooldown).toContainText(/Sending in \d+ s/);
  await page.reload();
  await expect(ui.input).toHaveValue("What can you do?");
  await expect(ui.cooldown).toContainText(/Sending in \d+ s/);
  expect(posted).toBe(0);

  // Then it goes by itself, once, and is answered.
  await expect(ui.messages("user")).toHaveCount(2, { timeout: (cooldownSeconds + 5) * 1000 });
  await expect(ui.messages("user").last()).toContainText("What can you do?");
  await expect(await ui.reply(1)).toHaveAttribute("data-state", "done");
  await expect(ui.input).toHaveValue("");
  expect(posted).toBe(1);
  await page.reload();
  await expect(ui.input).toHaveValue("");
  await expect(ui.messages("user")).toHaveCount(2);
});
