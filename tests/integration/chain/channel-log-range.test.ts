// A pay-as-you-go channel's history read through an RPC that refuses wide `eth_getLogs` ranges, as
// hosted providers do: the search from block 0 goes in windows no wider than the provider takes,
// finds a real deposit and its refund blocks apart, and the rail searches in the windows the
// configuration names (CHAIN_LOG_RANGE_BLOCKS). Real anvil, the sandbox's channel contract and
// TickStream, the real x402 headers; the limit is a loopback proxy in front of the chain.
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequirements } from "@x402/core/types";
import { createPublicClient, createTestClient, http, keccak256, toHex, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { typedDataMessage, type TypedDataForWallet } from "@/lib/chain/typed-data";
import { parseServerEnv } from "@/lib/env";
import type { WalletRequest } from "@/lib/payments/payment";
import { paymentRails } from "@/lib/payments/rails";
import { channelHistory, DEFAULT_LOG_RANGE_BLOCKS } from "@/lib/payments/rails/evm/channel/chain";
import { completeChannelPayload, prepareChannelOpening, prepareRefund } from "@/lib/payments/rails/evm/channel/prepare";
import { chainEnvOf, startSandbox, type Sandbox } from "@/sandbox";
import { startRangeLimitedRpc, type RangeLimitedRpc } from "@/tests/helpers/range-limited-rpc";

/** The widest search the proxy answers, far under the default window so that window is refused. */
const PROVIDER_LIMIT = 50n;

let sandbox: Sandbox;
let rpc: RangeLimitedRpc;

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  rpc = await startRangeLimitedRpc(sandbox.info.rpcUrl, { maxBlocks: PROVIDER_LIMIT });
}, 90_000);
afterAll(async () => {
  await rpc?.close();
  await sandbox?.stop();
});

// No retries: a refusal is the answer under test, not a hiccup to wait out.
const limited = () => createPublicClient({ chain: foundry, transport: http(rpc.url, { retryCount: 0 }) });
const direct = () => createPublicClient({ chain: foundry, transport: http(sandbox.info.rpcUrl) });
const mine = (blocks: number) => createTestClient({ chain: foundry, mode: "anvil", transport: http(sandbox.info.rpcUrl) }).mine({ blocks });
const randomChannelId = (): Hex => keccak256(crypto.getRandomValues(new Uint8Array(32)));

/** The ranges searched since `before` searches were kept: consecutive windows of at most the provider's limit covering `from..to`. */
function expectWindows(before: number, from: bigint, to: bigint) {
  const windows = rpc.searched.slice(before);
  expect(windows.length).toBeGreaterThan(1);
  expect(windows[0]?.from).toBe(from);
  expect(windows.at(-1)?.to).toBe(to);
  windows.forEach((window, index) => {
    expect(window.to - window.from + 1n).toBeLessThanOrEqual(PROVIDER_LIMIT);
    if (index > 0) expect(window.from).toBe((windows[index - 1]?.to ?? -1n) + 1n);
  });
}

function tickUrl(): string {
  const entry = sandbox.info.services.find((service) => service.name === "market-ticks");
  if (!entry) throw new Error("no market-ticks service");
  return `${entry.url}?symbol=NVDA`;
}

async function channelRequirement(): Promise<PaymentRequirements> {
  const response = await fetch(tickUrl());
  expect(response.status).toBe(402);
  const option = decodePaymentRequiredHeader(response.headers.get("payment-required") ?? "").accepts.find((accept) => accept.scheme === "batch-settlement");
  if (!option) throw new Error("TickStream offers no channel");
  return option;
}

/** Signs a request as the browser does: the typed data as it traveled, its integers read back. */
function sign(request: WalletRequest | undefined, key: PrivateKeyAccount): Promise<Hex> {
  if (request?.kind !== "typed-data") throw new Error("a channel asks only for typed data");
  const typedData = request.typedData as TypedDataForWallet;
  const { EIP712Domain: _domain, ...types } = typedData.types;
  return key.signTypedData({ domain: typedData.domain, types, primaryType: typedData.primaryType, message: typedDataMessage(typedData) });
}

async function paidCall(payload: ReturnType<typeof completeChannelPayload>) {
  const response = await fetch(tickUrl(), { headers: { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payload) } });
  const header = response.headers.get("payment-response");
  return { status: response.status, body: await response.text(), settlement: header ? decodePaymentResponseHeader(header) : undefined };
}

describe("a channel's history through an RPC that refuses wide log ranges", () => {
  test("the proxy refuses a search wider than its limit, and the windowed search of the whole chain answers", async () => {
    await mine(Number(3n * PROVIDER_LIMIT));
    const latest = await direct().getBlockNumber({ cacheTime: 0 });
    expect(latest).toBeGreaterThan(2n * PROVIDER_LIMIT);
    const channelId = randomChannelId();

    // One request for the whole chain, as the default window is on a chain this short: refused.
    expect(DEFAULT_LOG_RANGE_BLOCKS).toBeGreaterThan(latest);
    const refusedBefore = rpc.refused;
    await expect(channelHistory(limited(), channelId, { fromBlock: 0n })).rejects.toThrow(/block range is too wide/);
    await expect(channelHistory(limited(), channelId, { fromBlock: 0n, rangeBlocks: latest + 1n })).rejects.toThrow(/block range is too wide/);
    expect(rpc.refused).toBe(refusedBefore + 2);

    // In windows of the provider's limit, from block 0 to the latest: nothing for a channel never opened.
    const searchedBefore = rpc.searched.length;
    expect(await channelHistory(limited(), channelId, { fromBlock: 0n, rangeBlocks: PROVIDER_LIMIT })).toEqual({ deposits: [], returned: [] });
    expect(rpc.refused).toBe(refusedBefore + 2);
    expectWindows(searchedBefore, 0n, latest);
  });

  test("a real deposit and its refund, more than a window apart, are both found, in order, and the rail searches in the configured windows", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const channelKey = privateKeyToAccount(generatePrivateKey());
    await sandbox.fund({ to: wallet.address, usdc: 1_000_000n });
    const requirement = await channelRequirement();
    const price = BigInt(requirement.amount);
    const deposit = 5n * price;
    const opening = await prepareChannelOpening({ requirements: requirement, payer: wallet.address, channelKey: channelKey.address, salt: keccak256(toHex(`log-range-${wallet.address}`)), deposit });
    const first = await paidCall(completeChannelPayload(opening.unsignedPayload, [await sign(opening.toSign[0], wallet), await sign(opening.toSign[1], channelKey)]));
    expect(first.status, first.body).toBe(200);
    const depositBlock = await direct().getBlockNumber({ cacheTime: 0 });

    // The refund lands well past one window of the deposit.
    await mine(Number(2n * PROVIDER_LIMIT));
    const refund = await prepareRefund({ requirements: requirement, config: opening.config, charged: price });
    const closed = await paidCall(completeChannelPayload(refund.unsignedPayload, [await sign(refund.toSign[0], channelKey)]));
    expect(closed.status, closed.body).toBe(200);
    expect(closed.settlement).toMatchObject({ success: true, amount: (deposit - price).toString() });
    await sandbox.channelActivity("market-ticks");
    await mine(Number(PROVIDER_LIMIT));
    const latest = await direct().getBlockNumber({ cacheTime: 0 });
    expect(latest - depositBlock).toBeGreaterThan(2n * PROVIDER_LIMIT);

    const searchedBefore = rpc.searched.length;
    const history = await channelHistory(limited(), opening.channelId, { fromBlock: 0n, rangeBlocks: PROVIDER_LIMIT });
    expect(history).toEqual({
      deposits: [{ amount: deposit, txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) }],
      returned: [{ amount: deposit - price, txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/), kind: "refund" }],
    });
    expectWindows(searchedBefore, 0n, latest);
    // The same events the chain gives to one unlimited search.
    expect(await channelHistory(direct(), opening.channelId, { fromBlock: 0n, rangeBlocks: latest + 1n })).toEqual(history);

    // The rail reads the window from its configuration: the provider's limit is answered, the default is refused.
    const railReturned = async (extra: Record<string, string>) => {
      const env = parseServerEnv({ ...chainEnvOf(sandbox.info), [`RPC_URL_${sandbox.info.chainId}`]: rpc.url, ...extra });
      const found = paymentRails(env).findScheme(sandbox.info.network, "batch-settlement");
      if (!found?.scheme.channel) throw new Error("no channel scheme on the sandbox network");
      return found.scheme.channel.returned({ network: found.network, channelId: opening.channelId, fromBlock: 0n });
    };
    expect(await railReturned({ CHAIN_LOG_RANGE_BLOCKS: String(PROVIDER_LIMIT) })).toEqual(history.returned);
    await expect(railReturned({})).rejects.toThrow(/block range is too wide/);
  }, 60_000);
});

describe("CHAIN_LOG_RANGE_BLOCKS", () => {
  test("a positive whole number of blocks, 2000 when unset; anything else fails naming the variable", () => {
    expect(parseServerEnv({}).CHAIN_LOG_RANGE_BLOCKS).toBe(2000);
    expect(BigInt(parseServerEnv({}).CHAIN_LOG_RANGE_BLOCKS)).toBe(DEFAULT_LOG_RANGE_BLOCKS);
    expect(parseServerEnv({ CHAIN_LOG_RANGE_BLOCKS: "" }).CHAIN_LOG_RANGE_BLOCKS).toBe(2000);
    expect(parseServerEnv({ CHAIN_LOG_RANGE_BLOCKS: "500" }).CHAIN_LOG_RANGE_BLOCKS).toBe(500);
    for (const bad of ["0", "-5", "1.5", "wide"]) expect(() => parseServerEnv({ CHAIN_LOG_RANGE_BLOCKS: bad })).toThrow(/CHAIN_LOG_RANGE_BLOCKS/);
  });
});
