// The chat page in a real browser against the production build and the offline model: what a
// person sees when they send a message, wait out the cooldown, paste a key by mistake, or stop
// a reply. The server's cooldown is short (playwright.config.ts), and all requests come from one
// address, so the tests run in this order, one at a time.
import { expect, test } from "@playwright/test";
import { OFFLINE_NOTICE } from "@/lib/chat/offline-turns";
import { encodeLine, type PaymentStatus } from "@/lib/protocol/lines";
import { chatPage } from "./chat-page";
import { paceChatStream } from "./paced-stream";
import { cooldownSeconds } from "./settings";

test("says the model is offline, streams its reply and then holds the next message for the cooldown", async ({ page }) => {
  const ui = chatPage(page);
  await page.goto("/");
  await expect(ui.banner).toBeVisible();
  await expect(ui.banner).toContainText("Offline model");
  // On a wide screen too the notices are one line each, opened by a click, so the chat keeps the room.
  for (const [notice, toggle, words] of [
    [ui.banner, ui.bannerToggle, "No Gemini API key is set"],
    [ui.sandboxBanner, ui.sandboxBannerToggle, "Payments use play USDC on a local chain"],
  ] as const) {
    expect((await notice.boundingBox())?.height ?? 0).toBeLessThanOrEqual(40);
    await expect(notice.getByText(words)).toBeHidden();
    await toggle.click();
    await expect(notice.getByText(words)).toBeVisible();
    await toggle.click();
    await expect(notice.getByText(words)).toBeHidden();
  }

  await ui.input.fill("Hello! What can you do for me?");
  await expect(ui.send).toBeEnabled();
  await ui.send.click();
  // The wait starts as the message leaves.
  await expect(ui.cooldown).toBeVisible();

  await expect(ui.messages("user")).toHaveText(/Hello! What can you do for me\?/);
  const reply = ui.messages("assistant").last();
  await expect(reply).toContainText(OFFLINE_NOTICE);
  await expect(reply).toContainText("compare their prices");
  await expect(reply).toHaveAttribute("data-state", "done");
  await expect(reply.getByTestId("message-meta")).toHaveText("Offline model");
  await expect(ui.stop).toBeHidden();
  await expect(ui.errors).toHaveCount(0);

  // The composer is cleared, and the next message waits: written and sent now, it is held until then.
  await expect(ui.input).toHaveValue("");
  await expect(ui.cooldown).toBeVisible();
  await expect(ui.cooldown).toContainText(/Next message in \d+ s/);
  await ui.input.fill("And another thing");
  await ui.send.click();
  await expect(ui.cooldown).toContainText(/Sending in \d+ s/);
  await expect(ui.send).toBeDisabled();
  await expect(ui.messages("user")).toHaveCount(1);
});

test("a person who scrolls up while a reply is still arriving is left where they scrolled to", async ({ page }) => {
  test.setTimeout(90_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await paceChatStream(page, { pauseMs: 60, fromAnswer: 1 });
  const ui = chatPage(page);
  const log = page.getByRole("log");
  const fromBottom = () => log.evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight);
  await page.goto("/");
  await ui.ask("List the available services");
  await ui.reply(0);
  await ui.ask("What can you do?");

  // While the reply arrives the log follows it; the person then scrolls up to read the first one.
  const reply = ui.messages("assistant").nth(1);
  await expect(reply).toContainText("I can find");
  await expect(reply).toHaveAttribute("data-state", "streaming");
  await expect.poll(fromBottom).toBeLessThan(80);
  await log.hover();
  await page.mouse.wheel(0, -400);
  await expect(reply).toHaveAttribute("data-state", "streaming");

  // The rest of the reply comes in below, and the log stays where they are.
  await expect(reply).toHaveAttribute("data-state", "done", { timeout: 30_000 });
  expect(await fromBottom()).toBeGreaterThan(300);
});

test("refuses a message that holds a private key, without showing or keeping the key", async ({ page }) => {
  const ui = chatPage(page);
  const privateKey = `0x${"0123456789abcdef".repeat(4)}`; // the shape of a key, not a real one
  await page.goto("/");
  await ui.input.fill(`Please use my wallet key ${privateKey} to pay`);
  await ui.send.click();

  const refusal = ui.errors.last();
  await expect(refusal).toHaveAttribute("data-code", "secret-in-message");
  await expect(refusal).toContainText("private key");
  await expect(refusal).toContainText("It was not sent anywhere");
  // The key is gone from the conversation and from the composer.
  await expect(ui.messages("user")).toHaveCount(0);
  await expect(ui.input).toHaveValue("");
  expect(await page.locator("body").innerText()).not.toContain(privateKey.slice(2));

  // The refused message did not count: the person need not wait to send a proper one.
  await expect(ui.cooldown).toBeHidden();
  await ui.input.fill("What services can you pay for?");
  await expect(ui.send).toBeEnabled();
});

test("Stop cancels a reply that is still on its way, and sending waits until then", async ({ page }) => {
  const ui = chatPage(page);
  // Hold the request open, as a slow model would, to see the page while a reply is pending.
  let requested!: () => void;
  const pending = new Promise<void>((resolve) => (requested = resolve));
  await page.route("**/api/chat", () => requested());
  await page.goto("/");
  await ui.input.fill("What's the weather in Lisbon?");
  await ui.send.click();
  await pending;

  const reply = ui.messages("assistant").last();
  await expect(reply.getByTestId("reply-pending")).toBeVisible();
  await ui.input.fill("One more question");
  await expect(ui.send).toBeDisabled();
  await expect(ui.stop).toBeVisible();

  await ui.stop.click();
  await expect(reply).toHaveAttribute("data-state", "stopped");
  await expect(reply.getByTestId("message-meta")).toHaveText("Stopped.");
  await expect(ui.stop).toBeHidden();
  await expect(ui.messages("user")).toHaveText(/What's the weather in Lisbon\?/);
});

test("shows one card per payment with its latest status, amounts and reason, and the stream's errors", async ({ page }) => {
  const ui = chatPage(page);
  // The offline model pays only through the sandbox, so this stream is written here with the
  // shared encoder, exactly as the server writes it.
  const quote: PaymentStatus = {
    paymentId: "pay-1",
    status: "checking",
    service: { name: "Weather Pro", url: "http://127.0.0.1:4100/weather" },
    network: "eip155:84532",
    chain: "Base Sepolia",
    asset: { symbol: "USDC", address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", decimals: 6 },
    amount: { serviceFee: "0.05", gasFee: "0", total: "0.05", currency: "USDC", usd: "0.05" },
    payTo: "0x1111111111111111111111111111111111111111",
  };
  const body = [
    encodeLine({ type: "text", text: "Checking the weather service. " }),
    encodeLine({ type: "payment", payment: quote }),
    encodeLine({
      type: "payment",
      payment: { ...quote, status: "failed", reason: { code: "limit-exceeded", message: "This would pass your daily limit of $0.01." } },
    }),
    encodeLine({ type: "error", error: { code: "limit-exceeded", message: "The payment was stopped by your daily limit." } }),
    encodeLine({ type: "data", data: { finishReason: "limit-exceeded", model: "offline", paymentId: "pay-1" } }),
  ].join("");
  await page.route("**/api/chat", (route) =>
    route.fulfill({ status: 200, headers: { "Content-Type": "text/event-stream; charset=utf-8" }, body }),
  );
  await page.goto("/");
  await ui.input.fill("What's the weather in Lisbon?");
  await ui.send.click();

  const reply = ui.messages("assistant").last();
  await expect(reply).toHaveAttribute("data-state", "done");
  await expect(reply).toContainText("Checking the weather service.");
  const cards = reply.getByTestId("payment-card");
  await expect(cards).toHaveCount(1);
  await expect(cards).toHaveAttribute("data-status", "failed");
  await expect(cards).toContainText("Weather Pro");
  await expect(cards.getByTestId("payment-total")).toHaveText("0.05 USDC ($0.05)");
  await expect(cards).toContainText("Base Sepolia");
  await expect(cards.getByTestId("payment-reason")).toHaveText(
    "This would pass your daily limit of $0.01. No service fee was charged.",
  );
  await expect(reply.getByTestId("error-message")).toHaveText("The payment was stopped by your daily limit.");
  await expect(reply.getByTestId("message-meta")).toHaveText("Stopped by a spending limit · Offline model");
});

test("no payload takes the chat down: a malformed payment update or ending is said in its place, and the next message still goes", async ({ page }) => {
  const ui = chatPage(page);
  const card: PaymentStatus = {
    paymentId: "pay-2",
    status: "submitted",
    service: { name: "Weather Pro", url: "https://weather.example/now" },
    network: "eip155:84532",
    chain: "Base Sepolia",
    asset: { symbol: "USDC", address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", decimals: 6 },
    amount: { serviceFee: "0.05", gasFee: "0", total: "0.05", currency: "USDC", usd: "0.05" },
    payTo: "0x1111111111111111111111111111111111111111",
  };
  // What a lying service would have liked the page to render: a transaction that is an object,
  // a reason that is not one, and an ending whose model is not text.
  const hostile = [
    encodeLine({ type: "payment", payment: card }),
    `p:${JSON.stringify({ ...card, status: "confirmed", txHash: { $$typeof: "react.element", props: {} } })}\n`,
    `p:${JSON.stringify({ ...card, status: "failed", reason: "not an object" })}\n`,
    `d:${JSON.stringify({ finishReason: "payment-complete", model: { evil: true } })}\n`,
  ].join("");
  const answer = [encodeLine({ type: "text", text: "Still here." }), encodeLine({ type: "data", data: { finishReason: "stop", model: "offline" } })].join("");
  let calls = 0;
  await page.route("**/api/chat", (route) => {
    calls += 1;
    return route.fulfill({ status: 200, headers: { "Content-Type": "text/event-stream; charset=utf-8" }, body: calls === 1 ? hostile : answer });
  });
  await page.goto("/");
  await ui.input.fill("What's the weather in Lisbon?");
  await ui.send.click();

  const reply = ui.messages("assistant").last();
  await expect(reply).toHaveAttribute("data-state", "done");
  // The one well-formed update stands; the others are said to be unreadable, not rendered.
  await expect(reply.getByTestId("payment-card")).toHaveAttribute("data-status", "submitted");
  await expect(reply.getByTestId("error-message")).toHaveCount(3);
  await expect(reply.getByTestId("error-message").first()).toContainText("could not be shown");
  await expect(page.getByText("react.element")).toHaveCount(0);

  // The page is alive: after the cooldown, the next message is sent and answered.
  await expect(ui.send).toBeDisabled();
  await ui.input.fill("Are you still there?");
  await expect(ui.send).toBeEnabled({ timeout: (cooldownSeconds + 5) * 1000 });
  await ui.send.click();
  await expect(ui.messages("assistant").last()).toContainText("Still here.");
});
