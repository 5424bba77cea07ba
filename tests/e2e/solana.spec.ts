// Paying on Solana from the page, in Chromium against the production build on the sandbox: the
// Solana button lists the wallets registered through the Wallet Standard (the sandbox's Solana
// demo wallet is one, as Phantom would be), the quote asks that wallet to sign the transfer, and
// the USDC moves on the local Solana. The wallet is reconnected after a reload.
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { address, createSolanaRpc } from "@solana/kit";
import { expect, test } from "@playwright/test";
import { chatPage } from "./chat-page";
import { sandboxInfo } from "./sandbox";

async function solanaUsdc(owner: string): Promise<bigint> {
  const info = sandboxInfo();
  const rpc = createSolanaRpc(info.solana.rpcUrl);
  const [account] = await findAssociatedTokenPda({ mint: address(info.solana.usdc.mint), owner: address(owner), tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const { value } = await rpc.getTokenAccountBalance(account).send();
  return BigInt(value.amount);
}

test("a person connects a Solana wallet, approves a quote in it, and the payment lands on Solana", async ({ page }) => {
  test.setTimeout(120_000);
  const info = sandboxInfo();
  const news = info.services.find((service) => service.name === "news-headlines");
  expect(news?.solanaPayTo).toBeDefined();
  const payer = info.solana.demoWallet.address;
  const [before, payeeBefore] = await Promise.all([solanaUsdc(payer), solanaUsdc(news?.solanaPayTo ?? "")]);

  const ui = chatPage(page);
  await page.goto("/");
  const solana = page.getByTestId("solana-wallet");
  await solana.getByRole("button", { name: "Solana" }).click();
  await solana.getByRole("menuitem", { name: /Sandbox Solana wallet/ }).click();
  await expect(solana.getByRole("button")).toHaveText(`${payer.slice(0, 4)}…${payer.slice(-4)}`);

  // Only a Solana wallet is connected: the service's Solana option is the one quoted.
  await ui.ask("Technology news headlines, please");
  const card = (await ui.reply(0)).getByTestId("payment-card");
  await expect(card).toHaveAttribute("data-status", "awaiting-signature");
  await expect(card).toContainText(/Solana/);
  await expect(card.getByTestId("payment-paying-from")).toHaveAttribute("title", payer);
  await card.getByTestId("approve-payment").click();

  await ui.reply(1);
  await expect(card).toHaveAttribute("data-status", "delivered");
  await expect(ui.errors).toHaveCount(0);
  const price = BigInt(news?.priceAtomic ?? "0");
  expect(await solanaUsdc(payer)).toBe(before - price);
  expect(await solanaUsdc(news?.solanaPayTo ?? "")).toBe(payeeBefore + price);
  // The budget counts it: the limits are the person's, whichever wallet pays.
  await expect(ui.budget.getByTestId("budget-meter-day")).toHaveAttribute("data-spent", news?.price ?? "");

  // The transaction's link opens the app's own page for the local Solana, with the transfer.
  const link = card.getByTestId("payment-tx-link");
  const href = await link.getAttribute("href");
  expect(href).toContain(`/tx/${info.solana.network}/`);
  await page.goto(href ?? "");
  await expect(page.getByTestId("tx-status")).toHaveText("Confirmed");
  await expect(page.getByTestId("tx-transfer")).toContainText(`${news?.price} USDC from ${payer}`);

  // Back on the chat, the Solana wallet is connected again without a prompt.
  await page.goto("/");
  await expect(page.getByTestId("solana-wallet").getByRole("button")).toHaveText(`${payer.slice(0, 4)}…${payer.slice(-4)}`);
});
