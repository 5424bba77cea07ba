// What the chat page loads before a person can use it. The page's HTML names the JavaScript it
// needs to start; the wallet libraries (wagmi, RainbowKit, viem) and the markdown renderer come
// afterwards. These tests hold back every script the HTML does not name, as a slow network
// would, and use the chat meanwhile; and they weigh what the HTML names.
import { gzipSync } from "node:zlib";
import type { Page } from "@playwright/test";
import { chatPage } from "./chat-page";
import { expect, test } from "./wallet";

const CHUNK = /\/_next\/static\/chunks\/[\w.-]+\.js/g;

/** Holds every script chunk the page's HTML does not name until `release` is called. */
async function holdLateScripts(page: Page): Promise<{ held: string[]; release: () => void }> {
  let named = new Set<string>();
  const held: string[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route("**/*", async (route) => {
    const request = route.request();
    if (request.resourceType() === "document") {
      const response = await route.fetch();
      const body = await response.text();
      named = new Set(body.match(CHUNK) ?? []);
      await route.fulfill({ response, body });
      return;
    }
    const { pathname } = new URL(request.url());
    if (new RegExp(`^${CHUNK.source}$`).test(pathname) && !named.has(pathname)) {
      held.push(pathname);
      await released;
    }
    await route.continue();
  });
  return { held, release };
}

test("the chat is usable before the wallet libraries arrive; their connect button then takes the placeholder's place without moving the top bar", async ({ page, wallet }) => {
  test.setTimeout(60_000);
  const ui = chatPage(page);
  const late = await holdLateScripts(page);
  // Not "load": the page asks for the held scripts before its load event.
  await page.goto("/", { waitUntil: "domcontentloaded" });
  await expect(page.getByRole("button", { name: "What services can you pay for?" })).toBeEnabled();

  const connect = page.getByTestId("wallet-connect").getByRole("button", { name: /connect wallet/i });
  await expect(connect).toBeDisabled();
  await expect(ui.budget).toContainText("Connect a wallet");
  await expect.poll(() => late.held.length).toBeGreaterThan(0);

  // A question is asked and its answer read, shown as plain text while the markdown renderer waits.
  await ui.ask("Hello! What can you do for me?");
  const reply = await ui.reply(0);
  await expect(reply).toContainText("compare their prices");
  await expect(reply.getByTestId("message-text").locator("p")).toHaveCount(1);
  await expect(connect).toBeDisabled();

  const header = page.locator("header").first();
  const before = { header: await header.boundingBox(), settings: await page.getByTestId("settings-open").boundingBox(), slot: await page.getByTestId("wallet-connect").boundingBox() };
  late.release();
  await expect(connect).toBeEnabled();
  const after = { header: await header.boundingBox(), settings: await page.getByTestId("settings-open").boundingBox(), slot: await page.getByTestId("wallet-connect").boundingBox() };
  expect(after).toEqual(before);

  // The reply is now markdown: the offline notice and the answer are two paragraphs.
  await expect(reply.getByTestId("message-text").locator("p")).toHaveCount(2);
  await ui.connect("Test Wallet");
  await expect(ui.budget.getByTestId("budget-meter-day")).toHaveAttribute("data-spent", "0");
  expect(wallet.connected).toBe(true);
});

test("the chat page's first load is at most 250 KB of gzipped JavaScript", async ({ request }) => {
  const html = await (await request.get("/")).text();
  // The scripts a browser runs before the page is interactive: those the HTML names, but the
  // polyfills only browsers without modules load.
  const scripts = [...html.matchAll(/<script\b[^>]*>/g)]
    .map(([tag]) => tag)
    .filter((tag) => !/\bnomodule\b/i.test(tag))
    .flatMap((tag) => /\bsrc="([^"]+)"/.exec(tag)?.[1] ?? []);
  expect(scripts.length).toBeGreaterThan(0);
  let bytes = 0;
  for (const src of scripts) {
    const response = await request.get(src);
    expect(response.status()).toBe(200);
    bytes += gzipSync(await response.body(), { level: 9 }).length;
  }
  expect(bytes).toBeLessThanOrEqual(250 * 1024);
});
