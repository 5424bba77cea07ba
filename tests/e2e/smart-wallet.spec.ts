// A smart-account wallet on the page, in Chromium against the production build on the sandbox:
// the injected wallet announces a contract account (ERC-1271) and signs with its owner key, as a
// Coinbase Smart Wallet or a Safe does. Nothing else differs for the person: the card names the
// account that pays, the account's USDC moves, and its owner key, which holds nothing, pays nothing.
import { createPublicClient, erc20Abi, http, type Hex } from "viem";
import { chatPage } from "./chat-page";
import { sandboxInfo } from "./sandbox";
import { expect, TEST_WALLET_USDC, test } from "./wallet";

test("a smart account connected like any wallet pays through the page, from the account itself", async ({ page, smartWallet }) => {
  test.setTimeout(120_000);
  const info = sandboxInfo();
  const chain = createPublicClient({ transport: http(info.rpcUrl) });
  const balanceOf = (owner: Hex) => chain.readContract({ address: info.usdc.address, abi: erc20Abi, functionName: "balanceOf", args: [owner] });
  expect(smartWallet.address).not.toBe(smartWallet.signer);
  expect(await balanceOf(smartWallet.signer)).toBe(0n);

  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  await ui.ask("What's the weather in Lisbon?");
  const card = (await ui.reply(0)).getByTestId("payment-card");
  // Quoted, not refused for want of USDC: pre-flight read the account's balance, not its owner's.
  await expect(card).toHaveAttribute("data-status", "awaiting-signature");
  await expect(card.getByTestId("payment-paying-from")).toHaveAttribute("title", smartWallet.address);
  await expect(card.getByTestId("payment-balance")).toContainText("5");
  await card.getByTestId("approve-payment").click();

  const answer = await ui.reply(1);
  await expect(card).toHaveAttribute("data-status", "delivered");
  expect(smartWallet.signRequests).toBe(1);
  await expect(answer).toContainText("Lisbon");
  await expect(ui.budget.getByTestId("budget-meter-day")).toHaveAttribute("data-spent", "0.002");
  await expect(ui.errors).toHaveCount(0);
  expect(await balanceOf(smartWallet.address)).toBe(TEST_WALLET_USDC - 2_000n);
  expect(await balanceOf(smartWallet.signer)).toBe(0n);
});

test("the sandbox's smart account is offered like the demo wallet and pays from the account", async ({ page }) => {
  test.setTimeout(90_000);
  const info = sandboxInfo();
  const chain = createPublicClient({ transport: http(info.rpcUrl) });
  const balanceOf = (owner: Hex) => chain.readContract({ address: info.usdc.address, abi: erc20Abi, functionName: "balanceOf", args: [owner] });
  const [accountBefore, ownerBefore] = await Promise.all([balanceOf(info.smartAccount.address), balanceOf(info.smartAccount.owner)]);

  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Sandbox smart account");
  await ui.ask("What's the weather in Lisbon?");
  const card = (await ui.reply(0)).getByTestId("payment-card");
  await expect(card.getByTestId("payment-paying-from")).toHaveAttribute("title", info.smartAccount.address);
  await card.getByTestId("approve-payment").click();
  await expect(card).toHaveAttribute("data-status", "delivered", { timeout: 45_000 });
  expect(await balanceOf(info.smartAccount.address)).toBe(accountBefore - 2_000n);
  expect(await balanceOf(info.smartAccount.owner)).toBe(ownerBefore);
});
