// What the chat page loads before a person can use it. The page's HTML names the JavaScript it
// needs to start; the markdown renderer comes afterwards, the wallet libraries (wagmi, viem) when
// a wallet used before is to be reconnected, and RainbowKit with them when a person reaches for
// the wallet button. These tests hold back every script the HTML does not name, as a slow
// network would, and use the chat meanwhile; and they weigh what the HTML names.
import { runInNewContext } from "node:vm";
import { gzipSync } from "node:zlib";
import type { APIRequestContext, Page } from "@playwright/test";
import { COMPILE_HINT } from "@/bin/compile-hints.mjs";
import { transferWithAuthorizationTypes } from "@/lib/chain/typed-data";
import { encodeLine, type PaymentStatus } from "@/lib/protocol/lines";
import { chatPage } from "./chat-page";
import { sandboxInfo } from "./sandbox";
import { expect, test } from "./wallet";

const CHUNK = /\/_next\/static\/chunks\/[\w.-]+\.js/g;

/** Holds every script chunk the page's HTML does not name until `release` is called (unless `hold`
 * is false: then it only lists them); `wallet` lists those that hold the wallet libraries' code,
 * `rainbowKit` those that hold RainbowKit's components, `bodies` what each one held. */
async function holdLateScripts(page: Page, { hold = true } = {}): Promise<{ held: string[]; wallet: string[]; rainbowKit: string[]; bodies: Map<string, string>; release: () => void }> {
  let named = new Set<string>();
  const held: string[] = [];
  const bodies = new Map<string, string>();
  const wallet: string[] = [];
  const rainbowKit: string[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route("**/*", async (route) => {
    const request = route.request();
    if (request.resourceType() === "document") {
      named = new Set((await (await route.fetch()).text()).match(CHUNK) ?? []);
      // The browser loads the document itself: one fulfilled from here has no address of its own,
      // and the page would then be refused the local chain's RPC (Chromium's local network access).
      await route.continue();
      return;
    }
    const { pathname } = new URL(request.url());
    if (new RegExp(`^${CHUNK.source}$`).test(pathname) && !named.has(pathname)) {
      held.push(pathname);
      // A script that the page before a reload asked for has no one to answer: its response went with that page.
      const fetched = await route.fetch().then(async (response) => ({ response, body: await response.text() })).catch(() => undefined);
      if (!fetched) return route.abort().catch(() => undefined);
      const { response, body } = fetched;
      bodies.set(pathname, body);
      if (/wagmi/.test(body)) wallet.push(pathname);
      if (/wrong-network-button/.test(body)) rainbowKit.push(pathname);
      if (hold) await released;
      await route.fulfill({ response, body });
      return;
    }
    // Other routes of the test (registered earlier) still apply.
    await route.fallback();
  });
  return { held, wallet, rainbowKit, bodies, release };
}

/** The modules a script chunk of the build defines: it hands the bundler's runtime one array of
 * its script, then each module's id and factory. Run here with a stand-in runtime that only reads
 * the ids; no module's code runs. */
function chunkModuleIds(body: string): (string | number)[] {
  const ids: (string | number)[] = [];
  const turbopack = {
    push(chunk: unknown[]) {
      for (let index = 1; index < chunk.length - 1; index++) {
        const id = chunk[index];
        if ((typeof id === "number" || typeof id === "string") && typeof chunk[index + 1] === "function") ids.push(id);
      }
    },
  };
  runInNewContext(body, { TURBOPACK: turbopack, globalThis: { TURBOPACK: turbopack } });
  return ids;
}

test("a first visit loads no wallet library: the chat and the connect button work at once, and a click loads the wallet and opens its list without moving the top bar", async ({ page, wallet }) => {
  test.setTimeout(60_000);
  const ui = chatPage(page);
  const late = await holdLateScripts(page);
  // Not "load": the page asks for the held scripts before its load event.
  await page.goto("/", { waitUntil: "domcontentloaded" });
  await expect(page.getByRole("button", { name: "What services can you pay for?" })).toBeEnabled();

  const slot = page.getByTestId("wallet-connect");
  const connect = slot.getByRole("button", { name: /connect wallet/i });
  // Nobody is connected, and the page knows it without the wallet libraries.
  await expect(connect).toBeEnabled();
  await expect(ui.budget).toContainText("Connect a wallet");

  // A question is asked and its answer read. It holds no markdown, so it is shown as the markdown
  // renderer would show it (the offline notice and the answer, two paragraphs) while the renderer waits.
  await ui.ask("Hello! What can you do for me?");
  const reply = await ui.reply(0);
  await expect(reply).toContainText("compare their prices");
  await expect(reply.getByTestId("message-text").locator("p")).toHaveCount(2);
  await expect.poll(() => late.held.length).toBeGreaterThan(0);
  expect(late.wallet).toEqual([]);

  const header = page.locator("header").first();
  const before = { header: await header.boundingBox(), settings: await page.getByTestId("settings-open").boundingBox(), slot: await slot.boundingBox() };
  // A click asks for the wallet libraries; the button says it is busy while they are on their way.
  await connect.click();
  await expect.poll(() => late.wallet.length).toBeGreaterThan(0);
  await expect(connect).toHaveAttribute("aria-busy", "true");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  late.release();

  // Once they are there, the wallet list opens for that click, with no second one.
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByRole("button", { name: /Test Wallet/i }).first()).toBeVisible({ timeout: 20_000 });
  const after = { header: await header.boundingBox(), settings: await page.getByTestId("settings-open").boundingBox(), slot: await slot.boundingBox() };
  expect(after).toEqual(before);
  // The renderer's arrival changes nothing in it.
  await expect(reply.getByTestId("message-text").locator("p")).toHaveCount(2);

  await dialog.getByRole("button", { name: /Test Wallet/i }).first().click();
  await expect(slot.getByRole("button", { name: /connect wallet/i })).toHaveCount(0, { timeout: 10_000 });
  await expect(ui.budget.getByTestId("budget-meter-day")).toHaveAttribute("data-spent", "0");
  expect(wallet.connected).toBe(true);
});

test("a remembered wallet is reconnected without RainbowKit: its account shows at once, and a click brings RainbowKit's button in its place, unmoved, and opens the account", async ({ page, wallet }) => {
  test.setTimeout(60_000);
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  const slot = page.getByTestId("wallet-connect");
  const shown = `${wallet.address.slice(0, 4)}…${wallet.address.slice(-4)}`;
  await expect(slot.getByTestId("rk-account-button")).toContainText(shown);

  const late = await holdLateScripts(page, { hold: false });
  await page.reload();
  // The account, as RainbowKit's button shows it, before RainbowKit is there.
  const account = slot.getByRole("button", { name: shown });
  await expect(account).toBeVisible();
  await expect(account.getByTestId("account-avatar")).toBeVisible();
  await expect(ui.budget.getByTestId("budget-meter-day")).toHaveAttribute("data-spent", "0");
  await page.waitForLoadState("networkidle");
  expect(late.wallet.length).toBeGreaterThan(0);
  expect(late.rainbowKit).toEqual([]);
  await expect(slot.getByTestId("rk-account-button")).toHaveCount(0);

  const header = page.locator("header").first();
  const before = { header: await header.boundingBox(), settings: await page.getByTestId("settings-open").boundingBox(), slot: await slot.boundingBox() };
  await account.click();
  // One click: RainbowKit arrives, its button takes the placeholder's place, and the account opens.
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByRole("button", { name: /disconnect/i })).toBeVisible({ timeout: 20_000 });
  expect(late.rainbowKit.length).toBeGreaterThan(0);
  await expect(slot.getByTestId("rk-account-button")).toContainText(shown);
  const after = { header: await header.boundingBox(), settings: await page.getByTestId("settings-open").boundingBox(), slot: await slot.boundingBox() };
  expect(after).toEqual(before);
  await expect(ui.errors).toHaveCount(0);
});

test("a remembered wallet's reload fetches each module's code once, and the click that brings RainbowKit fetches none of it again: the wallet's later parts leave out what its earlier parts brought", async ({ page, wallet, request }) => {
  test.setTimeout(60_000);
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  const shown = `${wallet.address.slice(0, 4)}…${wallet.address.slice(-4)}`;
  const slot = page.getByTestId("wallet-connect");
  await expect(slot.getByTestId("rk-account-button")).toContainText(shown);

  const late = await holdLateScripts(page, { hold: false });
  await page.reload();
  await expect(ui.budget.getByTestId("budget-meter-day")).toHaveAttribute("data-spent", "0");
  await page.waitForLoadState("networkidle");
  expect(late.wallet.length).toBeGreaterThan(0);
  // What the reload fetched: the chunks its HTML names, and those the page asked for after.
  const reload = new Map<string, string>();
  for (const { src, body } of await startupScripts(request)) reload.set(new URL(src, "http://page").pathname, body.toString("utf8"));
  for (const chunk of late.held) reload.set(chunk, late.bodies.get(chunk) ?? "");

  await slot.getByRole("button", { name: shown }).click();
  await expect(page.getByRole("dialog").getByRole("button", { name: /disconnect/i })).toBeVisible({ timeout: 20_000 });
  await page.waitForLoadState("networkidle");
  const click = late.held.filter((chunk) => !reload.has(chunk));
  expect(late.rainbowKit.length).toBeGreaterThan(0);
  expect(late.rainbowKit.every((chunk) => click.includes(chunk))).toBe(true);

  // The modules each reload chunk defines: none in two of them.
  const reloadedIn = new Map<string | number, string[]>();
  for (const [chunk, body] of reload) for (const id of chunkModuleIds(body)) reloadedIn.set(id, [...(reloadedIn.get(id) ?? []), chunk]);
  expect(reloadedIn.size).toBeGreaterThan(100);
  expect([...reloadedIn].filter(([, chunks]) => chunks.length > 1).map(([id, chunks]) => `${id} in ${chunks.join(", ")}`)).toEqual([]);
  // RainbowKit's chunks bring nothing the page had. (Among themselves, viem's own lazy import of
  // its offchain lookup, which RainbowKit's name lookup pulls in, shares a module with them.)
  const again = click.flatMap((chunk) => chunkModuleIds(late.bodies.get(chunk) ?? "").filter((id) => reloadedIn.has(id)).map((id) => `${id} in ${chunk} and ${reloadedIn.get(id)?.join(", ")}`));
  expect(again).toEqual([]);
  await expect(ui.errors).toHaveCount(0);
});

test("a pending quote's reload shows the card's clock time as before without making a date format: the tab's times come back with its conversation", async ({ page, wallet }) => {
  test.setTimeout(90_000);
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  const card = await ui.quote("What's the weather in Lisbon?");
  const clock = card.getByTestId("payment-expiry").locator("span").last();
  const before = await clock.textContent();
  expect(before).toMatch(/^\(at \d{1,2}:\d{2}/);

  // Every DateTimeFormat the reloaded page makes, counted: the first loads the locale's calendar
  // data, a long task on a phone while the card is being shown.
  await page.addInitScript(() => {
    const Made = Intl.DateTimeFormat;
    const counter = { made: 0 };
    Object.defineProperty(window, "__dateFormatsMade", { get: () => counter.made });
    Intl.DateTimeFormat = new Proxy(Made, {
      construct: (target, args) => {
        counter.made++;
        return Reflect.construct(target, args);
      },
      apply: (target, self, args) => {
        counter.made++;
        return Reflect.apply(target, self, args);
      },
    });
  });
  await page.reload();
  await expect(card).toHaveAttribute("data-status", "awaiting-signature");
  await expect(clock).toHaveText(before ?? "");
  await page.waitForLoadState("networkidle");
  expect(await page.evaluate(() => (window as unknown as { __dateFormatsMade: number }).__dateFormatsMade)).toBe(0);
  expect(wallet.signRequests).toBe(0);
  await expect(ui.errors).toHaveCount(0);
});

test("a pending quote brought back by a reload keeps its size while the remembered wallet reconnects: the wallet's line says it is loading, and its account takes that line", async ({ page, wallet }) => {
  test.setTimeout(90_000);
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  const card = await ui.quote("What's the weather in Lisbon?");

  // On a desktop's card the account and the balance share a line; on a phone's they take one each.
  for (const size of [{ width: 1280, height: 800 }, { width: 375, height: 812 }]) {
    await page.setViewportSize(size);
    const late = await holdLateScripts(page);
    await page.reload();
    await expect(card).toHaveAttribute("data-status", "awaiting-signature");
    await expect(card).toContainText("Your wallet is loading…");
    const loading = await card.boundingBox();
    late.release();
    await expect(card.getByTestId("payment-balance")).toContainText("USDC");
    await expect(card.getByTestId("payment-paying-from")).toHaveAttribute("title", wallet.address);
    await expect(card).not.toContainText("Your wallet is loading…");
    await expect(card.getByTestId("approve-payment")).toBeEnabled();
    expect({ size, card: await card.boundingBox() }).toEqual({ size, card: loading });
  }
  await expect(ui.errors).toHaveCount(0);
});

test("a message sent right after a reload, while the wallet used before reconnects, goes with that wallet", async ({ page, wallet }) => {
  test.setTimeout(60_000);
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");

  const late = await holdLateScripts(page);
  await page.reload({ waitUntil: "domcontentloaded" });
  // A wallet used before is reconnected at once: its libraries are asked for with no click.
  await expect.poll(() => late.wallet.length).toBeGreaterThan(0);
  const sent = page.waitForRequest((request) => request.url().endsWith("/api/chat") && request.method() === "POST");
  await ui.input.fill("What's the weather in Nairobi?");
  await ui.send.click();
  // The wallet stack arrives a moment later, as on a slow connection.
  await page.waitForTimeout(1_000);
  late.release();
  const body = (await sent).postDataJSON() as { walletAddress?: string };
  expect(body.walletAddress).toBe(wallet.address);
  // So the answer is a quote for the wallet, not "connect a wallet first".
  await expect((await ui.reply(0)).getByTestId("payment-card")).toBeVisible();
});

test("an approval clicked while the wallet is still loading waits for it, then signs with the wallet that reconnects", async ({ page, wallet }) => {
  test.setTimeout(60_000);
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");

  // The server quotes only for a wallet it was told about, which the page knows once the wallet
  // has loaded; so the quote here is written with the shared encoder, for the connected wallet.
  const { chainId, usdc } = sandboxInfo();
  const quote: PaymentStatus = {
    paymentId: "pay-early",
    status: "awaiting-signature",
    service: { name: "Weather Pro", url: "http://127.0.0.1:4100/weather" },
    network: `eip155:${chainId}`,
    chain: "Sandbox",
    asset: { symbol: "USDC", address: usdc.address, decimals: 6 },
    amount: { serviceFee: "0.01", gasFee: "0", total: "0.01", currency: "USDC", usd: "0.01" },
    payTo: "0x1111111111111111111111111111111111111111",
    approval: {
      token: "approval-token",
      expiresAt: new Date(Date.now() + 5 * 60_000).toISOString(),
      typedData: {
        domain: { name: "USDC", version: "2", chainId, verifyingContract: usdc.address },
        types: {
          TransferWithAuthorization: [...transferWithAuthorizationTypes.TransferWithAuthorization],
        },
        primaryType: "TransferWithAuthorization",
        message: {
          from: wallet.address,
          to: "0x1111111111111111111111111111111111111111",
          value: "10000",
          validAfter: "0",
          validBefore: "9999999999",
          nonce: `0x${"ab".repeat(32)}`,
        },
      },
    },
  };
  const approvals: unknown[] = [];
  await page.route("**/api/chat", async (route) => {
    const { payment } = route.request().postDataJSON() as { payment?: unknown };
    if (payment) approvals.push(payment);
    const lines = payment
      ? [
          encodeLine({ type: "payment", payment: { ...quote, status: "delivered" } }),
          encodeLine({ type: "data", data: { finishReason: "payment-complete", model: "offline", paymentId: quote.paymentId } }),
        ]
      : [
          encodeLine({ type: "payment", payment: quote }),
          encodeLine({ type: "data", data: { finishReason: "stop", model: "offline", paymentId: quote.paymentId } }),
        ];
    await route.fulfill({ status: 200, headers: { "Content-Type": "text/event-stream; charset=utf-8" }, body: lines.join("") });
  });

  const late = await holdLateScripts(page);
  await page.reload({ waitUntil: "domcontentloaded" });
  await expect(page.getByRole("button", { name: "What services can you pay for?" })).toBeEnabled();
  await ui.ask("What's the weather in Lisbon?");
  const card = (await ui.reply(0)).getByTestId("payment-card");
  await expect(card.getByTestId("payment-wallet-loading")).toHaveText("Your wallet is loading…");
  await expect(card.getByTestId("approval-hint")).toHaveCount(0);
  await card.getByTestId("approve-payment").click();
  await expect(card.getByTestId("approve-payment")).toBeDisabled();
  expect(wallet.signRequests).toBe(0);
  expect(approvals).toHaveLength(0);

  late.release();
  await expect(card).toHaveAttribute("data-status", "delivered");
  expect(wallet.signRequests).toBe(1);
  expect(approvals).toEqual([{ paymentId: quote.paymentId, token: "approval-token", signed: [expect.stringMatching(/^0x[0-9a-f]{130}$/)] }]);
  await expect(ui.errors).toHaveCount(0);
});

/** The scripts a browser runs before the page is interactive, with their bodies: those the HTML
 * names, but the polyfills only browsers without modules load. */
async function startupScripts(request: APIRequestContext): Promise<{ src: string; body: Buffer }[]> {
  const html = await (await request.get("/")).text();
  const sources = [...html.matchAll(/<script\b[^>]*>/g)]
    .map(([tag]) => tag)
    .filter((tag) => !/\bnomodule\b/i.test(tag))
    .flatMap((tag) => /\bsrc="([^"]+)"/.exec(tag)?.[1] ?? []);
  expect(sources.length).toBeGreaterThan(0);
  const scripts: { src: string; body: Buffer }[] = [];
  for (const src of sources) {
    const response = await request.get(src);
    expect(response.status()).toBe(200);
    scripts.push({ src, body: await response.body() });
  }
  return scripts;
}

test("the chat page's first load is at most 250 KB of gzipped JavaScript", async ({ request }) => {
  let bytes = 0;
  for (const { body } of await startupScripts(request)) bytes += gzipSync(body, { level: 9 }).length;
  expect(bytes).toBeLessThanOrEqual(250 * 1024);
});

test("every script the page starts with asks the browser to compile it while it downloads (V8's compile hint), and the chat works", async ({ page, request }) => {
  // The build's last step (bin/compile-hints.mjs): a phone compiles these on the thread that
  // streams them, not on the main thread as the page starts.
  const unmarked = (await startupScripts(request)).filter(({ body }) => !body.toString("utf8").startsWith(`${COMPILE_HINT}\n`)).map(({ src }) => src);
  expect(unmarked).toEqual([]);
  const ui = chatPage(page);
  await page.goto("/");
  await ui.ask("Hello! What can you do for me?");
  await expect(await ui.reply(0)).toContainText("compare their prices");
  await expect(ui.errors).toHaveCount(0);
});

test("the closed dialogs are not in the page's first render: Settings and AI apps are rendered when first opened, open again, and give the focus back", async ({ page, request }) => {
  // A phone hydrates what the HTML holds; the two dialogs' forms were 81 of its 192 elements.
  const html = await (await request.get("/")).text();
  expect(html).toContain('data-testid="settings-open"');
  expect(html).not.toContain('data-testid="settings-dialog"');
  expect(html).not.toContain('data-testid="ai-apps-dialog"');

  const ui = chatPage(page);
  await page.goto("/");
  const dialogs = [
    { opener: "settings-open", dialog: "settings-dialog", field: "settings-daily" },
    { opener: "ai-apps-open", dialog: "ai-apps-dialog", field: "ai-apps-label" },
  ];
  for (const round of [1, 2]) {
    for (const { opener, dialog: dialogId, field } of dialogs) {
      const dialog = page.getByTestId(dialogId);
      // A click before the page is hydrated does nothing; the person clicks again.
      await expect(async () => {
        if (!(await dialog.isVisible())) await ui.topBarAction(opener);
        await expect(dialog).toBeVisible({ timeout: 2_000 });
      }).toPass({ timeout: 20_000 });
      await expect(dialog.getByTestId(field), `${dialogId}, opening ${round}`).toBeVisible();
      await page.keyboard.press("Escape");
      await expect(dialog).toBeHidden();
      await expect(page.getByTestId(opener)).toBeFocused();
    }
  }
  await expect(ui.errors).toHaveCount(0);
});

test("the page names its icon, web manifest and the card a shared link shows, and each is served", async ({ page, request }) => {
  const missing: string[] = [];
  page.on("response", (response) => {
    if (response.status() === 404) missing.push(new URL(response.url()).pathname);
  });
  await page.goto("/");
  const head = page.locator("head");
  const icon = await head.locator('link[rel="icon"][type="image/svg+xml"]').getAttribute("href");
  const manifest = await head.locator('link[rel="manifest"]').getAttribute("href");
  const card = await head.locator('meta[property="og:image"]').getAttribute("content");
  await expect(head.locator('meta[name="twitter:card"]')).toHaveAttribute("content", "summary_large_image");
  // A shared link's card names its image at the deployment's own origin (APP_URL), not a default host.
  expect(new URL(card ?? "").origin).toBe(new URL(page.url()).origin);
  for (const [url, type] of [
    [icon, "image/svg+xml"],
    [manifest, "application/manifest+json"],
    [card, "image/png"],
  ] as const) {
    expect(url).toBeTruthy();
    const response = await request.get(new URL(url ?? "", page.url()).pathname);
    expect(response.status(), String(url)).toBe(200);
    expect(response.headers()["content-type"]).toContain(type);
  }
  const listed = (await (await request.get(new URL(manifest ?? "", page.url()).pathname)).json()) as { icons: Array<{ src: string }> };
  for (const { src } of listed.icons) expect((await request.get(src)).status(), src).toBe(200);
  await page.waitForLoadState("networkidle");
  expect(missing).toEqual([]);
});
