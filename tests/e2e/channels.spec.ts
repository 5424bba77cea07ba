// Pay-as-you-go channels (x402 `batch-settlement`) from the page, in Chromium against the
// production build on the sandbox: the first call to TickStream is a deposit card the wallet signs
// once; the next call is paid by the page's channel key, without a prompt and without a
// transaction; the budget's Channels list shows the deposit, and Close returns the rest to the
// wallet.
import { createPublicClient, erc20Abi, http } from "viem";
import { chatPage } from "./chat-page";
import { sandboxInfo } from "./sandbox";
import { expect, installTestWallet, newSandboxAccount, TEST_WALLET_USDC, test } from "./wallet";

test("a deposit signed once, a second call without a prompt, and a close that returns the rest", async ({ page }) => {
  test.setTimeout(150_000);
  const info = sandboxInfo();
  const { privateKey, address } = await newSandboxAccount({ usdc: TEST_WALLET_USDC });
  const wallet = await installTestWallet(page, { privateKey, rpcUrl: info.rpcUrl, chainId: info.chainId });
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");

  await ui.ask("What is the NVDA stock price?");
  const first = (await ui.reply(0)).getByTestId("payment-card");
  await expect(first).toHaveAttribute("data-status", "awaiting-signature");
  await expect(first.getByTestId("payment-channel")).toContainText("Deposit $0.05 with TickStream: each call takes what it costs from it ($0.001 this one)");
  await expect(first.getByTestId("payment-channel")).toContainText("take it back yourself 15 minutes after asking");
  await expect(first.getByTestId("payment-total")).toContainText("0.05");
  await first.getByTestId("approve-payment").click();
  await ui.reply(1);
  await expect(first).toHaveAttribute("data-status", "delivered");
  await expect(first.getByTestId("payment-channel")).toContainText("$0.049 is left for the next ones");
  // The wallet signed the deposit; the page's channel key signed the first call's voucher.
  expect(wallet.signRequests).toBe(1);

  await ui.ask("And the NVDA stock price again?");
  const second = ui.cards.nth(1);
  // Paid from the deposit by the channel key: no click, no wallet prompt, no transaction.
  await expect(second).toHaveAttribute("data-status", "delivered", { timeout: 30_000 });
  await expect(second.getByTestId("payment-channel")).toContainText("$0.001 from your deposit with TickStream, without a prompt ($0.048 left)");
  await expect(second.getByTestId("payment-tx-link")).toHaveCount(0);
  await expect(second).toContainText("From your deposit");
  expect(wallet.signRequests).toBe(1);

  // Spent is what the calls took; the rest of the deposit is held (it counts against the limits) until it comes back.
  await expect(ui.budget.getByTestId("budget-meter-day")).toHaveAttribute("data-spent", "0.002");
  await expect(ui.budget.getByTestId("budget-held-day")).toContainText("$0.048 held");
  await expect(ui.budget.getByTestId("budget-held-payment")).toContainText("left in your deposit");
  // The budget lists the channel; Close gives back what the calls did not take.
  const channel = ui.budget.getByTestId("budget-channel");
  await expect(channel).toHaveAttribute("data-state", "open");
  await expect(channel).toContainText("TickStream");
  await expect(channel).toContainText("Deposit $0.05 · 2 calls, $0.002");
  await channel.getByTestId("budget-channel-close").click();
  await expect(channel.getByTestId("budget-channel-note")).toContainText("Closed: $0.048 came back to your wallet.", { timeout: 30_000 });
  // The refund's transaction is shown where the person pressed Close, and in the closed channel's row.
  await expect(channel.getByTestId("budget-channel-note-tx")).toHaveAttribute("href", /0x[0-9a-f]{64}/);
  await expect(ui.budget.getByTestId("budget-channel")).toHaveAttribute("data-state", "closed");
  await expect(ui.budget.getByTestId("budget-channel-return-tx")).toHaveAttribute("href", /0x[0-9a-f]{64}/);
  await expect(ui.budget.getByTestId("budget-channel")).toContainText("$0.048 back");
  await expect(ui.budget.getByTestId("budget-meter-day")).toHaveAttribute("data-spent", "0.002");
  await expect(ui.budget.getByTestId("budget-held-day")).toHaveCount(0);
  const chain = createPublicClient({ transport: http(info.rpcUrl) });
  expect(await chain.readContract({ address: info.usdc.address, abi: erc20Abi, functionName: "balanceOf", args: [address] })).toBe(TEST_WALLET_USDC - 2_000n);
  expect(wallet.signRequests).toBe(1);
  await expect(ui.errors).toHaveCount(0);
});
