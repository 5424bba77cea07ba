// MCP's tools pay MPP services too (docs/contract.md, sections 11 and 12): an AI app with an access
// grant finds the sandbox's mppx services beside the x402 ones, quotes one, the person approves in
// the page with their wallet, and getPayment hands over the data; the chain and the ledger agree.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findPayment } from "@/lib/payments/ledger";
import type { PaymentStatus } from "@/lib/protocol/lines";
import { startSandbox, type Sandbox } from "@/sandbox";
import { callTool, connectClient, createTestMcp, issueGrant, newGrant, ORIGIN, type TestMcp } from "@/tests/helpers/mcp";
import { newPayer, sandboxEnv, sandboxService, signQuote, usdcBalance, type Payer } from "@/tests/helpers/paid-chat";

let sandbox: Sandbox;
let mcp: TestMcp;
let balanceOf: ReturnType<typeof usdcBalance>;

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  balanceOf = usdcBalance(sandbox);
  mcp = await createTestMcp({ env: sandboxEnv(sandbox) });
});
afterAll(async () => {
  await mcp?.close();
  await sandbox?.stop();
});

const limits = { daily: 50_000n, weekly: 100_000n, monthly: 500_000n, perPayment: 50_000n };

async function grantedClient(payer: Payer & Parameters<typeof issueGrant>[1]): Promise<Client> {
  const { response, body } = await issueGrant(mcp, payer, newGrant(payer.address, limits), sandbox.info.chainId);
  expect(response.status, JSON.stringify(body)).toBe(201);
  return connectClient(mcp, body.token ?? "");
}

describe("an AI app paying an MPP service", () => {
  test("discovers it beside x402 services, quotes it, the page approves, getPayment returns the data", async () => {
    const payer = await newPayer(sandbox);
    const client = await grantedClient(payer);
    const entry = sandboxService(sandbox, "weather-mpp");
    const compared = await callTool(client, "comparePrices", { query: "weather" });
    expect((compared.services as Array<{ name: string; protocol: string }>).map((listing) => [listing.name, listing.protocol])).toContainEqual(["Meteo Machine", "mpp"]);

    const before = await balanceOf(payer.address);
    const quoted = await callTool(client, "payForService", { url: entry.url, query: { city: "Lisbon" } });
    expect(quoted).toMatchObject({ status: "awaiting-approval", quote: { service: "Meteo Machine", protocol: "mpp", totalUsd: entry.price, network: sandbox.info.network } });
    const paymentId = String(quoted.paymentId);

    const page = await mcp.fetch(`${ORIGIN}/api/mcp/payments/${paymentId}`);
    const { quote } = (await page.json()) as { quote: PaymentStatus };
    expect(quote).toMatchObject({ protocol: "mpp", status: "awaiting-signature" });
    const approved = await mcp.fetch(`${ORIGIN}/api/mcp/payments/${paymentId}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ signature: await signQuote(payer, quote) }),
    });
    const body = (await approved.json()) as { updates?: PaymentStatus[]; data?: unknown };
    expect(approved.status, JSON.stringify(body)).toBe(200);
    expect(body.updates?.map((update) => update.status)).toEqual(["submitted", "confirmed", "delivered"]);
    expect(body.data).toMatchObject({ city: "Lisbon", provider: "Meteo Machine" });

    const outcome = await callTool(client, "getPayment", { paymentId, waitSeconds: 10 });
    expect(outcome).toMatchObject({ status: "delivered", data: { city: "Lisbon" } });
    expect(await balanceOf(payer.address)).toBe(before - BigInt(entry.priceAtomic));
    expect(await findPayment(mcp.db, paymentId)).toMatchObject({ status: "settled", txHash: outcome.txHash, scheme: "mpp-evm-charge" });
    await client.close();
  });
});
