// Signing in with the wallet (docs/contract.md, section 9, EIP-4361) through /api/session's own handlers: a
// message for this host, with the nonce this browser was given, signed by the wallet it names,
// starts a session that GET /api/spending honours with the wallet's history. Anything else (another
// host, another browser's or an old nonce, a signature of another key, a chain not paid on) is a
// 401, and no session starts.
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parseServerEnv, type ServerEnv } from "@/lib/env";
import { createRateLimiter } from "@/lib/rate-limit";
import { handleSessionRequest, isSignedInAs } from "@/lib/session";
import { startSandbox, type Sandbox } from "@/sandbox";
import { sandboxEnv } from "@/tests/helpers/paid-chat";

// The sandbox chain answers whether an address that did not sign is a contract account (ERC-1271).
let sandbox: Sandbox;
let env: ServerEnv;
let chainId: number;
beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  env = parseServerEnv(sandboxEnv(sandbox));
  chainId = sandbox.info.chainId;
});
afterAll(async () => {
  await sandbox?.stop();
});
const host = "app.example";
const deps = () => ({ env: () => env, rateLimit: createRateLimiter({ limit: 1_000, windowMs: 60_000 }) });
const call = (method: string, init: { cookie?: string; body?: unknown; host?: string } = {}) =>
  handleSessionRequest(
    new Request(`https://${init.host ?? host}/api/session`, {
      method,
      headers: { host: init.host ?? host, "content-type": "application/json", ...(init.cookie ? { cookie: init.cookie } : {}) },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    }),
    deps(),
  );

/** The cookies a response sets, as a browser would send them back. */
const cookiesOf = (response: Response) =>
  response.headers
    .getSetCookie()
    .map((value) => value.split(";")[0] ?? "")
    .filter((pair) => !pair.endsWith("="))
    .join("; ");

async function challenge() {
  const response = await call("GET");
  const { nonce } = (await response.json()) as { nonce: string };
  return { nonce, cookie: cookiesOf(response) };
}

function message(address: `0x${string}`, nonce: string, overrides: Partial<Parameters<typeof createSiweMessage>[0]> = {}) {
  return createSiweMessage({ address, chainId, domain: host, nonce, uri: `https://${host}`, version: "1", issuedAt: new Date(), ...overrides });
}

describe("signing in with the wallet", () => {
  test("a message for this host with this browser's nonce, signed by its wallet, starts that wallet's session", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const { nonce, cookie } = await challenge();
    const text = message(wallet.address, nonce);
    const response = await call("POST", { cookie, body: { message: text, signature: await wallet.signMessage({ message: text }) } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ wallet: wallet.address });
    const session = response.headers.getSetCookie().find((value) => value.startsWith("x402_session="));
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Strict/);
    expect(session).toMatch(/Secure/);
    const signedIn = new Request(`https://${host}/api/spending`, { headers: { cookie: cookiesOf(response) } });
    expect(isSignedInAs(signedIn, wallet.address, env)).toBe(true);
    expect(isSignedInAs(signedIn, privateKeyToAccount(generatePrivateKey()).address, env)).toBe(false);
    // Who is signed in, as the page asks after a reload.
    expect(await (await call("GET", { cookie: cookiesOf(response) })).json()).toMatchObject({ wallet: wallet.address });
    // Signing out ends it.
    const out = await call("DELETE", { cookie: cookiesOf(response) });
    expect(out.headers.getSetCookie().some((value) => value.startsWith("x402_session=;") && value.includes("Max-Age=0"))).toBe(true);
  });

  test("anything else is a 401 and starts no session", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const other = privateKeyToAccount(generatePrivateKey());
    const { nonce, cookie } = await challenge();
    const elsewhere = await challenge();
    const attempts: Array<[string, { message: string; signer: typeof wallet; cookie: string | undefined }]> = [
      ["a message for another site", { message: message(wallet.address, nonce, { domain: "phishing.example" }), signer: wallet, cookie }],
      ["the nonce of another browser", { message: message(wallet.address, elsewhere.nonce), signer: wallet, cookie }],
      ["no nonce cookie at all", { message: message(wallet.address, nonce), signer: wallet, cookie: undefined }],
      ["a made-up nonce", { message: message(wallet.address, "0123456789abcdef0123456789"), signer: wallet, cookie: "x402_sign_in=0123456789abcdef0123456789" }],
      ["a message that expired", { message: message(wallet.address, nonce, { expirationTime: new Date(Date.now() - 1_000) }), signer: wallet, cookie }],
      ["a chain this agent does not pay on", { message: message(wallet.address, nonce, { chainId: 8453 }), signer: wallet, cookie }],
      ["another key's signature", { message: message(wallet.address, nonce), signer: other, cookie }],
    ];
    for (const [name, attempt] of attempts) {
      const response = await call("POST", {
        ...(attempt.cookie ? { cookie: attempt.cookie } : {}),
        body: { message: attempt.message, signature: await attempt.signer.signMessage({ message: attempt.message }) },
      });
      expect([name, response.status]).toEqual([name, 401]);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
      expect(response.headers.getSetCookie().some((value) => value.startsWith("x402_session=") && !value.startsWith("x402_session=;"))).toBe(false);
    }
    expect((await call("POST", { cookie, body: { message: "hello" } })).status).toBe(400);
  });
});
