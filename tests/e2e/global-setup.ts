// Warms the freshly started server before the first test: the first chat request opens the
// database and runs its migrations, which on a busy machine can outlast a short cooldown and make
// the first test's timing depend on it. The warm-up names a wallet and a client address of its
// own (as the proxy the tests stand in for would report it), so the cooldown it claims is not
// the one the browser tests from 127.0.0.1 use.
import type { FullConfig } from "@playwright/test";

const WARM_UP_WALLET = "0x000000000000000000000000000000000000dEaD";
const WARM_UP_CLIENT = "198.18.255.254";

export default async function globalSetup(config: FullConfig): Promise<void> {
  const baseURL = config.projects[0]?.use.baseURL;
  if (!baseURL) throw new Error("playwright.config.ts must set use.baseURL");
  const response = await fetch(new URL("/api/chat", baseURL), {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Forwarded-For": WARM_UP_CLIENT },
    body: JSON.stringify({ walletAddress: WARM_UP_WALLET, messages: [{ role: "user", content: "hello" }] }),
  });
  // Read to the end: the request is only finished once its stream is.
  const body = await response.text();
  if (response.status !== 200) throw new Error(`warm-up chat request failed with ${response.status}: ${body.slice(0, 200)}`);
}
