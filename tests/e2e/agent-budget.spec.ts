// The agent budget in Chromium against the production build on the sandbox: the person grants a
// budget once (their wallet signs the delegation and sends the USDC, paying the gas), then small
// answers are paid by the session key in the page with no wallet prompt, from the budget's own
// address on chain; a payment above the threshold, or past what is left, asks the wallet; revoke
// returns what is left to the wallet on chain.
import { createPublicClient, erc20Abi, http, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { chatPage } from "./chat-page";
import { sandboxInfo } from "./sandbox";
import { expect, TEST_WALLET_USDC, test } from "./wallet";
import type { Page } from "@playwright/test";

function chain() {
  const info = sandboxInfo();
  const client = createPublicClient({ transport: http(info.rpcUrl) });
  return (owner: Hex) => client.readContract({ address: info.usdc.address, abi: erc20Abi, functionName: "balanceOf", args: [owner] });
}

async function grant(page: Page, { amount, perPayment }: { amount: string; perPayment: string }) {
  const card = page.getByTestId("agent-budget");
  await card.getByTestId("agent-budget-amount").fill(amount);
  await card.getByTestId("agent-budget-threshold").fill(perPayment);
  await card.getByTestId("agent-budget-grant").click();
  const status = card.getByTestId("agent-budget-status");
  await expect(status).toHaveAttribute("data-left", amount, { timeout: 30_000 });
  return { card, status, session: (await status.getAttribute("data-session")) as Hex };
}

test("granted once, the budget pays three small answers without a prompt; a larger one asks; revoke returns the rest", async ({ page, gasWallet }) => {
  test.setTimeout(180_000);
  const balanceOf = chain();
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");

  const { card, status, session } = await grant(page, { amount: "0.05", perPayment: "0.005" });
  // One prompt to sign the delegation, one transaction moving the USDC.
  expect(gasWallet.signRequests).toBe(2);
  expect(gasWallet.transactions).toBe(1);
  expect(await balanceOf(session)).toBe(50_000n);
  expect(await balanceOf(gasWallet.address)).toBe(TEST_WALLET_USDC - 50_000n);
  await expect(card).toContainText("$0.05 granted · $0.00 used · $0.05 left");
  // The key is in the page only, sealed: nothing in local storage is the key, and the sealing
  // key in IndexedDB cannot be exported.
  const storage = await page.evaluate(() => Object.values(localStorage).join("\n"));
  expect(storage.toLowerCase()).toContain(session.toLowerCase());
  for (const hex of storage.match(/0x[0-9a-fA-F]{64}(?![0-9a-fA-F])/g) ?? []) {
    expect(privateKeyToAccount(hex as Hex).address).not.toBe(session);
  }
  const sealing = await page.evaluate(
    () =>
      new Promise<{ extractable: boolean; type: string }>((resolve, reject) => {
        const open = indexedDB.open("x402-agent-budget");
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const get = open.result.transaction("keys").objectStore("keys").get("session-key-sealing");
          get.onsuccess = () => resolve({ extractable: (get.result as CryptoKey).extractable, type: (get.result as CryptoKey).algorithm.name });
          get.onerror = () => reject(get.error);
        };
      }),
  );
  expect(sealing).toEqual({ extractable: false, type: "AES-GCM" });

  const questions = ["What's the weather in Lisbon?", "Convert 10 USD to EUR", "What's the news about technology?"];
  for (const [index, question] of questions.entries()) {
    await ui.ask(question);
    const payment = (await ui.reply(index * 2)).getByTestId("payment-card");
    await expect(payment).toHaveAttribute("data-status", "delivered", { timeout: 45_000 });
    await expect(payment.getByTestId("payment-paid-from")).toHaveText("Paid from your agent budget, without a prompt.");
    await ui.reply(index * 2 + 1);
  }
  // No prompt for any of them, and the money came from the budget's address.
  expect(gasWallet.signRequests).toBe(2);
  const spent = 2_000n + 1_000n + 3_000n;
  expect(await balanceOf(session)).toBe(50_000n - spent);
  expect(await balanceOf(gasWallet.address)).toBe(TEST_WALLET_USDC - 50_000n);
  await expect(status).toHaveAttribute("data-left", "0.044");
  await expect(card).toContainText("$0.006 used");
  // They are the wallet's payments: its meters count them. Which payments they are is shown to
  // the wallet's own session only, and the budget's key, which signed them, opened none.
  await expect(ui.budget.getByTestId("budget-meter-day")).toHaveAttribute("data-spent", "0.006");
  await expect(ui.budget.getByTestId("budget-sign-in")).toBeVisible();
  await expect(ui.budget.getByTestId("budget-payment-from-agent")).toHaveCount(0);

  // Above the threshold: the person confirms in the page, and the wallet signs.
  await ui.ask('Translate "hello friend" to es');
  const translation = (await ui.reply(6)).getByTestId("payment-card");
  await expect(translation).toHaveAttribute("data-status", "awaiting-signature");
  await expect(translation.getByTestId("payment-paid-from")).toHaveCount(0);
  await expect(translation).toContainText("above your confirmation threshold of $0.005, so your agent budget does not pay it");
  await translation.getByTestId("approve-payment").click();
  await expect(translation).toHaveAttribute("data-status", "delivered", { timeout: 45_000 });
  expect(gasWallet.signRequests).toBe(3);
  // The wallet's own signature proved it: its recent payments now list the budget's three beside this one.
  await expect(ui.budget.getByTestId("budget-payment-from-agent")).toHaveCount(3);
  expect(await balanceOf(session)).toBe(50_000n - spent);
  expect(await balanceOf(gasWallet.address)).toBe(TEST_WALLET_USDC - 50_000n - 20_000n);

  // Revoke: the wallet submits the key's authorization returning everything left.
  await card.getByTestId("agent-budget-revoke").click();
  await expect(card.getByTestId("agent-budget-notice")).toContainText("Revoked. 0.044 USDC went back to your wallet.", { timeout: 30_000 });
  expect(gasWallet.transactions).toBe(2);
  expect(gasWallet.signRequests).toBe(4);
  expect(await balanceOf(session)).toBe(0n);
  expect(await balanceOf(gasWallet.address)).toBe(TEST_WALLET_USDC - spent - 20_000n);
  await expect(card.getByTestId("agent-budget-grant")).toBeVisible();
  // The page reads the wallet's balance again once the rest is back.
  await expect(ui.budget.getByTestId("budget-balance")).toContainText("4.974 USDC");

  // Revoked means unused: the next small answer asks the wallet again.
  await ui.ask("What's the weather in Tokyo?");
  const next = (await ui.reply(8)).getByTestId("payment-card");
  await expect(next).toHaveAttribute("data-status", /awaiting-signature|submitted|confirmed|delivered/);
  await expect(next.getByTestId("payment-paid-from")).toHaveCount(0);
  await expect.poll(() => gasWallet.signRequests).toBe(5);
  await expect(ui.errors).toHaveCount(0);
});

test("a budget that cannot cover the next answer says so, and the wallet is asked", async ({ page, gasWallet }) => {
  test.setTimeout(120_000);
  const balanceOf = chain();
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  const { status, session } = await grant(page, { amount: "0.003", perPayment: "0.005" });

  await ui.ask("What's the weather in Lisbon?");
  const first = (await ui.reply(0)).getByTestId("payment-card");
  await expect(first).toHaveAttribute("data-status", "delivered", { timeout: 45_000 });
  await ui.reply(1);
  await expect(status).toHaveAttribute("data-left", "0.001");
  const prompts = gasWallet.signRequests;

  // The budget outlives a reload: the page still holds it, and still sends it.
  await page.reload();
  await expect(status).toHaveAttribute("data-left", "0.001", { timeout: 20_000 });
  // The reload kept the conversation: the first quote and its answer are replies 0 and 1.
  await ui.ask("What's the weather in Tokyo?");
  const second = (await ui.reply(2)).getByTestId("payment-card");
  await expect(second).toContainText(
    "Your agent budget has $0.001 of $0.003 left, less than this payment of $0.002. This payment needs your wallet's approval; grant a new agent budget to go on without prompts.",
  );
  // At or below the threshold, the wallet's own prompt opens at once.
  await expect(second).toHaveAttribute("data-status", "delivered", { timeout: 45_000 });
  expect(gasWallet.signRequests).toBe(prompts + 1);
  expect(await balanceOf(session)).toBe(1_000n);
  expect(await balanceOf(gasWallet.address)).toBe(TEST_WALLET_USDC - 3_000n - 2_000n);
});

test("revoking in another tab is heard at once: this tab stops paying from the budget without a reload", async ({ page, gasWallet }) => {
  test.setTimeout(120_000);
  const ui = chatPage(page);
  await page.goto("/");
  await ui.connect("Test Wallet");
  const { status } = await grant(page, { amount: "0.02", perPayment: "0.005" });
  await expect(status).toHaveAttribute("data-state", "active");

  // Another tab of the same browser revokes the budget (what its Revoke button writes first).
  const other = await page.context().newPage();
  await other.goto("/");
  await other.evaluate((wallet) => {
    const key = `x402.agentBudget.${wallet.toLowerCase()}`;
    const stored = JSON.parse(localStorage.getItem(key) ?? "null") as Record<string, unknown> | null;
    if (!stored) throw new Error("the other tab sees no budget");
    localStorage.setItem(key, JSON.stringify({ ...stored, revokedAt: new Date().toISOString() }));
  }, gasWallet.address);
  await other.close();

  // This tab was not reloaded, and it knows: the next small payment asks the wallet.
  await expect(status).toHaveAttribute("data-state", "revoked");
  await ui.ask("What's the weather in Lisbon?");
  const card = (await ui.reply(0)).getByTestId("payment-card");
  await expect(card).toHaveAttribute("data-status", "awaiting-signature");
  await expect(card.getByTestId("payment-paid-from")).toHaveCount(0);
});
