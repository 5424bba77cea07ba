// The page a person uses, in Chromium against the production build on the sandbox: a browser
// wallet (an EIP-1193 provider announced through EIP-6963, signing with a fresh sandbox key)
// connected through RainbowKit, payments approved from the page, the settings panel, the model's
// proposals, the budget meters, and a conversation that goes on after a payment. Each test has
// a wallet and a client address of its own (tests/e2e/wallet.ts), so cooldowns (counted per
// client and per wallet) and limits (per wallet) do not cross between tests.
import { readFile } from "node:fs/promises";
import type { Locator, Page } from "@playwright/test";
import { expect, newSandboxAccount, test } from "./wallet";
import { chatPage } from "./chat-page";


test("pays with the connected wallet, shows the payment in the budget, and the chat goes on", async ({ page, wallet }) => {
  test.setTimeout(120_000);
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  await expect(ui.budget.getByTestId("budget-meter-day")).toHaveAttribute("data-spent", "0");

  await ui.ask("What's the weather in Lisbon?");
  const first = await ui.reply(0);
  const card = first.getByTestId("payment-card");
  await expect(card).toHaveAttribute("data-status", "awaiting-signature");
  await expect(card.getByTestId("payment-total")).toContainText("0.002");
  await expect(card.getByTestId("payment-paying-from")).toHaveAttribute("title", wallet.address);
  await expect(card.getByTestId("payment-balance")).toContainText("USDC");
  // The quote's time in words, not a timestamp.
  await expect(first).toContainText(/approve it in your wallet within (about a minute|\d+ minutes)/);
  await expect(first).not.toContainText(/\d{4}-\d{2}-\d{2}T\d{2}:/);
  // Above the confirmation threshold (0 by default) the person confirms in the page first.
  expect(wallet.signRequests).toBe(0);
  await card.getByTestId("approve-payment").click();

  const answer = await ui.reply(1);
  await expect(card).toHaveAttribute("data-status", "delivered");
  expect(wallet.signRequests).toBe(1);
  await expect(answer).toContainText("Lisbon");
  // The answer reads as a sentence and a table in words; the data as it came is behind a disclosure.
  await expect(answer).toContainText(/Paid \$0\.002 to .+\. Its answer:/);
  await expect(answer.getByRole("cell", { name: "Temperature" })).toBeVisible();
  const raw = answer.getByTestId("raw-data");
  await expect(raw.locator("pre")).toBeHidden();
  await raw.getByText("The service's raw data").click();
  await expect(raw.locator("pre")).toContainText('"temperatureC"');
  await expect(card.getByTestId("payment-tx-link")).toBeVisible();
  await expect(ui.budget.getByTestId("budget-meter-day")).toHaveAttribute("data-spent", "0.002");
  await expect(ui.budget.getByTestId("budget-payment")).toHaveCount(1);

  // The history now holds the transaction hash; the next question is still answered.
  await ui.ask("How much have I spent today?");
  const spending = await ui.reply(2);
  await expect(spending).toContainText("0.002");
  await expect(ui.errors).toHaveCount(0);
});

test("the budget's three periods read alike: in the sidebar and on a phone each figure sits under its title, whatever its length", async ({ page, wallet }) => {
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  await expect(ui.budget.getByTestId("budget-meter-day")).toHaveAttribute("data-spent", "0");
  const placing = async () =>
    ui.budget.locator("[data-testid^='budget-meter-']").evaluateAll((meters) =>
      meters.map((meter) => {
        const [title, figure] = [...(meter.firstElementChild?.children ?? [])].map((part) => part.getBoundingClientRect());
        return { period: meter.getAttribute("data-testid"), under: Boolean(title && figure && figure.top >= title.bottom - 1) };
      }),
    );
  const everyUnder = [
    { period: "budget-meter-day", under: true },
    { period: "budget-meter-week", under: true },
    { period: "budget-meter-month", under: true },
  ];
  // In the sidebar, "$0.0484 of $1.00 spent" beside "Last 24 hours" would wrap while "Last 7 days" did not.
  expect(await placing()).toEqual(everyUnder);
  await page.setViewportSize({ width: 375, height: 812 });
  await ui.topBarAction("budget-toggle");
  await expect(ui.budget).toBeVisible();
  expect(await placing()).toEqual(everyUnder);
  expect(wallet.connected).toBe(true);
});

test("a wallet's payments are listed only for its own session: a new browser session sees the totals, and signs in to see them", async ({ page, wallet }) => {
  test.setTimeout(120_000);
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  await ui.ask("What's the weather in Lisbon?");
  const card = (await ui.reply(0)).getByTestId("payment-card");
  await card.getByTestId("approve-payment").click();
  await expect(card).toHaveAttribute("data-status", "delivered");
  // The approval's signature proved the wallet: its own payments are listed at once.
  await expect(ui.budget.getByTestId("budget-payment")).toHaveCount(1);
  expect(wallet.signRequests).toBe(1);

  // A new browser session: the totals (what the chain shows) but not which payments they were.
  await page.context().clearCookies();
  await page.reload();
  await expect(ui.budget.getByTestId("budget-meter-day")).toHaveAttribute("data-spent", "0.002");
  await expect(ui.budget.getByTestId("budget-sign-in")).toBeVisible();
  await expect(ui.budget.getByTestId("budget-payment")).toHaveCount(0);

  // Signing in is one message for the wallet to sign; then the payment is listed again.
  await ui.budget.getByTestId("budget-sign-in").click();
  await expect(ui.budget.getByTestId("budget-payment")).toHaveCount(1);
  expect(wallet.signRequests).toBe(2);
  await expect(ui.budget.getByTestId("budget-sign-in")).toHaveCount(0);
});

test("the whole history: every payment under the budget, filtered by service, and downloaded as CSV", async ({ page, wallet }) => {
  test.setTimeout(150_000);
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  for (const [index, question] of ["What's the weather in Lisbon?", "Convert 10 USD to EUR"].entries()) {
    await ui.ask(question);
    const card = (await ui.reply(index * 2)).getByTestId("payment-card");
    // The converter takes Solana too: its card says why it is paid on the sandbox chain.
    if (index === 1) await expect(card.getByTestId("payment-network-choice")).toContainText("The service also takes Solana Devnet");
    await card.getByTestId("approve-payment").click();
    await expect(card).toHaveAttribute("data-status", "delivered", { timeout: 45_000 });
  }

  const history = ui.budget.getByTestId("history");
  await history.getByText("All payments").click();
  await expect(history.getByTestId("history-payment")).toHaveCount(2);
  await history.getByTestId("history-service").fill("weather");
  await history.getByRole("button", { name: "Filter" }).click();
  await expect(history.getByTestId("history-payment")).toHaveCount(1);
  await expect(history.getByTestId("history-payment")).toContainText(/weather/i);

  const [download] = await Promise.all([page.waitForEvent("download"), history.getByTestId("history-csv").click()]);
  expect(download.suggestedFilename()).toMatch(/^x402-payments-\d{4}-\d{2}-\d{2}\.csv$/);
  const lines = (await readFile((await download.path()) ?? "", "utf8")).trimEnd().split("\r\n");
  expect(lines[0]).toContain("date,service,service_url,network");
  expect(lines).toHaveLength(2);
  expect(lines[1]).toMatch(/weather/i);
  expect(lines[1]?.toLowerCase()).toContain(wallet.address.toLowerCase());
  await expect(ui.errors).toHaveCount(0);
});

test("the account's avatar is drawn from its address, with no glyph a font must supply, at 1280 and 375 px", async ({ page, wallet }) => {
  const ui = chatPage(page);
  expect(wallet.address).toMatch(/^0x/);
  await page.goto("/");
  await ui.connect("Test Wallet");
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 800 });
    const header = page.locator("header").first();
    await expect(header.getByTestId("account-avatar").first()).toBeVisible();
    expect(await header.innerText()).not.toMatch(/\p{Extended_Pictographic}/u);
  }
});

test("a reload keeps the conversation and a pending quote, which still pays; a new tab starts empty; New chat clears it", async ({ page, wallet }) => {
  test.setTimeout(120_000);
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  await ui.ask("What's the weather in Lisbon?");
  await expect((await ui.reply(0)).getByTestId("payment-card")).toHaveAttribute("data-status", "awaiting-signature");
  const welcome = page.getByText("What can I get for you?");

  // Before the page's scripts have brought the conversation back, the server's HTML (the empty
  // chat) does not show its welcome in its place.
  const scripts = (url: URL) => url.pathname.startsWith("/_next/static/") && url.pathname.endsWith(".js");
  await page.route(scripts, (route) => route.abort());
  await page.reload();
  await expect(page.getByTestId("composer-input")).toBeAttached();
  await expect(welcome).toBeHidden();
  await page.unroute(scripts);

  await page.reload();
  await expect(ui.messages("user")).toHaveText([/weather in Lisbon/]);
  await expect(welcome).toBeHidden();
  const card = (await ui.reply(0)).getByTestId("payment-card");
  await expect(card).toHaveAttribute("data-status", "awaiting-signature");
  await expect(card.getByTestId("payment-expiry")).toContainText(/in \d+:\d{2}/);
  await card.getByTestId("approve-payment").click();
  await expect(card).toHaveAttribute("data-status", "delivered", { timeout: 45_000 });
  expect(wallet.signRequests).toBe(1);

  // Another tab is another conversation.
  const other = await page.context().newPage();
  await other.goto("/");
  await expect(chatPage(other).messages("user")).toHaveCount(0);
  await expect(other.getByText("What can I get for you?")).toBeVisible();
  await other.close();

  await page.getByTestId("new-chat").click();
  await expect(ui.messages("user")).toHaveCount(0);
  await expect(welcome).toBeVisible();
  await page.reload();
  await expect(ui.messages("user")).toHaveCount(0);
  await expect(welcome).toBeVisible();
  await expect(ui.errors).toHaveCount(0);
});

test("a quote on another chain than the wallet's switches the wallet before it signs", async ({ page, wallet }) => {
  test.setTimeout(90_000);
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  await wallet.setChain(1);
  await ui.ask("What's the weather in London?");
  const card = (await ui.reply(0)).getByTestId("payment-card");
  await expect(card.getByTestId("approve-payment")).toContainText("Switch to Sandbox");
  await card.getByTestId("approve-payment").click();
  await expect(card).toHaveAttribute("data-status", "delivered", { timeout: 45_000 });
  expect(wallet.chainId).toBe(31337);
});

test("rejecting a quote pays nothing and sends nothing", async ({ page, wallet }) => {
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  await ui.ask("What's the weather in Paris?");
  const card = (await ui.reply(0)).getByTestId("payment-card");
  await expect(card).toHaveAttribute("data-status", "awaiting-signature");
  let requests = 0;
  page.on("request", (request) => {
    if (request.url().endsWith("/api/chat")) requests += 1;
  });
  await card.getByTestId("reject-payment").click();
  await expect(card).toHaveAttribute("data-status", "failed");
  await expect(card.getByTestId("payment-reason")).toHaveAttribute("data-code", "rejected");
  await expect(card).toContainText("No service fee was charged.");
  expect(requests).toBe(0);
  expect(wallet.signRequests).toBe(0);
});

test("a quote made for one account is not signed by another the wallet switched to; disconnecting asks to connect", async ({ page, wallet }) => {
  test.setTimeout(90_000);
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  await ui.ask("What's the weather in London?");
  const card = (await ui.reply(0)).getByTestId("payment-card");
  await expect(card).toHaveAttribute("data-status", "awaiting-signature");

  const other = await newSandboxAccount({ usdc: 1_000_000n });
  await wallet.switchAccount(other.privateKey);
  await expect(card.getByTestId("payment-paying-from")).toHaveAttribute("title", other.address);
  await card.getByTestId("approve-payment").click();
  await expect(ui.errors.last()).toHaveAttribute("data-code", "wallet-changed");
  expect(wallet.signRequests).toBe(0);
  await expect(card).toHaveAttribute("data-status", "awaiting-signature");

  await page.getByTestId("wallet-connect").getByRole("button").first().click();
  await page.getByRole("dialog").getByRole("button", { name: /disconnect/i }).click();
  await expect(card.getByTestId("approve-payment")).toBeDisabled();
  await expect(card.getByTestId("approval-hint")).toContainText("Connect a wallet");
});

test("settings survive a reload, and a daily limit below the price refuses the payment", async ({ page, wallet }) => {
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  await page.getByTestId("settings-open").click();
  await page.getByTestId("settings-daily").fill("0.001");
  await page.getByTestId("settings-save").click();
  await page.reload();
  await page.getByTestId("settings-open").click();
  await expect(page.getByTestId("settings-daily")).toHaveValue("0.001");
  await page.keyboard.press("Escape");

  await ui.ask("What's the weather in Nairobi?");
  const card = (await ui.reply(0)).getByTestId("payment-card");
  await expect(card).toHaveAttribute("data-status", "failed");
  await expect(card.getByTestId("payment-reason")).toHaveAttribute("data-code", "limit-exceeded");
  await expect(card).toContainText("No service fee was charged.");
  // The limit working, said quietly: its own badge, no alert and no failure's cross.
  await expect(card.getByTestId("payment-status")).toHaveText("Over your limit");
  await expect(card.getByTestId("payment-status")).toHaveAttribute("data-tone", "quiet");
  await expect(card).toHaveAccessibleName("Payment to Budget Weather: Over your limit");
  await expect(card.getByRole("alert")).toHaveCount(0);
  await expect(card.getByTestId("payment-steps")).not.toContainText("✕");
  await expect(card.getByTestId("payment-failure-summary")).toHaveText("Your spending limit stopped this payment before anything was sent.");
});

test("a proposal that lowers a limit applies at once; one that raises it waits for the person", async ({ page, wallet }) => {
  test.setTimeout(90_000);
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  await ui.ask("Set my daily limit to 0.5");
  await ui.reply(0);
  await expect(page.getByTestId("proposal-applied")).toContainText("0.5");
  await page.getByTestId("settings-open").click();
  await expect(page.getByTestId("settings-daily")).toHaveValue("0.5");
  await page.keyboard.press("Escape");

  await ui.ask("Set my daily limit to 3");
  await ui.reply(1);
  await expect(page.getByTestId("proposal-confirm")).toBeVisible();
  await page.getByTestId("settings-open").click();
  await expect(page.getByTestId("settings-daily")).toHaveValue("0.5");
  await page.keyboard.press("Escape");
  await page.getByTestId("proposal-confirm").click();
  await page.getByTestId("settings-open").click();
  await expect(page.getByTestId("settings-daily")).toHaveValue("3");
});

test("a raise waiting for Confirm comes back with the conversation after a reload and is applied then; New chat drops one", async ({ page }) => {
  test.setTimeout(90_000);
  const ui = chatPage(page);
  const pending = page.getByTestId("proposal-pending");
  const dailyLimit = async () => {
    await page.getByTestId("settings-open").click();
    const value = await page.getByTestId("settings-daily").inputValue();
    await page.keyboard.press("Escape");
    return value;
  };
  await page.goto("/");
  await ui.ask("Set my daily limit to 2");
  await ui.reply(0);
  await expect(pending).toContainText("your daily limit from $1.00 to $2.00");

  await page.reload();
  await expect(ui.messages("user")).toHaveText([/daily limit to 2/]);
  await expect(pending).toContainText("your daily limit from $1.00 to $2.00");
  expect(await dailyLimit()).toBe("1");
  await page.getByTestId("proposal-confirm").click();
  await expect(pending).toHaveCount(0);
  expect(await dailyLimit()).toBe("2");
  // Applied, it is not proposed again.
  await page.reload();
  await expect(ui.messages("user")).toHaveText([/daily limit to 2/]);
  await expect(pending).toHaveCount(0);

  await ui.ask("Set my daily limit to 3");
  await ui.reply(1);
  await expect(pending).toContainText("from $2.00 to $3.00");
  await page.getByTestId("new-chat").click();
  await expect(pending).toHaveCount(0);
  await page.reload();
  await expect(page.getByText("What can I get for you?")).toBeVisible();
  await expect(pending).toHaveCount(0);
  expect(await dailyLimit()).toBe("2");
});

test("at or below the confirmation threshold the wallet prompt opens by itself", async ({ page, wallet }) => {
  test.setTimeout(90_000);
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  await page.getByTestId("settings-open").click();
  await page.getByTestId("settings-threshold").fill("0.01");
  await page.getByTestId("settings-save").click();
  await ui.ask("What's the weather in Tokyo?");
  const card = (await ui.reply(0)).getByTestId("payment-card");
  await expect(card).toHaveAttribute("data-status", "delivered", { timeout: 45_000 });
  expect(wallet.signRequests).toBe(1);
});

test("an unfunded wallet is told it lacks USDC before anything is signed", async ({ page, unfundedWallet }) => {
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  await ui.ask("What's the weather in Berlin?");
  const card = (await ui.reply(0)).getByTestId("payment-card");
  await expect(card).toHaveAttribute("data-status", "failed");
  await expect(card.getByTestId("payment-reason")).toHaveAttribute("data-code", "insufficient-balance");
  expect(unfundedWallet.signRequests).toBe(0);
});

/** Presses Tab until `target` has the focus (a person finding a control with the keyboard). */
async function tabTo(page: Page, target: Locator): Promise<void> {
  for (let step = 0; step < 60; step += 1) {
    if (await target.evaluate((element) => element === document.activeElement).catch(() => false)) return;
    await page.keyboard.press("Tab");
  }
  await expect(target).toBeFocused();
}

test("keyboard only: connect, ask, approve and pay without a mouse", async ({ page, wallet }) => {
  test.setTimeout(90_000);
  const ui = chatPage(page);
  await page.goto("/");
  await expect(ui.input).toBeVisible();
  await tabTo(page, page.getByTestId("wallet-connect").getByRole("button", { name: /connect wallet/i }));
  await page.keyboard.press("Enter");
  await tabTo(page, page.getByRole("dialog").getByRole("button", { name: /Test Wallet/i }).first());
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("wallet-connect").getByRole("button", { name: /connect wallet/i })).toHaveCount(0);

  await tabTo(page, ui.input);
  await page.keyboard.type("What's the weather in Sydney?");
  await expect(ui.send).toBeEnabled({ timeout: 15_000 });
  await page.keyboard.press("Enter");
  const card = (await ui.reply(0)).getByTestId("payment-card");
  const approve = card.getByTestId("approve-payment");
  await expect(approve).toBeEnabled();
  await tabTo(page, approve);
  await page.keyboard.press("Enter");
  await expect(card).toHaveAttribute("data-status", "delivered", { timeout: 45_000 });
  expect(wallet.signRequests).toBe(1);
});

test("the sandbox demo wallet is a wallet like any other and pays", async ({ page }) => {
  test.setTimeout(90_000);
  const ui = chatPage(page);
  await page.goto("/");
  await expect(ui.sandboxBanner).toBeVisible();
  await ui.connect("Sandbox demo wallet");
  await ui.ask("What's the weather in Lisbon?");
  const card = (await ui.reply(0)).getByTestId("payment-card");
  await card.getByTestId("approve-payment").click();
  await expect(card).toHaveAttribute("data-status", "delivered", { timeout: 45_000 });
  const href = await card.getByTestId("payment-tx-link").getAttribute("href");
  await page.goto(new URL(href ?? "", page.url()).pathname);
  await expect(page.getByTestId("tx-status")).toHaveText("Confirmed");
  await expect(page.getByTestId("tx-transfer")).toContainText("0.002 USDC");
});
