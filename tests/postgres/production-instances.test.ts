// Production mode end to end: the built app (`next build`, `next start`, NODE_ENV=production,
// not the sandbox mode of `npm run demo`) as two instances on two ports sharing one PostgreSQL
// database and one PAYMENT_TOKEN_SECRET, as a host with several instances runs it. A quote from
// one instance is approved at the other; the cooldown, the limits and the replay protection hold
// across both. The chain, USDC, facilitator, registry and services are the sandbox's; the person's
// wallet is a test key.
import type { ChildProcess } from "node:child_process";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { isFinishLine, type StreamLine } from "@/lib/protocol/lines";
import { formatUsd } from "@/lib/money";
import { startSandbox, type Sandbox } from "@/sandbox";
import { ensureBuild, productBuild, SANDBOX_PUBLIC_ENV, startNext, stopGroup, waitForApp } from "@/sandbox/next-app";
import { freePort, SANDBOX_HOST } from "@/sandbox/ports";
import { collectLines, type TestChat } from "@/tests/helpers/chat";
import { createScratchDatabase, testServerUrl, type ScratchDatabase } from "@/tests/helpers/database";
import {
  generousLimits,
  newPayer,
  requestQuote,
  sandboxEnv,
  sandboxService,
  sendApproval,
  signQuote,
  usdcBalance,
} from "@/tests/helpers/paid-chat";

const SECRET = "one-approval-key-shared-by-every-instance";

let sandbox: Sandbox;
let scratch: ScratchDatabase;
const apps: ChildProcess[] = [];

/** What the host gives each instance: the production environment, nothing from the test runner. */
function instanceEnv(port: number, overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    PORT: String(port),
    ...sandboxEnv(sandbox, {
      PAYMENT_TOKEN_SECRET: SECRET,
      // Every instance serves one public origin, as behind a host's load balancer.
      APP_URL: "https://agent.example",
      // The tests are one client: every caller counts as one, on purpose.
      CLIENT_IDENTITY: "shared",
      DATABASE_URL: scratch.url,
      MODEL_PROVIDER: "offline",
      CHAT_COOLDOWN_SECONDS: "50",
      // The sandbox's services listen on loopback, which a production server refuses by default.
      X402_ALLOW_PRIVATE_ADDRESSES: "127.0.0.1",
    }),
    ...overrides,
  };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
  return env;
}

async function startInstance(): Promise<Pick<TestChat, "post">> {
  const port = await freePort();
  const app = startNext({ root: process.cwd(), port, host: SANDBOX_HOST, env: instanceEnv(port), stdio: ["ignore", "ignore", "inherit"] });
  apps.push(app);
  const baseUrl = `http://${SANDBOX_HOST}:${port}`;
  await waitForApp(`${baseUrl}/`, app);
  return {
    post: (body, init = {}) =>
      fetch(`${baseUrl}/api/chat`, {
        method: "POST",
        headers: { "content-type": "application/json", ...init.headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
        ...(init.signal ? { signal: init.signal } : {}),
      }),
  };
}

/** Runs `next start` with this environment until it exits; its exit code and what it printed. */
async function startAndWaitForExit(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  const port = Number(env.PORT);
  const app = startNext({ root: process.cwd(), port, host: SANDBOX_HOST, env, stdio: ["ignore", "pipe", "pipe"] });
  apps.push(app);
  let stderr = "";
  app.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  app.stdout?.resume();
  const code = await new Promise<number | null>((resolve) => app.once("exit", resolve));
  return { code, stderr };
}

const finishOf = (lines: StreamLine[]) => lines.filter(isFinishLine).at(-1)?.data;

let first: Pick<TestChat, "post">;
let second: Pick<TestChat, "post">;

beforeAll(async () => {
  const serverUrl = testServerUrl();
  if (!serverUrl) throw new Error("the PostgreSQL pass sets TEST_DATABASE_URL");
  // The build `npm test`'s end-to-end run made is reused when it is current.
  await ensureBuild(productBuild(process.cwd(), SANDBOX_PUBLIC_ENV), {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
  });
  [sandbox, scratch] = await Promise.all([
    startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false }),
    createScratchDatabase(serverUrl),
  ]);
  [first, second] = await Promise.all([startInstance(), startInstance()]);
}, 900_000);

afterAll(async () => {
  await Promise.all(apps.map(stopGroup));
  await sandbox?.stop();
  await scratch?.drop();
});

describe("two production instances sharing one PostgreSQL", () => {
  test("a quote from one is approved at the other; the cooldown, the limits and the replay protection hold across both", { timeout: 180_000 }, async () => {
    const service = sandboxService(sandbox, "weather-budget");
    const price = BigInt(service.priceAtomic);
    const balanceOf = usdcBalance(sandbox);
    const payer = await newPayer(sandbox);
    // Room for one payment today, not two.
    const limits = { ...generousLimits, daily: formatUsd((price * 3n) / 2n) };

    const lisbon = await requestQuote(first, payer, "What's the weather in Lisbon?", limits);
    expect(lisbon.status.service?.url).toBe(service.url);

    // The cooldown the first instance claimed holds at the second.
    const tooSoon = await second.post({ ...lisbon.body, messages: [{ role: "user", content: "And in Paris?" }] });
    expect(tooSoon.status).toBe(429);
    expect(Number(tooSoon.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await tooSoon.json()).toMatchObject({ error: { code: "rate-limited" } });

    // The cooldown passes (the shared store's clock moved back an hour), and the second instance quotes too.
    const admin = new pg.Client({ connectionString: scratch.url });
    await admin.connect();
    try {
      await admin.query("UPDATE chat_cooldowns SET last_message_at = last_message_at - interval '1 hour'");
    } finally {
      await admin.end();
    }
    const paris = await requestQuote(second, payer, "What's the weather in Paris?", limits);

    // Each quote approved at the other instance, at once: the daily limit lets exactly one pay.
    const before = await balanceOf(payer.address);
    const [lisbonApproved, parisApproved] = await Promise.all([
      sendApproval(second, lisbon, await signQuote(payer, lisbon.status)),
      sendApproval(first, paris, await signQuote(payer, paris.status)),
    ]);
    const responses = [lisbonApproved, parisApproved];
    const paid = responses.find((response) => response.status === 200);
    const refused = responses.find((response) => response.status !== 200);
    expect(paid).toBeDefined();
    expect(refused?.status).toBe(403);
    expect(await refused?.json()).toMatchObject({ error: { code: "limit-exceeded" } });
    const done = finishOf(await collectLines(paid as Response));
    expect(done).toMatchObject({ finishReason: "payment-complete" });
    expect(await balanceOf(payer.address)).toBe(before - price);

    // The paid approval sent again, to the instance that did not take it, reports the same payment.
    const [winner, winnerTakenBy] = paid === lisbonApproved ? [lisbon, second] : [paris, first];
    const otherInstance = winnerTakenBy === first ? second : first;
    const again = await sendApproval(otherInstance, winner, await signQuote(payer, winner.status));
    expect(again.status).toBe(200);
    expect(finishOf(await collectLines(again))).toMatchObject({ finishReason: "payment-complete", txHash: done?.txHash });
    expect(await balanceOf(payer.address)).toBe(before - price);
  });

  test("a production instance without PAYMENT_TOKEN_SECRET refuses to start, naming it", { timeout: 120_000 }, async () => {
    const port = await freePort();
    const { code, stderr } = await startAndWaitForExit(instanceEnv(port, { PAYMENT_TOKEN_SECRET: undefined }));
    expect(code).toBe(1);
    expect(stderr).toContain("Refusing to start: PAYMENT_TOKEN_SECRET must be set in production");
  });

  test("a production instance without its public origin refuses to start, naming APP_URL", { timeout: 120_000 }, async () => {
    const port = await freePort();
    const { code, stderr } = await startAndWaitForExit(instanceEnv(port, { APP_URL: undefined }));
    expect(code).toBe(1);
    expect(stderr).toContain("Refusing to start: APP_URL must be set in production");
  });

  test("a production instance on a serverless host without DATABASE_URL refuses to start, naming it", { timeout: 120_000 }, async () => {
    const port = await freePort();
    const { code, stderr } = await startAndWaitForExit(
      instanceEnv(port, { DATABASE_URL: undefined, AWS_LAMBDA_FUNCTION_NAME: "x402-payment-agent" }),
    );
    expect(code).toBe(1);
    expect(stderr).toContain("Refusing to start: DATABASE_URL must be set on a serverless host (AWS_LAMBDA_FUNCTION_NAME is set)");
  });
});
