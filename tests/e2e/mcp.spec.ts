// An AI app over MCP, approved in Chromium against the production build on the sandbox: the
// person gives the app access from the page (the wallet signs the grant), the SDK's own MCP
// client asks for a paid service with the token shown, the person opens the approval link, sees
// the same payment card and approves it with the wallet; the app then gets the service's data.
// Revoking the access in the page shuts the app out.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Locator, Page } from "@playwright/test";
import { createPublicClient, erc20Abi, http } from "viem";
import { chatPage } from "./chat-page";
import { sandboxInfo } from "./sandbox";
import { expect, TEST_WALLET_USDC, test } from "./wallet";

async function connectApp(baseURL: string, token: string): Promise<Client> {
  const client = new Client({ name: "e2e-app", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL("/api/mcp", baseURL), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await client.callTool({ name, arguments: args });
  const [first] = result.content as Array<{ text?: string }>;
  return JSON.parse(first?.text ?? "{}");
}

/** The sandbox's QuickWeather Pro, which the app asks for. */
function weatherExpress() {
  const express = sandboxInfo().services.find((service) => service.name === "weather-express");
  if (!express) throw new Error("the sandbox has no weather-express service");
  return express;
}

/** Gives an app access from the page as a person does: name it, set its daily limit if given, sign; the token shown once. */
async function giveAccess(page: Page, label: string, daily?: string): Promise<{ token: string; dialog: Locator }> {
  await page.getByTestId("ai-apps-open").click();
  const dialog = page.getByTestId("ai-apps-dialog");
  await dialog.getByTestId("ai-apps-label").fill(label);
  if (daily) await dialog.getByTestId("ai-apps-limit-daily").fill(daily);
  await dialog.getByTestId("ai-apps-create").click();
  const tokenBlock = dialog.getByTestId("ai-apps-token");
  await expect(tokenBlock).toContainText("x402mcp_", { timeout: 20_000 });
  return { token: (await tokenBlock.textContent())?.trim() ?? "", dialog };
}

test("an AI app asks, the person approves in the page with their wallet, the app gets the data; revoked, it is shut out", async ({ page, wallet, baseURL }) => {
  test.setTimeout(120_000);
  const info = sandboxInfo();
  const express = weatherExpress();
  if (!baseURL) throw new Error("no base URL");
  await page.goto("/");
  await chatPage(page).connect("Test Wallet");

  // Give the app access: the wallet signs in (the grant starts no session), then signs the grant;
  // the token is shown once with its configuration.
  const { token, dialog } = await giveAccess(page, "Claude Desktop", "0.05");
  expect(wallet.signRequests).toBe(2);
  await expect(dialog.getByTestId("ai-apps-config-claude-code")).toContainText(`${new URL(baseURL).origin}/api/mcp`);
  await expect(dialog.getByTestId("ai-apps-config-claude-desktop")).toContainText("X402_MCP_TOKEN");
  await expect(dialog.getByTestId("ai-apps-grant")).toContainText("Claude Desktop: $0.05 a day");
  await page.keyboard.press("Escape");

  // The app asks for the weather: a quote waiting for the person, nothing paid.
  const app = await connectApp(baseURL, token);
  const quoted = await call(app, "payForService", { url: express.url, query: { city: "Lisbon" } });
  expect(quoted).toMatchObject({ status: "awaiting-approval", quote: { service: "QuickWeather Pro", totalUsd: express.price } });
  const approvalUrl = String(quoted.approvalUrl);
  expect(approvalUrl.startsWith(new URL(baseURL).origin)).toBe(true);

  // The person opens the link: the same card, the app named; the wallet approves.
  await page.goto(approvalUrl);
  await expect(page.getByTestId("approval-app")).toContainText("Claude Desktop asks to pay");
  const card = page.getByTestId("payment-card");
  await expect(card.getByTestId("payment-total")).toContainText(express.price);
  await expect(card.getByTestId("payment-expiry")).toBeVisible();
  await expect(page.getByTestId("wallet-connect")).not.toContainText(/connect wallet/i, { timeout: 20_000 });
  await card.getByTestId("approve-payment").click();
  await expect(card.getByTestId("payment-status")).toContainText(/delivered/i, { timeout: 30_000 });
  await expect(page.getByTestId("approval-answer")).toContainText("Lisbon");
  // QuickWeather Pro signs a receipt; the card says it was checked.
  await expect(card.getByTestId("payment-receipt")).toContainText(/Signed receipt · verified by/);
  const balance = await createPublicClient({ transport: http(info.rpcUrl) }).readContract({
    address: info.usdc.address,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [wallet.address],
  });
  expect(balance).toBe(TEST_WALLET_USDC - BigInt(express.priceAtomic));

  // The app gets the data.
  const outcome = await call(app, "getPayment", { paymentId: quoted.paymentId, waitSeconds: 10 });
  expect(outcome).toMatchObject({ status: "delivered", data: { city: "Lisbon" } });
  await app.close();

  // Revoked in the page, the token is refused.
  await page.goto("/");
  await page.getByTestId("ai-apps-open").click();
  await page.getByTestId("ai-apps-dialog").getByTestId("ai-apps-revoke").click();
  await expect(page.getByTestId("ai-apps-grant")).toContainText("Revoked.");
  const refused = await fetch(new URL("/api/mcp", baseURL), {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  expect(refused.status).toBe(401);
  expect(await refused.text()).toContain("revoked");
});

test("with the page open and an agent budget, an app's small payment is paid from the budget without a prompt", async ({ page, gasWallet, baseURL }) => {
  test.setTimeout(150_000);
  const info = sandboxInfo();
  const express = weatherExpress();
  if (!baseURL) throw new Error("no base URL");
  await page.goto("/");
  await chatPage(page).connect("Test Wallet");
  // The budget: 0.05 USDC, paying up to 0.02 without asking.
  const card = page.getByTestId("agent-budget");
  await card.getByTestId("agent-budget-amount").fill("0.05");
  await card.getByTestId("agent-budget-threshold").fill("0.02");
  await card.getByTestId("agent-budget-grant").click();
  const status = card.getByTestId("agent-budget-status");
  await expect(status).toHaveAttribute("data-left", "0.05", { timeout: 30_000 });
  const session = (await status.getAttribute("data-session")) as `0x${string}`;

  const { token } = await giveAccess(page, "Cursor");
  await page.keyboard.press("Escape");
  // The page checks in every few seconds while it holds the budget and has given an app access.
  await page.waitForResponse((response) => response.url().endsWith("/api/mcp/budget") && response.status() === 200, { timeout: 15_000 });
  const prompts = gasWallet.signRequests;

  const app = await connectApp(baseURL, token);
  const quoted = await call(app, "payForService", { url: express.url, query: { city: "Paris" } });
  expect(quoted).toMatchObject({ status: "awaiting-approval", paidFrom: "agent budget" });
  const outcome = await call(app, "getPayment", { paymentId: quoted.paymentId, waitSeconds: 30 });
  expect(outcome).toMatchObject({ status: "delivered", data: { city: "Paris" } });
  await app.close();
  // No wallet prompt; the money left the budget's session address.
  expect(gasWallet.signRequests).toBe(prompts);
  const left = await createPublicClient({ transport: http(info.rpcUrl) }).readContract({ address: info.usdc.address, abi: erc20Abi, functionName: "balanceOf", args: [session] });
  expect(left).toBe(50_000n - BigInt(express.priceAtomic));
  await expect(status).toHaveAttribute("data-left", "0.04", { timeout: 15_000 });
  // The page shows the person what it paid without a prompt, and for which app.
  const shown = card.getByTestId("agent-budget-app-payment");
  await expect(shown).toHaveAttribute("data-outcome", "paid");
  await expect(shown).toContainText(`Cursor: paid $${express.price} to QuickWeather Pro from the budget`);
});

test("opened under another name of the same server (localhost for 127.0.0.1), the page gives access for the server's own address, and the token works", async ({ page, wallet, baseURL }) => {
  test.setTimeout(90_000);
  if (!baseURL) throw new Error("no base URL");
  const server = new URL(baseURL);
  // APP_URL is the base URL; the person typed the other name the server answers to.
  const otherName = new URL(baseURL);
  otherName.hostname = server.hostname === "localhost" ? "127.0.0.1" : "localhost";
  await page.goto(otherName.href);
  await chatPage(page).connect("Test Wallet");

  const { token, dialog } = await giveAccess(page, "Claude Code");
  expect(wallet.signRequests).toBe(2);
  await expect(dialog.getByTestId("ai-apps-config-claude-code")).toContainText(`${server.origin}/api/mcp`);
  const app = await connectApp(baseURL, token);
  const { tools } = await app.listTools();
  expect(tools.map((tool) => tool.name)).toContain("payForService");
  await app.close();
});
