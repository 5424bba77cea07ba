// The wallet list at 1280 × 800 for a person without a wallet extension: Base Account and Coinbase
// Wallet are where people look for a wallet, in the list under "No extension needed", wherever the
// page runs. On the sandbox they cannot connect (Coinbase's service does not reach a local chain),
// so they are there, disabled, with the reason beside them.
import { chatPage } from "./chat-page";
import { expect, test } from "./wallet";

test.use({ viewport: { width: 1280, height: 800 } });

test("the wallet list shows Base Account and Coinbase Wallet under No extension needed, disabled on the sandbox with the reason", async ({ page }) => {
  const ui = chatPage(page);
  await page.goto("/");
  await ui.openWalletList();

  const group = ui.walletList.getByRole("group", { name: "No extension needed" });
  await expect(group).toBeVisible();
  for (const name of ["Base Account", "Coinbase Wallet"]) {
    const entry = group.getByRole("button", { name: new RegExp(`^${name}`) });
    await expect(entry).toBeVisible();
    await expect(entry).toBeDisabled();
    await expect(entry).toHaveAccessibleDescription(/cannot reach this local chain/);
  }
  await expect(group).toContainText("Not on the sandbox: they connect through Coinbase's service, which cannot reach this local chain.");
  // The wallets that do work here stay first, and connect.
  await expect(ui.walletList.getByRole("button", { name: /Sandbox demo wallet/ })).toBeEnabled();
  await expect(ui.walletList.getByTestId("wallet-list-note")).toContainText("No wallet? Use the Sandbox demo wallet");
});
