// Nothing expensive before the gate (nothing a stranger claims is trusted): an approval of a live quote is
// exempt from the cooldown, so a caller could send it again and again with a wrong signature;
// a per-client gate answers 429 before any signature check or chain read once the caller has
// asked too often, and an approval past its time is answered without asking the chain at all.
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createChatTools } from "@/lib/chat/tools";
import { createRateLimiter } from "@/lib/rate-limit";
import { startSandbox, type Sandbox, type SandboxServiceInfo } from "@/sandbox";
import { collectLines, createTestChat } from "@/tests/helpers/chat";
import { finishOf, fortuneOracle, modelCallingPayForService, newPayer, paymentsOf, requestQuote, sandboxEnv, sendApproval, signQuote } from "@/tests/helpers/paid-chat";
import { startStallingRpc, type StallingRpc } from "@/tests/helpers/stalling-rpc";

let sandbox: Sandbox;
let rpc: StallingRpc;
let oracle: SandboxServiceInfo;
beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  rpc = await startStallingRpc(sandbox.info.rpcUrl);
  oracle = await sandbox.addService(fortuneOracle("gated-oracle", 1_000n), { listed: false });
});
afterAll(async () => {
  await rpc?.close();
  await sandbox?.stop();
});

const env = () => sandboxEnv(sandbox, { [`RPC_URL_${sandbox.info.chainId}`]: rpc.url });

describe("the gate before an approval's expensive checks", () => {
  test("a caller past the gate's count is answered 429 before any signature check or chain read", async () => {
    const payer = await newPayer(sandbox);
    const target = await createTestChat({
      tools: createChatTools,
      env: env(),
      model: modelCallingPayForService({ url: oracle.url }),
      approvalGate: createRateLimiter({ limit: 3, windowMs: 60_000 }),
    });
    const quoted = await requestQuote(target, payer, "My fortune, please");
    const stranger = privateKeyToAccount(generatePrivateKey());
    const wrong = await signQuote(stranger, quoted.status);

    for (let attempt = 0; attempt < 3; attempt += 1) expect((await sendApproval(target, quoted, wrong)).status).toBe(400);
    const before = rpc.calls;
    const gated = await sendApproval(target, quoted, wrong);
    expect(gated.status).toBe(429);
    expect(Number(gated.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await gated.json()) as { error: { code: string } }).error.code).toBe("rate-limited");
    // Even the right signature waits its turn: nothing was read from the chain for either.
    expect((await sendApproval(target, quoted, await signQuote(payer, quoted.status))).status).toBe(429);
    expect(rpc.calls).toBe(before);
    await target.close();
  });

  test("an approval past its time is told so without a single chain read", async () => {
    const payer = await newPayer(sandbox);
    let now = new Date();
    const target = await createTestChat({ tools: createChatTools, env: env(), model: modelCallingPayForService({ url: oracle.url }), now: () => now });
    const quoted = await requestQuote(target, payer, "My fortune, please");
    const signature = await signQuote(payer, quoted.status);
    now = new Date(Date.parse(quoted.status.approval?.expiresAt ?? "") + 1_000);
    const before = rpc.calls;
    const lines = await collectLines(await sendApproval(target, quoted, signature));
    expect(paymentsOf(lines).map((status) => [status.status, status.reason?.code])).toEqual([["failed", "expired"]]);
    expect(finishOf(lines)?.finishReason).toBe("payment-failed");
    expect(rpc.calls).toBe(before);
    await target.close();
  });
});
