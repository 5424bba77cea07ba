// The page on a phone (375 × 667, a touch screen, a phone's browser), for a person who has no
// wallet extension: the conversation and the composer own the screen on a first visit, each
// notice is one line that opens on a tap, the top bar's actions sit behind one menu, and the
// wallet list says what to do without a wallet and shows Base Account and Coinbase Wallet, disabled
// on the sandbox, which they cannot reach.
import type { Page } from "@playwright/test";
import { chatPage } from "./chat-page";
import { expect, test } from "./wallet";

const screen = { width: 375, height: 667 };

/** The page's document arrives as a slow network gives it: its parse waits just before the
 * composer's HTML (a script there, held for a moment, that then removes itself), and the browser
 * may paint what it has parsed meanwhile. */
async function slowParseBeforeComposer(page: Page): Promise<void> {
  await page.route("**/held-parse.js", async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 800));
    await route.fulfill({ contentType: "text/javascript", body: "document.currentScript.remove();" });
  });
  await page.route("**/*", async (route) => {
    if (route.request().resourceType() !== "document") return route.fallback();
    const response = await route.fetch();
    const html = await response.text();
    const nonce = /nonce="([^"]+)"/.exec(html)?.[1];
    const composer = /<form[^>]*aria-label="Send a message"/.exec(html);
    expect(nonce && composer).toBeTruthy();
    const at = composer?.index ?? 0;
    await route.fulfill({ response, body: `${html.slice(0, at)}<script nonce="${nonce}" src="/held-parse.js"></script>${html.slice(at)}` });
  });
}

test.use({
  viewport: screen,
  hasTouch: true,
  isMobile: true,
  // A phone's browser: RainbowKit lays its wallet list out for a phone when it sees one.
  userAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Mobile Safari/537.36",
});

test("on a phone the conversation and the composer own the screen; notices and actions open on a tap; the wallet list shows Base Account, disabled on the sandbox", async ({ page }) => {
  test.setTimeout(90_000);
  const ui = chatPage(page);
  await page.goto("/");
  await expect(ui.input).toBeEnabled();

  // A first visit: the chat is at least 60% of the screen, and the composer is on it.
  const chat = await ui.chat.boundingBox();
  expect((chat?.height ?? 0) / screen.height).toBeGreaterThanOrEqual(0.6);
  await expect(ui.input).toBeInViewport({ ratio: 1 });
  await expect(ui.send).toBeInViewport({ ratio: 1 });
  await expect(page.getByRole("heading", { name: "What can I get for you?" })).toBeInViewport();

  // Each notice is one line until tapped, and folds again on a second tap.
  for (const [notice, toggle, words] of [
    [ui.banner, ui.bannerToggle, "No Gemini API key is set"],
    [ui.sandboxBanner, ui.sandboxBannerToggle, "Payments use play USDC on a local chain"],
  ] as const) {
    const line = await toggle.boundingBox();
    expect(line?.height ?? 0).toBeLessThanOrEqual(40);
    await expect(notice.getByText(words)).toBeHidden();
    await toggle.tap();
    await expect(toggle).toHaveAttribute("aria-expanded", "true");
    await expect(notice.getByText(words)).toBeVisible();
    await toggle.tap();
    await expect(toggle).toHaveAttribute("aria-expanded", "false");
    await expect(notice.getByText(words)).toBeHidden();
  }

  // The top bar is one line: its actions are in the menu, which a choice closes.
  const header = await page.getByRole("banner").boundingBox();
  expect(header?.height ?? 0).toBeLessThanOrEqual(64);
  const settings = page.getByTestId("settings-open");
  await expect(settings).toBeHidden();
  await ui.menu.tap();
  await expect(settings).toBeVisible();
  await expect(page.getByTestId("ai-apps-open")).toBeVisible();
  await page.getByTestId("budget-toggle").tap();
  await expect(settings).toBeHidden();
  await expect(ui.budget).toBeVisible();
  // The sheet is opaque (the chat does not show between its cards), and its Close stays in
  // reach when its content is scrolled to the end.
  const sheet = page.locator("#budget-sheet");
  expect(await sheet.evaluate((element) => getComputedStyle(element).backgroundColor)).toMatch(/^rgb\(/);
  await sheet.evaluate((element) => element.scrollTo({ top: element.scrollHeight }));
  const close = page.getByTestId("budget-close");
  await expect(close).toBeInViewport({ ratio: 1 });
  expect(
    await close.evaluate((node) => {
      const box = node.getBoundingClientRect();
      return node.contains(document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2));
    }),
  ).toBe(true);
  await page.getByTestId("budget-close").tap();
  await expect(ui.budget).toBeHidden();
  // A dialog an action opens keeps the menu under it, and its button has the focus back after.
  await ui.menu.tap();
  await settings.tap();
  await expect(page.getByTestId("settings-dialog")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("settings-dialog")).toBeHidden();
  await expect(settings).toBeFocused();
  // A tap outside it closes it.
  await ui.input.tap();
  await expect(settings).toBeHidden();

  // No extension here: the wallet list says what to do, and shows Base Account and Coinbase
  // Wallet where a person looks for a wallet, disabled, since they cannot reach the sandbox.
  await ui.openWalletList();
  const note = ui.walletList.getByTestId("wallet-list-note");
  await expect(note).toContainText("No wallet? Use the Sandbox demo wallet");
  await expect(ui.walletList.getByRole("button", { name: /Sandbox demo wallet/ })).toBeVisible();
  const noExtension = ui.walletList.getByRole("group", { name: "No extension needed" });
  await noExtension.scrollIntoViewIfNeeded();
  await expect(noExtension.getByRole("button", { name: /^Base Account/ })).toBeDisabled();
  await expect(noExtension.getByRole("button", { name: /^Coinbase Wallet/ })).toBeDisabled();
  await expect(noExtension).toContainText("cannot reach this local chain");
  await expect(noExtension).toBeInViewport();
});

test("on a phone a reload that brings the conversation back does not move the row under it, even from a document that arrives slowly: nothing is painted before the composer, and New chat's place is kept before the conversation arrives", async ({ page }) => {
  test.setTimeout(60_000);
  const ui = chatPage(page);
  await page.goto("/");
  await ui.ask("Hello! What can you do for me?");
  await expect(await ui.reply(0)).toContainText("compare their prices");
  const tools = page.getByTestId("new-chat").locator("..");
  await expect(tools.getByTestId("model-picker")).toBeVisible();
  // The offline model answers whatever tier is chosen: the picker says so and offers no choice.
  await expect(tools.getByTestId("model-picker")).toBeDisabled();
  await expect(tools.getByTestId("model-picker")).toHaveText("Offline (no Gemini key set)");
  const settled = await tools.boundingBox();
  // With New chat beside it, the row takes two lines on a phone.
  expect(settled?.height ?? 0).toBeGreaterThan(40);

  // From the page's first frame: where the row is, and every layout shift with what moved.
  await page.addInitScript(() => {
    const seen = window as unknown as { firstRow?: { y: number; height: number }; shifted?: string[] };
    seen.shifted = [];
    const row = () => document.querySelector('[data-testid="model-picker"]')?.closest("div:has(> details)") ?? null;
    const first = () => {
      const element = row();
      if (!element) return requestAnimationFrame(first);
      const { y, height } = element.getBoundingClientRect();
      seen.firstRow = { y, height };
    };
    requestAnimationFrame(first);
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as (PerformanceEntry & { sources?: { node?: Node | null }[] })[]) {
        for (const source of entry.sources ?? []) if (source.node && source.node === row()) seen.shifted?.push("the row under the conversation");
      }
    }).observe({ type: "layout-shift", buffered: true });
  });
  await slowParseBeforeComposer(page);
  await page.reload();
  await expect(ui.messages("user")).toHaveText([/What can you do/]);
  await expect(page.getByTestId("new-chat")).toBeVisible();
  await page.waitForTimeout(500);
  const { firstRow, shifted } = await page.evaluate(() => {
    const seen = window as unknown as { firstRow?: { y: number; height: number }; shifted?: string[] };
    return { firstRow: seen.firstRow, shifted: seen.shifted };
  });
  expect(shifted).toEqual([]);
  expect(firstRow?.height).toBeCloseTo(settled?.height ?? 0, 0);
  expect(firstRow?.y).toBeCloseTo(settled?.y ?? 0, 0);
  await expect(ui.errors).toHaveCount(0);
});
