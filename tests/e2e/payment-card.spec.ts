// The payment card at 1280 × 800, where a quote is taller than the chat pane: it opens at its top
// with the button that pays in view and its details folded, a second one too when its reply comes
// in line by line below an earlier one (paced-stream.ts), and on a phone, where the card is as
// tall as the pane, after a paid one; the service's address keeps its host and port whole; a
// payment the person turned down reads "Declined", quietly, not as a failure, and one that ran out
// while it waited "Expired"; the page with a quote keeps to the type scale (app/globals.css); on a
// phone the card's sticky buttons have what it costs beside them and its steps' names are never
// broken inside a word; and after a payment the page never scrolls as a whole, only the conversation.
import type { Locator, Page } from "@playwright/test";
import { chatPage } from "./chat-page";
import { paceChatStream } from "./paced-stream";
import { expect, test } from "./wallet";

/** Connects the test wallet, asks for a city's weather and returns the quote's card, awaiting approval. */
async function quoteFor(page: Page, city: string): Promise<Locator> {
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  await ui.ask(`What's the weather in ${city}?`);
  const card = (await ui.reply(0)).getByTestId("payment-card");
  await expect(card).toHaveAttribute("data-status", "awaiting-signature");
  return card;
}

/** Expects the element in view whole and on top: not hidden behind the card's sticky buttons, as
 * a summary scrolled under them would be. */
async function expectSeen(element: Locator): Promise<void> {
  await expect(element).toBeInViewport({ ratio: 1 });
  await expect
    .poll(() =>
      element.evaluate((node) => {
        const box = node.getBoundingClientRect();
        const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
        return hit !== null && node.contains(hit);
      }),
    )
    .toBe(true);
}

/** The fonts the page's laid-out text and controls are drawn in (first family, size, weight and
 * style), RainbowKit's own button aside: its styles are the library's. */
function fontsDrawn(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const fonts = new Set<string>();
    const add = (element: Element) => {
      if (element.getClientRects().length === 0 || element.closest("[data-rk]")) return;
      const style = getComputedStyle(element);
      fonts.add(`${style.fontFamily.split(",")[0]} ${style.fontSize} ${style.fontWeight} ${style.fontStyle}`);
    };
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.textContent?.trim() && node.parentElement) add(node.parentElement);
    }
    for (const control of document.querySelectorAll("button, input, select, textarea")) add(control);
    return [...fonts].sort();
  });
}

test.use({ viewport: { width: 1280, height: 800 } });

test("a quote opens at its top with the pay button in view and its details folded; the service address keeps host and port whole", async ({ page, wallet }) => {
  test.setTimeout(90_000);
  const card = await quoteFor(page, "Lisbon");

  // The person lands on the card's top, and can pay without scrolling.
  await expectSeen(card.getByRole("heading", { name: "Budget Weather" }));
  await expectSeen(card.getByTestId("payment-total"));
  await expectSeen(card.getByTestId("approve-payment"));
  await expectSeen(card.getByTestId("reject-payment"));

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

test("a second quote, streamed in line by line below an earlier one, opens at its top too, with the pay button in view", async ({ page, wallet }) => {
  test.setTimeout(120_000);
  await paceChatStream(page);
  const ui = chatPage(page);
  const first = await quoteFor(page, "London");
  await first.getByTestId("reject-payment").click();
  await expect(first).toHaveAttribute("data-status", "failed");

  await ui.ask("What's the weather in Paris?");
  const card = (await ui.reply(1)).getByTestId("payment-card");
  await expect(card).toHaveAttribute("data-status", "awaiting-signature");
  await expectSeen(card.getByRole("heading", { name: "Budget Weather" }));
  await expectSeen(card.getByTestId("payment-total"));
  await expectSeen(card.getByTestId("approve-payment"));
  expect(wallet.signRequests).toBe(0);
});

test("on a phone, a quote that comes in line by line after a paid one opens at its top and stays there as the reply's last lines arrive", async ({ page, wallet }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 375, height: 812 });
  await paceChatStream(page);
  const ui = chatPage(page);
  const first = await quoteFor(page, "London");
  await first.getByTestId("approve-payment").click();
  await expect(first).toHaveAttribute("data-status", "delivered", { timeout: 45_000 });

  await ui.ask("What's the weather in Paris?");
  const reply = ui.messages("assistant").last();
  await expect(reply).toHaveAttribute("data-state", "done", { timeout: 45_000 });
  const card = reply.getByTestId("payment-card");
  await expect(card).toHaveAttribute("data-status", "awaiting-signature");
  await expectSeen(card.getByRole("heading", { name: "Budget Weather" }));
  await expectSeen(card.getByTestId("approve-payment"));
  // What it costs, where and until when are in view beside the buttons, not under them.
  const summary = card.getByTestId("payment-panel-summary");
  await expectSeen(summary);
  await expect(summary).toContainText(/\d+\.\d+ USDC on \w+/);
  await expect(summary).toContainText(/expires in \d+:\d\d/);
  // No step's name is broken inside a word: each word is one line of its label.
  const brokenWords = await card.getByTestId("payment-steps").evaluate((steps) => {
    const broken: string[] = [];
    for (const label of steps.querySelectorAll("li > span:nth-child(2)")) {
      const text = label.firstChild;
      if (!text || text.nodeType !== Node.TEXT_NODE) continue;
      const words = text.textContent ?? "";
      let at = 0;
      for (const word of words.split(" ")) {
        const range = document.createRange();
        range.setStart(text, at);
        range.setEnd(text, at + word.length);
        if (word.length > 0 && range.getClientRects().length > 1) broken.push(word);
        at += word.length + 1;
      }
    }
    return broken;
  });
  expect(brokenWords).toEqual([]);
  expect(wallet.signRequests).toBe(1);
});

for (const size of [
  { width: 1280, height: 800 },
  { width: 375, height: 812 },
]) {
  test(`at ${size.width} × ${size.height} the page never scrolls as a whole after a payment: only the conversation does`, async ({ page, wallet }) => {
    test.setTimeout(120_000);
    await page.setViewportSize(size);
    const ui = chatPage(page);
    const first = await quoteFor(page, "London");
    await first.getByTestId("approve-payment").click();
    await expect(first).toHaveAttribute("data-status", "delivered", { timeout: 45_000 });
    await ui.ask("What's the weather in Paris?");
    await expect(ui.messages("assistant").last()).toHaveAttribute("data-state", "done", { timeout: 45_000 });

    // The document is the window's height: nothing of the page lies below it.
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThanOrEqual(size.height);
    // A wheel over the header or the notices moves nothing; over the conversation, the conversation.
    const header = await page.getByRole("banner").boundingBox();
    await page.mouse.move((header?.x ?? 0) + 20, (header?.y ?? 0) + 10);
    await page.mouse.wheel(0, 2_000);
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    const scroller = page.getByRole("log", { name: "Conversation" });
    expect(await scroller.evaluate((element) => element.scrollHeight > element.clientHeight)).toBe(true);
    await scroller.evaluate((element) => element.scrollTo({ top: 0 }));
    await scroller.hover();
    await page.mouse.wheel(0, 400);
    await expect.poll(() => scroller.evaluate((element) => element.scrollTop)).toBeGreaterThan(0);
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    expect(wallet.signRequests).toBe(1);
  });
}

test("a payment the person turned down is badged Declined, quietly: no alert, no failure colour, and said once", async ({ page, wallet }) => {
  test.setTimeout(90_000);
  const card = await quoteFor(page, "Paris");
  const awaitingColour = await card.getByTestId("payment-status").evaluate((element) => getComputedStyle(element).color);
  await card.getByTestId("reject-payment").click();

  await expect(card).toHaveAttribute("data-status", "failed");
  const badge = card.getByTestId("payment-status");
  await expect(badge).toHaveText("Declined");
  await expect(card).toHaveAccessibleName("Payment to Budget Weather: Declined");
  await expect(card.getByRole("alert")).toHaveCount(0);
  // Said once: the summary, then what it cost; not the page's own "You declined this payment." again.
  await expect(card.getByTestId("payment-failure-summary")).toHaveText("You turned this payment down, so nothing was sent.");
  await expect(card.getByTestId("payment-reason")).toHaveText("No service fee was charged.");
  // The agent's words about approving it ("approve it within 5 minutes") are marked as no longer holding.
  await expect(page.getByTestId("reply-superseded")).toHaveText("You declined this payment: nothing was sent, and what follows about approving it no longer applies.");
  // Grey, as a note: neither the failure's red nor the waiting quote's colour.
  const declinedColour = await badge.evaluate((element) => getComputedStyle(element).color);
  expect(declinedColour).not.toBe(awaitingColour);
  const [red, green, blue] = (declinedColour.match(/\d+/g) ?? []).map(Number);
  expect(Math.max(red ?? 0, green ?? 0, blue ?? 0) - Math.min(red ?? 0, green ?? 0, blue ?? 0)).toBeLessThan(40);
  expect(wallet.signRequests).toBe(0);
});

test("a quote that runs out while it waits is badged Expired, quietly, says so once and offers no button that could not work", async ({ page, wallet }) => {
  test.setTimeout(90_000);
  // The page's clock runs as a person's does, until it is moved past the quote's five minutes.
  await page.clock.install();
  const card = await quoteFor(page, "Berlin");
  await expect(card.getByTestId("payment-status")).toHaveText("Waiting for your approval");
  await page.clock.fastForward("05:30");

  const badge = card.getByTestId("payment-status");
  await expect(badge).toHaveText("Expired");
  await expect(card).toHaveAccessibleName("Payment to Budget Weather: Expired");
  // The approval step says where it stopped, and no step is still in progress.
  await expect(card.locator('[data-step="awaiting-signature"]')).toHaveAttribute("data-state", "failed");
  await expect(card.locator('[data-step="awaiting-signature"]')).toContainText("Expired");
  await expect(card.locator('[data-state="current"]')).toHaveCount(0);
  // Said once, as a note rather than an alarm, with what to do next.
  await expect(card.getByRole("alert")).toHaveCount(0);
  await expect(card.getByTestId("payment-failure-summary")).toHaveText("The quote ran out before it could be paid. Ask again for a new one.");
  await expect(card.getByTestId("payment-reason")).toHaveText("No service fee was charged.");
  await expect(card).not.toContainText(/expired\. Ask again/i);
  // Neither a pay button that cannot pay nor a reject for what is already over.
  await expect(card.getByTestId("approve-payment")).toHaveCount(0);
  await expect(card.getByTestId("reject-payment")).toHaveCount(0);
  expect(wallet.signRequests).toBe(0);
});

test("a quote that ran out is never sent to the wallet, even once the threshold would open its prompt by itself", async ({ page, wallet }) => {
  test.setTimeout(90_000);
  await page.clock.install();
  const card = await quoteFor(page, "Sydney");
  await page.clock.fastForward("05:30");
  await expect(card.getByTestId("payment-status")).toHaveText("Expired");
  // A threshold above the quote's price: a waiting quote would now be signed without a click.
  await page.getByTestId("settings-open").click();
  await page.getByTestId("settings-threshold").fill("0.01");
  await page.getByTestId("settings-save").click();
  await expect(page.getByTestId("settings-dialog")).toBeHidden();
  // The prompt, had it opened, would have within a moment of the page's next render.
  await page.waitForTimeout(1_500);
  expect(wallet.signRequests).toBe(0);
  await expect(card.getByTestId("payment-status")).toHaveText("Expired");
});

test("a page with a quote draws its text in a few fonts, not one per element: each size and weight is a font the browser resolves before it lays text out", async ({ page, wallet }) => {
  test.setTimeout(90_000);
  const card = await quoteFor(page, "Lisbon");
  await card.getByText("Details", { exact: true }).click();
  await expect(card.getByTestId("payment-service-url")).toBeVisible();

  // The scale's five sizes in the sans-serif face, in two weights, the notice's italic and the
  // card's addresses in the monospace face, with the chat, the card, its details and the budget
  // panel in view (before the scale: 23, in 14 sizes).
  const fonts = await fontsDrawn(page);
  expect(fonts.length, fonts.join("\n")).toBeLessThanOrEqual(11);
  expect(new Set(fonts.map((font) => font.split(" ")[2])), fonts.join("\n")).toEqual(new Set(["400", "600"]));
});
