// A Solana payment is never released on the word of an RPC node that lags behind the one that
// quoted it: the expiry and history reads name the slot the payment was quoted at
// (`minContextSlot`), and a node that has not reached it refuses, as validators do, instead of
// calling a blockhash it does not know yet invalid or listing a history that ends before the
// payment. A loopback JSON-RPC server plays a node 50 slots behind.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { address } from "@solana/kit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { getSolanaSignaturesFor, isSolanaBlockhashValid, type SolanaNetworkConfig } from "@/lib/chain/solana";

const NODE_SLOT = 1_000;
let server: Server;
let network: SolanaNetworkConfig;

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const call = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: number; method: string; params: unknown[] };
    const options = (call.params.at(-1) ?? {}) as { minContextSlot?: number };
    const answer = (body: Record<string, unknown>) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ jsonrpc: "2.0", id: call.id, ...body }));
    };
    // As a validator answers a slot it has not reached.
    if (options.minContextSlot !== undefined && options.minContextSlot > NODE_SLOT) {
      return answer({ error: { code: -32016, message: "Minimum context slot has not been reached", data: { contextSlot: NODE_SLOT } } });
    }
    // Behind: it has not seen the blockhash, nor the payment's transaction.
    if (call.method === "isBlockhashValid") return answer({ result: { context: { slot: NODE_SLOT }, value: false } });
    if (call.method === "getSignaturesForAddress") return answer({ result: [] });
    return answer({ error: { code: -32601, message: "Method not found" } });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  network = {
    id: "solana:lagging",
    reference: "lagging",
    name: "Solana (lagging node)",
    testnet: true,
    usdc: { mint: address("4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU"), decimals: 6 },
    rpcUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    transactionUrl: "http://127.0.0.1/tx/{txHash}",
  } as SolanaNetworkConfig;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const blockhash = "4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi";
const quotedAt = BigInt(NODE_SLOT + 50);

test("a node behind the quote's slot refuses to say the blockhash expired", async () => {
  await expect(isSolanaBlockhashValid({ network, blockhash, minContextSlot: quotedAt })).rejects.toThrow(/Minimum context slot/);
  // Without the slot, the same node would say it expired: what a payment was released on before.
  expect(await isSolanaBlockhashValid({ network, blockhash })).toBe(false);
});

test("a node behind the quote's slot refuses to list a history that ends before the payment", async () => {
  const account = address("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM");
  await expect(getSolanaSignaturesFor({ network, account, limit: 10, minContextSlot: quotedAt })).rejects.toThrow(/Minimum context slot/);
  expect(await getSolanaSignaturesFor({ network, account, limit: 10 })).toEqual([]);
});
