// Paying on Solana from the page, in Chromium against the production build on the sandbox: the
// Solana button lists the wallets registered through the Wallet Standard (a test wallet injected
// as an extension would be, and the sandbox's Solana demo wallet), the quote asks that wallet to
// sign the transfer, and the USDC moves on the local Solana. One person's EVM and Solana payments
// count against one daily limit.
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { address, createSolanaRpc } from "@solana/kit";
import type { Page } from "@playwright/test";
import { formatUsd } from "@/lib/money";
import { chatPage } from "./chat-page";
import { sandboxInfo } from "./sandbox";
import { SOLANA_TEST_WALLET_NAME } from "./solana-wallet";
import { expect, TEST_WALLET_USDC, test } from "./wallet";

async function solanaUsdc(owner: string): Promise<bigint> {
  const info = sandboxInfo();
  const [account] = await findAssociatedTokenPda({ mint: address(info.solana.usdc.mint), owner: address(owner), tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const { value } = await createSolanaRpc(info.solana.rpcUrl).getTokenAccountBalance(account).send();
  return BigInt(value.amount);
}

const short = (value: string) => `${value.slice(0, 4)}…${value.slice(-4)}`;

async function connectSolana(page: Page, walletName: string): Promise<void> {
  const solana = page.getByTestId("solana-wallet");
  await solana.getByRole("button", { name: "Solana" }).click();
  await solana.getByRole("menuitem", { name: new RegExp(walletName) }).click();
}

const service = (name: string) => {
  const found = sandboxInfo().services.find((entry) => entry.name === name);
  if (!found) throw new Error(`no sandbox service ${name}`);
  return found;
};

test("a person with an EVM and a Solana wallet pays a Solana-only service and an EVM one in one chat, under one daily limit", async ({ page, wallet, solanaWallet }) => {
  test.setTimeout(150_000);
  const dictionary = service("dictionary");
  const weather = service("weather-budget");
  expect(dictionary.networks).toEqual([sandboxInfo().solana.network]);

  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  await connectSolana(page, SOLANA_TEST_WALLET_NAME);
  await expect(page.getByTestId("solana-wallet").getByRole("button")).toHaveText(short(solanaWallet.address));

  await ui.ask("Define the word ledger");
  const paidOnSolana = (await ui.reply(0)).getByTestId("payment-card");
  await expect(paidOnSolana).toHaveAttribute("data-status", "awaiting-signature");
  await expect(paidOnSolana).toContainText("Solana");
  await expect(paidOnSolana.getByTestId("payment-paying-from")).toHaveAttribute("title", solanaWallet.address);
  await paidOnSolana.getByTestId("approve-payment").click();
  await expect(paidOnSolana).toHaveAttribute("data-status", "delivered", { timeout: 45_000 });
  await expect(await ui.reply(1)).toContainText("A book or record in which accounts and payments are kept");
  expect(solanaWallet.signRequests).toBe(1);
  expect(await solanaUsdc(solanaWallet.address)).toBe(TEST_WALLET_USDC - BigInt(dictionary.priceAtomic));

  await ui.ask("What's the weather in Lisbon?");
  const paidOnEvm = (await ui.reply(2)).getByTestId("payment-card");
  await expect(paidOnEvm).toHaveAttribute("data-status", "awaiting-signature");
  await expect(paidOnEvm.getByTestId("payment-paying-from")).toHaveAttribute("title", wallet.address);
  await paidOnEvm.getByTestId("approve-payment").click();
  await expect(paidOnEvm).toHaveAttribute("data-status", "delivered", { timeout: 45_000 });
  expect(wallet.signRequests).toBe(1);
  expect(solanaWallet.signRequests).toBe(1);

  // One daily limit: both payments are counted in it, and both are listed (each wallet proved itself by paying).
  const spent = formatUsd(BigInt(dictionary.priceAtomic) + BigInt(weather.priceAtomic));
  await expect(ui.budget.getByTestId("budget-meter-day")).toHaveAttribute("data-spent", spent);
  await expect(ui.budget.getByTestId("budget-recent")).toContainText(dictionary.serviceName);
  await expect(ui.budget.getByTestId("budget-recent")).toContainText(weather.serviceName);
  await expect(ui.errors).toHaveCount(0);
});

test("the sandbox's Solana demo wallet pays like an extension would; its transaction page shows the transfer; a reload reconnects it", async ({ page }) => {
  test.setTimeout(120_000);
  const info = sandboxInfo();
  const news = service("news-headlines");
  const payer = info.solana.demoWallet.address;
  const [before, payeeBefore] = await Promise.all([solanaUsdc(payer), solanaUsdc(news.solanaPayTo ?? "")]);

  const ui = chatPage(page);
  await page.goto("/");
  await connectSolana(page, "Sandbox Solana wallet");
  await expect(page.getByTestId("solana-wallet").getByRole("button")).toHaveText(short(payer));

  // Only a Solana wallet is connected: the service's Solana option is the one quoted.
  await ui.ask("Technology news headlines, please");
  const card = (await ui.reply(0)).getByTestId("payment-card");
  await expect(card).toHaveAttribute("data-status", "awaiting-signature");
  await expect(card).toContainText("Solana");
  await card.getByTestId("approve-payment").click();
  await expect(card).toHaveAttribute("data-status", "delivered", { timeout: 45_000 });
  await expect(ui.errors).toHaveCount(0);
  const price = BigInt(news.priceAtomic);
  expect(await solanaUsdc(payer)).toBe(before - price);
  expect(await solanaUsdc(news.solanaPayTo ?? "")).toBe(payeeBefore + price);

  // The link opens the app's own page for the local Solana, which reads the transfer from the chain.
  const href = await card.getByTestId("payment-tx-link").getAttribute("href");
  expect(href).toContain(`/tx/${info.solana.network}/`);
  await page.goto(href ?? "");
  await expect(page.getByTestId("tx-status")).toHaveText("Confirmed");
  await expect(page.getByTestId("tx-transfer")).toContainText(`${news.price} USDC from ${payer}`);

  await page.goto("/");
  await expect(page.getByTestId("solana-wallet").getByRole("button")).toHaveText(short(payer));

  // A new browser session with only the Solana wallet: the totals, and a sign-in (a message the
  // wallet signs, for this site) to list which payments they were.
  await page.context().clearCookies();
  await page.reload();
  await expect(page.getByTestId("solana-wallet").getByRole("button")).toHaveText(short(payer));
  await expect(ui.budget.getByTestId("budget-sign-in")).toBeVisible();
  await expect(ui.budget.getByTestId("budget-payment")).toHaveCount(0);
  await ui.budget.getByTestId("budget-sign-in").click();
  await expect(ui.budget.getByTestId("budget-recent")).toContainText(news.serviceName);
  await expect(ui.budget.getByTestId("budget-sign-in")).toHaveCount(0);
});

test("a person with only a Solana extension signs in with its own sign-in prompt, for this site", async ({ page, solanaWallet }) => {
  const ui = chatPage(page);
  await page.goto("/");
  await connectSolana(page, SOLANA_TEST_WALLET_NAME);
  await expect(ui.budget.getByTestId("budget-sign-in")).toBeVisible();
  await ui.budget.getByTestId("budget-sign-in").click();
  await expect(ui.budget.getByTestId("budget-sign-in")).toHaveCount(0);
  await expect(ui.budget).toContainText("No payments yet.");
  expect(solanaWallet.signRequests).toBe(1);
  // The session is this wallet's: the server names it after a reload.
  const session = await page.request.get("/api/session");
  expect(await session.json()).toMatchObject({ solanaWallet: solanaWallet.address, wallet: null });
});
