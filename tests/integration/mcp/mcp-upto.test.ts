// A usage-priced (x402 `upto`) payment through the MCP door: the app is quoted "up to" the
// service's maximum, the person signs Permit2's witness transfer in the page, and getPayment and
// getSpending tell "up to $X, charged $Y" as the chain settled it. A wallet without a Permit2
// allowance signs the quote's gasless USDC permit for Permit2 too, and the approval sends both.
import { createPublicClient, createWalletClient, erc20Abi, http, maxUint256, parseEther, type Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PERMIT2_ADDRESS } from "@/lib/chain/permit2-address";
import { nestedTypedDataMessage, typedDataMessage, type NestedTypedDataForWallet, type TypedDataForWallet } from "@/lib/chain/typed-data";
import { findPayment } from "@/lib/payments/ledger";
import type { PaymentStatus } from "@/lib/protocol/lines";
import { clearDiscoveryCache } from "@/lib/x402/discovery";
import { startSandbox, type Sandbox } from "@/sandbox";
import { callTool, connectClient, createTestMcp, issueGrant, newGrant, ORIGIN, type TestMcp } from "@/tests/helpers/mcp";
import { newPayer, sandboxEnv, sandboxService, usdcBalance } from "@/tests/helpers/paid-chat";

let sandbox: Sandbox;
let mcp: TestMcp;
const TEXT = "The ledger was balanced. Every payment matched its invoice. Nobody was surprised.";

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  mcp = await createTestMcp({ env: sandboxEnv(sandbox) });
  clearDiscoveryCache();
}, 60_000);
afterAll(async () => {
  await mcp?.close();
  await sandbox?.stop();
});

async function payerWithPermit2(): Promise<PrivateKeyAccount> {
  const payer = await newPayer(sandbox);
  await sandbox.fund({ to: payer.address, eth: parseEther("0.1") });
  const wallet = createWalletClient({ account: payer, chain: foundry, transport: http(sandbox.info.rpcUrl) });
  await wallet.writeContract({ address: sandbox.info.usdc.address, abi: erc20Abi, functionName: "approve", args: [PERMIT2_ADDRESS, maxUint256] });
  return payer;
}

describe("an upto payment through MCP", () => {
  test("quoted up to the maximum; getPayment and getSpending say what was charged", async () => {
    const payer = await payerWithPermit2();
    const limits = { daily: 100_000n, weekly: 500_000n, monthly: 1_000_000n, perPayment: 50_000n };
    const { response, body } = await issueGrant(mcp, payer, newGrant(payer.address, limits), sandbox.info.chainId);
    expect(response.status, JSON.stringify(body)).toBe(201);
    const client = await connectClient(mcp, body.token ?? "");
    const summarize = sandboxService(sandbox, "summarize");

    const quoted = await callTool(client, "payForService", { url: summarize.url, method: "POST", body: { text: TEXT } });
    expect(quoted).toMatchObject({ status: "awaiting-approval", quote: { totalUsd: "0.02", upTo: "up to $0.02" } });
    const paymentId = String(quoted.paymentId);

    const page = (await (await mcp.fetch(`${ORIGIN}/api/mcp/payments/${paymentId}`)).json()) as { quote: PaymentStatus };
    const typedData = page.quote.approval?.typedData as NestedTypedDataForWallet;
    const signature = await payer.signTypedData({
      domain: typedData.domain,
      types: typedData.types,
      primaryType: typedData.primaryType,
      message: nestedTypedDataMessage(typedData),
    } as Parameters<PrivateKeyAccount["signTypedData"]>[0]);
    const approved = await mcp.fetch(`${ORIGIN}/api/mcp/payments/${paymentId}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      // The answers as a list, one per request of the quote's toSign (a wallet with Permit2 approved: the payment alone).
      body: JSON.stringify({ signed: [signature] }),
    });
    expect(approved.status).toBe(200);

    const charged = BigInt(TEXT.length) * 5n;
    const words = `up to $0.02, charged $0.000${charged}`;
    const outcome = await callTool(client, "getPayment", { paymentId, waitSeconds: 10 });
    expect(outcome).toMatchObject({ status: "delivered", upTo: words, data: { summary: expect.any(String) } });
    expect(await usdcBalance(sandbox)(payer.address)).toBe(1_000_000n - charged);
    expect(await findPayment(mcp.db, paymentId)).toMatchObject({ status: "settled", amount: charged, maxAmount: 20_000n });
    const spending = await callTool(client, "getSpending", { period: "day" });
    expect(spending).toMatchObject({ recentPayments: [{ upTo: words, amountUsd: `0.000${charged}` }] });
    await client.close();
  });

  test("a wallet without a Permit2 allowance or ETH: the page's quote asks for a USDC permit for Permit2; the approval without it, or with another, is refused with nothing reserved; with it, paid", async () => {
    const payer = await newPayer(sandbox);
    const chain = createPublicClient({ transport: http(sandbox.info.rpcUrl) });
    const allowance = () => chain.readContract({ address: sandbox.info.usdc.address, abi: erc20Abi, functionName: "allowance", args: [payer.address, PERMIT2_ADDRESS] });
    const limits = { daily: 100_000n, weekly: 500_000n, monthly: 1_000_000n, perPayment: 50_000n };
    const { response, body } = await issueGrant(mcp, payer, newGrant(payer.address, limits), sandbox.info.chainId);
    expect(response.status, JSON.stringify(body)).toBe(201);
    const client = await connectClient(mcp, body.token ?? "");
    const summarize = sandboxService(sandbox, "summarize");
    const quoted = await callTool(client, "payForService", { url: summarize.url, method: "POST", body: { text: TEXT } });
    const paymentId = String(quoted.paymentId);

    const page = (await (await mcp.fetch(`${ORIGIN}/api/mcp/payments/${paymentId}`)).json()) as { quote: PaymentStatus };
    const typedData = page.quote.approval?.typedData as NestedTypedDataForWallet;
    const [permitRequest] = page.quote.approval?.toSign ?? [];
    expect(page.quote.approval?.toSign).toHaveLength(2);
    const permit = (permitRequest?.kind === "typed-data" ? permitRequest.typedData : undefined) as TypedDataForWallet;
    expect(permit).toMatchObject({ primaryType: "Permit", message: { owner: payer.address, spender: PERMIT2_ADDRESS, value: "20000", nonce: "0" } });
    const signature = await payer.signTypedData({
      domain: typedData.domain,
      types: typedData.types,
      primaryType: typedData.primaryType,
      message: nestedTypedDataMessage(typedData),
    } as Parameters<PrivateKeyAccount["signTypedData"]>[0]);
    const signPermit = (data: TypedDataForWallet): Promise<Hex> =>
      payer.signTypedData({ domain: data.domain, types: data.types, primaryType: data.primaryType, message: typedDataMessage(data) } as Parameters<PrivateKeyAccount["signTypedData"]>[0]);
    const approve = (answer: Record<string, string>) =>
      mcp.fetch(`${ORIGIN}/api/mcp/payments/${paymentId}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(answer) });

    const answers: Array<Record<string, string>> = [{ signature }, { signature, permitSignature: await signPermit({ ...permit, message: { ...permit.message, value: "1" } }) }];
    for (const answer of answers) {
      const refused = await approve(answer);
      expect(refused.status).toBe(400);
      const error = ((await refused.json()) as { error: { code: string; message: string; details: { fields: Array<{ path: string }> } } }).error;
      expect(error.code).toBe("bad-request");
      expect(error.details.fields[0]?.path).toBe("payment.permitSignature");
      if (!("permitSignature" in answer)) expect(error.message).toMatch(/Approve Permit2 once/);
    }
    expect(await findPayment(mcp.db, paymentId)).toBeUndefined();

    const approved = await approve({ signature, permitSignature: await signPermit(permit) });
    expect(approved.status).toBe(200);
    const charged = BigInt(TEXT.length) * 5n;
    const outcome = await callTool(client, "getPayment", { paymentId, waitSeconds: 10 });
    expect(outcome).toMatchObject({ status: "delivered", upTo: `up to $0.02, charged $0.000${charged}` });
    expect(await usdcBalance(sandbox)(payer.address)).toBe(1_000_000n - charged);
    expect(await allowance()).toBe(20_000n - charged);
    expect(await chain.getBalance({ address: payer.address })).toBe(0n);
    await client.close();
  });
});

describe("an upto service that says it settled nothing, through MCP", () => {
  test("the app reads it delivered, charged $0 so far with the maximum held until the deadline, and the grant's limits count it", async () => {
    const payer = await payerWithPermit2();
    const limits = { daily: 100_000n, weekly: 500_000n, monthly: 1_000_000n, perPayment: 50_000n };
    const { body } = await issueGrant(mcp, payer, newGrant(payer.address, limits), sandbox.info.chainId);
    const client = await connectClient(mcp, body.token ?? "");
    const search = sandboxService(sandbox, "doc-search");
    const quoted = await callTool(client, "payForService", { url: search.url, query: { q: "unicorns" } });
    const paymentId = String(quoted.paymentId);
    const page = (await (await mcp.fetch(`${ORIGIN}/api/mcp/payments/${paymentId}`)).json()) as { quote: PaymentStatus };
    const typedData = page.quote.approval?.typedData as NestedTypedDataForWallet;
    const signature = await payer.signTypedData({
      domain: typedData.domain,
      types: typedData.types,
      primaryType: typedData.primaryType,
      message: nestedTypedDataMessage(typedData),
    } as Parameters<PrivateKeyAccount["signTypedData"]>[0]);
    const approved = await mcp.fetch(`${ORIGIN}/api/mcp/payments/${paymentId}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ signature }) });
    expect(approved.status).toBe(200);
    const deadline = new Date(Number((typedData.message as { deadline: string }).deadline) * 1000).toISOString();

    const outcome = await callTool(client, "getPayment", { paymentId, waitSeconds: 10 });
    expect(outcome).toMatchObject({ status: "delivered", upTo: "up to $0.015, charged $0 so far", held: { usd: "0.015", until: deadline } });
    expect(String(outcome.summary)).toMatch(/stays held against your limits until .* unless/);
    expect(await findPayment(mcp.db, paymentId)).toMatchObject({ status: "pending", amount: 15_000n });
    // The grant's limits count the maximum while it is held.
    const spending = await callTool(client, "getSpending", { period: "day" });
    expect(spending).toMatchObject({ periods: [{ period: "day", spentUsd: "0", heldUsd: "0.015" }], recentPayments: [{ status: "pending" }] });
    await client.close();
  });
});
