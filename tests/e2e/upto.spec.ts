// Paying a usage-priced (x402 `upto`) service from the page, in Chromium against the production
// build on the sandbox: the card says "Up to" the service's maximum, the injected wallet signs
// Permit2's witness transfer, and once the chain shows the settlement the card says what was
// charged, less than the maximum, and the budget counts exactly that. A fresh wallet, without a
// Permit2 allowance or gas, signs a gasless USDC permit for Permit2 first; one that declines it
// approves Permit2 from the card, with its gas, and then signs the payment alone.
import { createPublicClient, createWalletClient, erc20Abi, http, maxUint256 } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { chatPage } from "./chat-page";
import { sandboxInfo } from "./sandbox";
import { expect, installTestWallet, newSandboxAccount, TEST_WALLET_USDC, test } from "./wallet";

const PERMIT2 = "0x000000000022D473030F116dDEE9F6B43aC78BA3";
const TEXT = "The ledger was balanced. Every payment matched its invoice. Nobody was surprised.";

test("pays an upto service with the injected wallet: up to the maximum, charged what was used", async ({ page }) => {
  test.setTimeout(120_000);
  const info = sandboxInfo();
  // A wallet that has approved Permit2 once, with its own gas.
  const { privateKey } = await newSandboxAccount({ usdc: TEST_WALLET_USDC, eth: 10n ** 17n });
  const owner = createWalletClient({ account: privateKeyToAccount(privateKey), chain: { ...foundry, id: info.chainId }, transport: http(info.rpcUrl) });
  await owner.writeContract({ address: info.usdc.address, abi: erc20Abi, functionName: "approve", args: [PERMIT2, maxUint256] });
  const wallet = await installTestWallet(page, { privateKey, rpcUrl: info.rpcUrl, chainId: info.chainId });

  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  await ui.ask(`Summarize "${TEXT}"`);
  const quote = await ui.reply(0);
  const card = quote.getByTestId("payment-card");
  await expect(card).toHaveAttribute("data-status", "awaiting-signature");
  await expect(card).toContainText("Up to");
  await expect(card.getByTestId("payment-total")).toContainText("0.02");
  await expect(card.getByTestId("payment-typical")).toContainText("0.0025");
  await expect(card.getByTestId("approve-payment")).toContainText(/up to \$0\.02/i);
  await card.getByTestId("approve-payment").click();

  const answer = await ui.reply(1);
  await expect(card).toHaveAttribute("data-status", "delivered");
  expect(wallet.signRequests).toBe(1);
  const charged = `0.000${TEXT.length * 5}`;
  await expect(card.getByTestId("payment-charged")).toContainText(`up to $0.02, charged $${charged}`);
  // The fee rows still say what the wallet signed for: a maximum, not what was charged.
  await expect(card.getByTestId("payment-service-fee-label")).toHaveText("Service fee, at most");
  await expect(answer).toContainText("The ledger was balanced.");
  await expect(ui.budget.getByTestId("budget-meter-day")).toHaveAttribute("data-spent", charged);
  // The history's row says both: the maximum signed for and what was charged.
  const history = ui.budget.getByTestId("history");
  await history.getByText("All payments").click();
  await expect(history.getByTestId("history-payment").getByTestId("payment-up-to")).toHaveText(`Usage-priced: up to $0.02, charged $${charged}`);
  await expect(ui.errors).toHaveCount(0);
});

test("a service that says it used nothing: delivered, charged $0 so far, and the maximum shown held until its deadline on the card and under the budget", async ({ page }) => {
  test.setTimeout(120_000);
  const info = sandboxInfo();
  const { privateKey } = await newSandboxAccount({ usdc: TEST_WALLET_USDC, eth: 10n ** 17n });
  const owner = createWalletClient({ account: privateKeyToAccount(privateKey), chain: { ...foundry, id: info.chainId }, transport: http(info.rpcUrl) });
  await owner.writeContract({ address: info.usdc.address, abi: erc20Abi, functionName: "approve", args: [PERMIT2, maxUint256] });
  await installTestWallet(page, { privateKey, rpcUrl: info.rpcUrl, chainId: info.chainId });

  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  await ui.ask("Search the notes for unicorns");
  const quote = await ui.reply(0);
  const card = quote.getByTestId("payment-card");
  await expect(card).toHaveAttribute("data-status", "awaiting-signature");
  await expect(card.getByTestId("payment-total")).toContainText("0.015");
  await card.getByTestId("approve-payment").click();

  await ui.reply(1);
  await expect(card).toHaveAttribute("data-status", "delivered");
  await expect(card.getByTestId("payment-charged")).toContainText("charged $0.00 so far");
  // Nothing reached the chain: its step is not ticked.
  await expect(card).toContainText("Nothing settled yet");
  await expect(card).not.toContainText("Confirmed on chain");
  await expect(card.getByTestId("payment-held")).toContainText(/\$0\.015 held until \d{1,2}:\d{2}.* unless the service collects it/);
  // The wallet's approval signed it in: its budget lists what is held, and counts it against what is left.
  await expect(ui.budget.getByTestId("budget-held-payment")).toContainText("NoteFinder");
  await expect(ui.budget.getByTestId("budget-held-payment")).toContainText(/held until .* unless the service collects it/);
  await expect(ui.budget.getByTestId("budget-held-day")).toContainText("$0.015 held");
  // The meter draws it beside what was spent: a bar as full as what is left says.
  await expect(ui.budget.getByTestId("budget-held-fill-day")).toBeVisible();
  await expect(ui.errors).toHaveCount(0);
});

test("a fresh wallet, with no Permit2 allowance and no ETH, pays from the page with two signatures: a gasless USDC permit for Permit2, then the payment", async ({ page }) => {
  test.setTimeout(120_000);
  const info = sandboxInfo();
  const { privateKey, address } = await newSandboxAccount({ usdc: TEST_WALLET_USDC });
  const chain = createPublicClient({ transport: http(info.rpcUrl) });
  const allowance = () => chain.readContract({ address: info.usdc.address, abi: erc20Abi, functionName: "allowance", args: [address, PERMIT2] });
  expect(await allowance()).toBe(0n);
  expect(await chain.getBalance({ address })).toBe(0n);
  const wallet = await installTestWallet(page, { privateKey, rpcUrl: info.rpcUrl, chainId: info.chainId });

  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  await ui.ask(`Summarize "${TEXT}"`);
  const quote = await ui.reply(0);
  const card = quote.getByTestId("payment-card");
  await expect(card).toHaveAttribute("data-status", "awaiting-signature");
  await expect(card.getByTestId("payment-requests-note")).toContainText("Your wallet asks twice: a gasless USDC permit for Permit2, then the payment.");
  await card.getByTestId("approve-payment").click();

  await ui.reply(1);
  await expect(card).toHaveAttribute("data-status", "delivered");
  expect(wallet.signRequests).toBe(2);
  expect(wallet.transactions).toBe(0);
  const charged = TEXT.length * 5;
  await expect(card.getByTestId("payment-charged")).toContainText(`up to $0.02, charged $0.000${charged}`);
  expect(await allowance()).toBe(20_000n - BigInt(charged));
  expect(await chain.getBalance({ address })).toBe(0n);
  await expect(ui.errors).toHaveCount(0);
});

test("a wallet that declines the permit is offered to approve Permit2 with its gas on the card, and then pays with one signature", async ({ page, gasWallet }) => {
  test.setTimeout(150_000);
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  await ui.ask(`Summarize "${TEXT}"`);
  const first = await ui.reply(0);
  const card = first.getByTestId("payment-card");
  await expect(card).toHaveAttribute("data-status", "awaiting-signature");
  gasWallet.rejectNext();
  await card.getByTestId("approve-payment").click();
  await expect(ui.errors.last()).toContainText("did not sign a gasless USDC permit for Permit2");
  expect(gasWallet.signRequests).toBe(1);
  await expect(card).toHaveAttribute("data-status", "awaiting-signature");

  await expect(card.getByTestId("approve-instead")).toContainText("Or approve Permit2 yourself instead (one transaction, with its gas)");
  await card.getByTestId("approve-instead").click();
  await expect(card.getByTestId("payment-requests-note")).toContainText("Done: approve Permit2 went through. Your wallet now asks only for the payment.", { timeout: 20_000 });
  expect(gasWallet.transactions).toBe(1);

  await card.getByTestId("approve-payment").click();
  await ui.reply(1);
  await expect(card).toHaveAttribute("data-status", "delivered");
  // The declined permit, the approval of Permit2, and the payment: no permit asked again.
  expect(gasWallet.signRequests).toBe(3);
  await expect(card.getByTestId("payment-charged")).toContainText(`charged $0.000${TEXT.length * 5}`);
});
