// The security headers of the production build on the sandbox: a content security policy with
// a fresh script nonce per page (on Next's own scripts) on the chat page and a transaction page,
// a policy that allows nothing on the chat API, no framing, no sniffing, no referrer on all of
// them, and the page itself running under its policy without a single violation.
import type { APIResponse } from "@playwright/test";
import { chatPage } from "./chat-page";
import { sandboxInfo } from "./sandbox";
import { expect, test } from "./wallet";

function directives(response: APIResponse): Map<string, string[]> {
  const policy = response.headers()["content-security-policy"] ?? "";
  return new Map(
    policy
      .split(";")
      .map((part) => part.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name = "", ...sources]) => [name, sources]),
  );
}

function expectFixedHeaders(response: APIResponse): void {
  const headers = response.headers();
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["x-frame-options"]).toBe("DENY");
  expect(headers["referrer-policy"]).toBe("no-referrer");
  expect(headers["permissions-policy"]).toContain("camera=()");
}

function expectSecurityHeaders(response: APIResponse): void {
  expectFixedHeaders(response);
  const policy = directives(response);
  expect(policy.get("frame-ancestors")).toEqual(["'none'"]);
  expect(policy.get("object-src")).toEqual(["'none'"]);
  expect(policy.get("default-src")).toEqual(["'self'"]);
  const scripts = policy.get("script-src") ?? [];
  expect(scripts).toContain("'strict-dynamic'");
  expect(scripts.some((source) => /^'nonce-[A-Za-z0-9+/]{22}==?'$/.test(source))).toBe(true);
  expect(scripts).not.toContain("'unsafe-inline'");
  expect(scripts).not.toContain("'unsafe-eval'");
  // The page reads the sandbox chain from the browser, and its Solana demo wallet signs through
  // the local Solana; nothing else is reachable.
  expect(policy.get("connect-src")).toEqual(["'self'", new URL(sandboxInfo().rpcUrl).origin, new URL(sandboxInfo().solana.rpcUrl).origin]);
}

const nonceOf = (response: APIResponse) =>
  /'nonce-([^']+)'/.exec(response.headers()["content-security-policy"] ?? "")?.[1];

test("the chat page, the chat API and a transaction page carry the security headers", async ({ request }) => {
  const page = await request.get("/");
  expect(page.status()).toBe(200);
  expectSecurityHeaders(page);
  // Next puts the response's nonce on its own scripts, and a new one on every response.
  const nonce = nonceOf(page);
  const html = await page.text();
  expect(html).toContain(`nonce="${nonce}"`);
  expect(html).not.toMatch(/<script(?![^>]*\bnonce=)[^>]*>/);
  expect(nonceOf(await request.get("/"))).not.toBe(nonce);

  // An API answer runs nothing: its policy allows nothing, and needs no nonce.
  const api = await request.post("/api/chat", { data: { messages: "not a list" } });
  expect(api.status()).toBe(400);
  expectFixedHeaders(api);
  expect(Object.fromEntries(directives(api))).toEqual({
    "default-src": ["'none'"],
    "base-uri": ["'none'"],
    "form-action": ["'none'"],
    "frame-ancestors": ["'none'"],
  });

  const tx = await request.get(`/tx/eip155:31337/0x${"ab".repeat(32)}`);
  expect(tx.status()).toBe(200);
  expectSecurityHeaders(tx);

  const script = /<script[^>]*\bsrc="([^"]+\.js)"/.exec(html)?.[1];
  expect(script).toBeTruthy();
  const asset = await request.get(script ?? "");
  expect(asset.status()).toBe(200);
  expect(asset.headers()["x-content-type-options"]).toBe("nosniff");
});

test("the page hydrates and lists the wallets under its policy with no violation", async ({ page, cspViolations }) => {
  const ui = chatPage(page);
  await page.goto("/");
  await page.getByTestId("wallet-connect").getByRole("button", { name: /connect wallet/i }).click();
  await expect(page.getByRole("dialog").getByRole("button", { name: /sandbox demo wallet/i }).first()).toBeVisible();
  await page.keyboard.press("Escape");
  await ui.input.fill("Hello");
  await expect(ui.send).toBeEnabled();
  expect(cspViolations.violations).toEqual([]);
});
