// Signing in with the wallet (docs/contract.md, section 9) through /api/session's own handlers: a
// message for this deployment's origin (APP_URL, whatever Host the request names), with the nonce
// this browser's challenge stands for, signed by the wallet it names, starts a session that GET
// /api/spending honours with the wallet's history; an EVM wallet signs EIP-4361, a Solana wallet
// the same text for its Solana account. Anything else (another site, another browser's, an old or
// a spent nonce, a signature of another key, a chain not paid on) is a 401, and no session starts.
import { generateKeyPairSigner, getBase58Decoder, signBytes } from "@solana/kit";
import { createSignInMessageText } from "@solana/wallet-standard-util";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Database } from "@/lib/db";
import { parseServerEnv, type ServerEnv } from "@/lib/env";
import { createRateLimiter } from "@/lib/rate-limit";
import { handleSessionRequest, isSignedInAs, sessionWallets } from "@/lib/session";
import { startSandbox, type Sandbox } from "@/sandbox";
import { openTestDatabase } from "@/tests/helpers/database";
import { sandboxEnv } from "@/tests/helpers/paid-chat";

// The sandbox chain answers whether an address that did not sign is a contract account (ERC-1271).
let sandbox: Sandbox;
let env: ServerEnv;
let db: Database;
let chainId: number;
const host = "app.example";
const origin = `https://${host}`;
beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  env = parseServerEnv(sandboxEnv(sandbox, { APP_URL: origin }));
  chainId = sandbox.info.chainId;
  db = await openTestDatabase();
});
afterAll(async () => {
  await db?.close();
  await sandbox?.stop();
});
const deps = (overrides: { env?: ServerEnv; now?: Date } = {}) => ({
  env: () => overrides.env ?? env,
  database: async () => db,
  rateLimit: createRateLimiter({ limit: 1_000, windowMs: 60_000 }),
  ...(overrides.now ? { now: () => overrides.now as Date } : {}),
});
const call = (method: string, init: { cookie?: string; body?: unknown; host?: string; headers?: Record<string, string>; env?: ServerEnv; now?: Date } = {}) =>
  handleSessionRequest(
    new Request(`http://${init.host ?? host}/api/session`, {
      method,
      headers: { host: init.host ?? host, "content-type": "application/json", ...(init.cookie ? { cookie: init.cookie } : {}), ...init.headers },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    }),
    deps({ ...(init.env ? { env: init.env } : {}), ...(init.now ? { now: init.now } : {}) }),
  );

/** The cookies a response sets, as a browser would send them back. */
const cookiesOf = (response: Response) =>
  response.headers
    .getSetCookie()
    .map((value) => value.split(";")[0] ?? "")
    .filter((pair) => !pair.endsWith("="))
    .join("; ");

async function challenge(init: { env?: ServerEnv } = {}) {
  const response = await call("GET", init);
  const body = (await response.json()) as { nonce: string; domain: string; uri: string };
  return { ...body, cookie: cookiesOf(response) };
}

function message(address: `0x${string}`, nonce: string, overrides: Partial<Parameters<typeof createSiweMessage>[0]> = {}) {
  return createSiweMessage({ address, chainId, domain: host, nonce, uri: origin, version: "1", issuedAt: new Date(), ...overrides });
}

const startsSession = (response: Response) => response.headers.getSetCookie().some((value) => value.startsWith("x402_session=") && !value.startsWith("x402_session=;"));

async function refusal(response: Response) {
  expect(response.status).toBe(401);
  expect(startsSession(response)).toBe(false);
  return ((await response.json()) as { error: { code: string; message: string } }).error;
}

describe("signing in with an EVM wallet", () => {
  test("a message for this deployment with this browser's nonce, signed by its wallet, starts that wallet's session", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const { nonce, cookie, domain, uri } = await challenge();
    // The page is told what the message must name: the configured origin, not the request's Host.
    expect({ domain, uri }).toEqual({ domain: host, uri: origin });
    const text = message(wallet.address, nonce);
    const response = await call("POST", { cookie, body: { message: text, signature: await wallet.signMessage({ message: text }) } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ wallet: wallet.address });
    const session = response.headers.getSetCookie().find((value) => value.startsWith("x402_session="));
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Strict/);
    // Secure because the deployment is served over https, though this request came over http.
    expect(session).toMatch(/Secure/);
    const signedIn = new Request(`${origin}/api/spending`, { headers: { cookie: cookiesOf(response) } });
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
    const [secret, expiry] = (cookie.split("=")[1] ?? "").split(".");
    const attempts: Array<[string, { message: string; signer: typeof wallet; cookie: string | undefined }]> = [
      ["a message for another site", { message: message(wallet.address, nonce, { domain: "phishing.example" }), signer: wallet, cookie }],
      ["a message whose URI is another site", { message: message(wallet.address, nonce, { uri: "https://phishing.example/login" }), signer: wallet, cookie }],
      ["a message for this host over plain http", { message: message(wallet.address, nonce, { uri: `http://${host}` }), signer: wallet, cookie }],
      ["the nonce of another browser", { message: message(wallet.address, elsewhere.nonce), signer: wallet, cookie }],
      ["no challenge cookie at all", { message: message(wallet.address, nonce), signer: wallet, cookie: undefined }],
      ["the nonce itself as the cookie", { message: message(wallet.address, nonce), signer: wallet, cookie: `x402_sign_in=${nonce}` }],
      ["a challenge whose expiry was moved", { message: message(wallet.address, nonce), signer: wallet, cookie: `x402_sign_in=${secret}.${Number(expiry) + 600}` }],
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
      expect([name, (await refusal(response)).code]).toEqual([name, "unauthorized"]);
    }
    expect((await call("POST", { cookie, body: { message: "hello" } })).status).toBe(400);
    // None of the refusals spent the nonce: the right message still signs in.
    const text = message(wallet.address, nonce);
    expect((await call("POST", { cookie, body: { message: text, signature: await wallet.signMessage({ message: text }) } })).status).toBe(200);
  });

  test("the request's Host and forwarded headers choose nothing: a sign-in for the host they name is refused", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const { nonce, cookie } = await challenge();
    // A phishing page had the wallet sign in to its own domain with a nonce fetched from here.
    const text = message(wallet.address, nonce, { domain: "phishing.example", uri: "https://phishing.example" });
    const signature = await wallet.signMessage({ message: text });
    const games: Array<{ host: string; headers: Record<string, string> }> = [
      { host: "phishing.example", headers: {} },
      { host, headers: { "x-forwarded-host": "phishing.example", "x-forwarded-proto": "https" } },
    ];
    for (const game of games) {
      const response = await call("POST", { cookie, host: game.host, headers: game.headers, body: { message: text, signature } });
      expect((await refusal(response)).message).toContain(`not for ${origin}`);
    }
  });

  test("one signed message signs in once: sent again, with the same cookie, it is refused, also by another instance", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const { nonce, cookie } = await challenge();
    const text = message(wallet.address, nonce);
    const body = { message: text, signature: await wallet.signMessage({ message: text }) };
    expect((await call("POST", { cookie, body })).status).toBe(200);
    expect((await refusal(await call("POST", { cookie, body }))).message).toContain("used already");
    // A second instance with the same key and database agrees.
    const instance = parseServerEnv(sandboxEnv(sandbox, { APP_URL: origin }));
    expect((await refusal(await call("POST", { cookie, body, env: instance }))).message).toContain("used already");
  });

  test("a nonce is good for ten minutes: eleven minutes on, the same browser's signed message is refused", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const { nonce, cookie } = await challenge();
    const text = message(wallet.address, nonce);
    const body = { message: text, signature: await wallet.signMessage({ message: text }) };
    expect((await refusal(await call("POST", { cookie, body, now: new Date(Date.now() + 11 * 60_000) }))).message).toContain("ask for a new sign-in message");
    // Within the ten minutes it still signs in.
    expect((await call("POST", { cookie, body, now: new Date(Date.now() + 9 * 60_000) })).status).toBe(200);
  });

  test("a deployment served over plain http sets no Secure cookie, whatever a forwarded header says", async () => {
    const local = parseServerEnv(sandboxEnv(sandbox, { APP_URL: `http://${host}` }));
    const wallet = privateKeyToAccount(generatePrivateKey());
    const { nonce, cookie, uri } = await challenge({ env: local });
    expect(uri).toBe(`http://${host}`);
    const text = message(wallet.address, nonce, { uri });
    const response = await call("POST", { env: local, cookie, headers: { "x-forwarded-proto": "https" }, body: { message: text, signature: await wallet.signMessage({ message: text }) } });
    expect(response.status).toBe(200);
    expect(response.headers.getSetCookie().find((value) => value.startsWith("x402_session="))).not.toMatch(/Secure/);
  });
});

describe("signing in with a Solana wallet", () => {
  async function solanaKey() {
    const signer = await generateKeyPairSigner();
    const sign = async (text: string) => getBase58Decoder().decode(await signBytes(signer.keyPair.privateKey, new TextEncoder().encode(text)));
    return { address: signer.address as string, sign };
  }
  const solanaMessage = (address: string, nonce: string, overrides: Partial<Parameters<typeof createSignInMessageText>[0]> = {}) =>
    createSignInMessageText({ domain: host, address, statement: "Sign in to see your own x402 payments.", uri: origin, version: "1", nonce, issuedAt: new Date().toISOString(), ...overrides });

  test("the same text for a Solana account, signed by its key, starts its session beside an EVM wallet's", async () => {
    const evm = privateKeyToAccount(generatePrivateKey());
    const first = await challenge();
    const evmText = message(evm.address, first.nonce);
    const evmSession = cookiesOf(await call("POST", { cookie: first.cookie, body: { message: evmText, signature: await evm.signMessage({ message: evmText }) } }));

    const wallet = await solanaKey();
    const { nonce, cookie } = await challenge();
    const text = solanaMessage(wallet.address, nonce);
    const response = await call("POST", { cookie: `${cookie}; ${evmSession}`, body: { message: text, signature: await wallet.sign(text) } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ solanaWallet: wallet.address });
    const both = new Request(`${origin}/api/spending`, { headers: { cookie: cookiesOf(response) } });
    expect(sessionWallets(both, env).sort()).toEqual([evm.address, wallet.address].sort());
  });

  test("the same rules: this deployment, this browser's nonce, once, the wallet's own key", async () => {
    const wallet = await solanaKey();
    const other = await solanaKey();
    const { nonce, cookie } = await challenge();
    const elsewhere = await challenge();
    const attempts: Array<[string, { text: string; sign: (text: string) => Promise<string> }]> = [
      ["another site", { text: solanaMessage(wallet.address, nonce, { domain: "phishing.example" }), sign: wallet.sign }],
      ["another URI", { text: solanaMessage(wallet.address, nonce, { uri: "https://phishing.example" }), sign: wallet.sign }],
      ["another browser's nonce", { text: solanaMessage(wallet.address, elsewhere.nonce), sign: wallet.sign }],
      ["an expired message", { text: solanaMessage(wallet.address, nonce, { expirationTime: new Date(Date.now() - 1_000).toISOString() }), sign: wallet.sign }],
      ["another key's signature", { text: solanaMessage(wallet.address, nonce), sign: other.sign }],
    ];
    for (const [name, attempt] of attempts) {
      const response = await call("POST", { cookie, body: { message: attempt.text, signature: await attempt.sign(attempt.text) } });
      expect([name, response.status]).toEqual([name, 401]);
      await refusal(response);
    }
    const text = solanaMessage(wallet.address, nonce);
    const body = { message: text, signature: await wallet.sign(text) };
    expect((await call("POST", { cookie, body })).status).toBe(200);
    expect((await refusal(await call("POST", { cookie, body }))).message).toContain("used already");
  });
});

describe("the sign-in body", () => {
  // A sign-in that would start a session were its body read as any JSON: each refusal below is the body's alone.
  async function validSignIn() {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const { nonce, cookie } = await challenge();
    const text = message(wallet.address, nonce);
    return { cookie, body: { message: text, signature: await wallet.signMessage({ message: text }) } };
  }
  const post = (cookie: string, contentType: string, body: string) =>
    handleSessionRequest(new Request(`http://${host}/api/session`, { method: "POST", headers: { host, cookie, "content-type": contentType }, body }), deps());

  test("not declared application/json is a 415 and starts no session", async () => {
    const { cookie, body } = await validSignIn();
    for (const contentType of ["text/plain", "text/plain; charset=application/json"]) {
      const response = await post(cookie, contentType, JSON.stringify(body));
      expect([contentType, response.status]).toEqual([contentType, 415]);
      expect(startsSession(response)).toBe(false);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("unsupported-media-type");
    }
  });

  test("a body past 32 KiB is a 413 and starts no session, even when it is a valid sign-in padded out", async () => {
    const { cookie, body } = await validSignIn();
    const response = await post(cookie, "application/json", `${JSON.stringify(body)}${" ".repeat(33 * 1024)}`);
    expect(response.status).toBe(413);
    expect(startsSession(response)).toBe(false);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(((await response.json()) as { error: { code: string } }).error).toMatchObject({ code: "payload-too-large", details: { limitBytes: 32 * 1024 } });
    // Neither refusal spent the nonce: the same sign-in, sent as the page sends it, starts the session.
    expect(startsSession(await post(cookie, "application/json", JSON.stringify(body)))).toBe(true);
  });
});
