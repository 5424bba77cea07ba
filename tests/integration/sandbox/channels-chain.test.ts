// The sandbox's x402 `batch-settlement` channels: the sandbox's own channel contract and deposit
// collectors at their canonical addresses, the sandbox facilitator settling them with @x402/evm's
// own batch-settlement facilitator, and the two channel services (market-ticks, which claims
// every three calls and refunds on request; quotes-silent, which never claims nor refunds). Real
// anvil, Circle's USDC, the real @x402 batch-settlement client on the payer's side with viem
// local accounts; every amount is checked on chain.
//
// The last block moves the chain's clock 15 minutes ahead (the withdrawal delay): it stays last,
// since deposits signed after it by the wall clock would already have expired on chain.
import { x402Client } from "@x402/core/client";
import { HTTPFacilitatorClient } from "@x402/core/server";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { BATCH_SETTLEMENT_ADDRESS, ERC3009_DEPOSIT_COLLECTOR_ADDRESS, PERMIT2_ADDRESS, claimBatchTypes, voucherTypes } from "@x402/evm";
import {
  BatchSettlementEvmScheme,
  computeChannelId,
  InMemoryClientChannelStorage,
  signVoucher,
} from "@x402/evm/batch-settlement/client";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import { wrapFetchWithPayment } from "@x402/fetch";
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  erc20Abi,
  getAddress,
  hashTypedData,
  http,
  maxUint256,
  parseEventLogs,
  type Hex,
} from "viem";
import { formatAbiItem } from "viem/utils";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { batchSettlementAbi, CHANNEL_WITHDRAW_DELAY_SECONDS, startSandbox, usdcAbi, type Sandbox, type SandboxServiceInfo } from "@/sandbox";
import { sandboxAccounts } from "@/sandbox/accounts";
import { PERMIT2_DEPOSIT_COLLECTOR_ADDRESS } from "@/sandbox/batch-settlement";
import { compileBatchSettlement, readBatchSettlementArtifact } from "@/sandbox/contracts/compile";

let sandbox: Sandbox;
let facilitator: HTTPFacilitatorClient;
const publicClient = () => createPublicClient({ chain: foundry, transport: http(sandbox.info.rpcUrl) });

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, includeTestOnly: true });
  facilitator = new HTTPFacilitatorClient({ url: sandbox.info.facilitatorUrl });
}, 90_000);

afterAll(async () => {
  await sandbox?.stop();
});

function service(name: string): SandboxServiceInfo {
  const found = sandbox.info.services.find((entry) => entry.name === name);
  if (!found) throw new Error(`no sandbox service "${name}"`);
  return found;
}

const balanceOf = (owner: Hex) =>
  publicClient().readContract({ address: sandbox.info.usdc.address, abi: usdcAbi, functionName: "balanceOf", args: [owner] });

async function channelOf(channelId: Hex) {
  const [balance, totalClaimed] = await publicClient().readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: "channels", args: [channelId] });
  return { balance, totalClaimed };
}

/** The channel contract's events about one channel, over the whole chain. */
async function channelEvents(channelId: Hex) {
  const logs = await publicClient().getLogs({ address: BATCH_SETTLEMENT_ADDRESS, fromBlock: 0n, toBlock: "latest" });
  return parseEventLogs({ abi: batchSettlementAbi, logs }).filter((log) => "channelId" in log.args && log.args.channelId === channelId);
}

/** The payee's key: the sandbox's merchants are anvil's dev accounts, and a channel service's receiverAuthorizer is its payee. */
function payeeAccount(entry: SandboxServiceInfo): PrivateKeyAccount {
  const accounts = sandboxAccounts();
  for (let index = 0; index < 6; index++) {
    const merchant = accounts.merchant(index);
    if (getAddress(merchant.address) === getAddress(entry.payTo)) return privateKeyToAccount(merchant.privateKey);
  }
  throw new Error(`no sandbox key for ${entry.payTo}`);
}

/**
 * A payer on channels: a fresh viem account funded with `usdc` (and `eth` for the calls it makes
 * itself, a withdrawal), and @x402/evm's batch-settlement client scheme behind the real x402 fetch.
 */
async function newChannelPayer({ usdc, eth = 0n, channelKey }: { usdc: bigint; eth?: bigint; channelKey?: PrivateKeyAccount }) {
  const account = privateKeyToAccount(generatePrivateKey());
  await sandbox.fund({ to: account.address, usdc, eth });
  const reader = publicClient();
  const storage = new InMemoryClientChannelStorage();
  const signerOf = (key: PrivateKeyAccount) => ({
    address: key.address,
    signTypedData: (data: Parameters<PrivateKeyAccount["signTypedData"]>[0]) => key.signTypedData(data),
  });
  const scheme = new BatchSettlementEvmScheme(
    { ...signerOf(account), readContract: (args) => reader.readContract(args as Parameters<typeof reader.readContract>[0]) },
    // A channel key, when given, signs the vouchers (the channel's payerAuthorizer); the payer's own key signs the deposit.
    { storage, ...(channelKey ? { voucherSigner: signerOf(channelKey) } : {}) },
  );
  const client = new x402Client().register("eip155:*", scheme);
  client.setSpendControls({ allowedAssets: [{ network: sandbox.info.network, asset: sandbox.info.usdc.address }] });
  return { account, scheme, storage, client, pay: wrapFetchWithPayment(fetch, client) };
}

/** The channel option of a service's 402, as a payer reads it. */
async function channelRequirements(url: string): Promise<PaymentRequirements> {
  const response = await fetch(url);
  expect(response.status).toBe(402);
  const required = decodePaymentRequiredHeader(response.headers.get("payment-required") ?? "");
  const option = required.accepts.find((accept) => accept.scheme === "batch-settlement");
  if (!option) throw new Error(`${url} offers no channel`);
  return option;
}

function settlementOf(response: Response) {
  const header = response.headers.get("payment-response");
  if (!header) throw new Error(`no PAYMENT-RESPONSE header (status ${response.status})`);
  return decodePaymentResponseHeader(header);
}

describe("the channel contracts on the sandbox chain", () => {
  it("places the contracts compiled from their committed source at their canonical addresses", async () => {
    const { artifact, abis } = compileBatchSettlement();
    expect(artifact).toEqual(readBatchSettlementArtifact());
    const code = (address: Hex) => publicClient().getCode({ address });
    expect(await code(BATCH_SETTLEMENT_ADDRESS)).toBe(artifact.contracts.x402BatchSettlement.deployedBytecode);
    expect(await code(ERC3009_DEPOSIT_COLLECTOR_ADDRESS)).toBe(artifact.contracts.ERC3009DepositCollector.deployedBytecode);
    expect(await code(PERMIT2_DEPOSIT_COLLECTOR_ADDRESS)).toBe(artifact.contracts.Permit2DepositCollector.deployedBytecode);

    // Every function, event and error the sandbox (and @x402/evm) calls it by is in what solc made.
    const compiled = new Set(abis.x402BatchSettlement.map((item) => formatAbiItem(item as Parameters<typeof formatAbiItem>[0])));
    const missing = batchSettlementAbi.map((item) => formatAbiItem(item)).filter((signature) => !compiled.has(signature));
    expect(missing).toEqual([]);
  }, 60_000);

  it("names channels and signs vouchers and claim batches under the domain @x402/evm signs for", async () => {
    const config = {
      payer: privateKeyToAccount(generatePrivateKey()).address,
      payerAuthorizer: privateKeyToAccount(generatePrivateKey()).address,
      receiver: service("market-ticks").payTo,
      receiverAuthorizer: service("market-ticks").payTo,
      token: sandbox.info.usdc.address,
      withdrawDelay: CHANNEL_WITHDRAW_DELAY_SECONDS,
      salt: `0x${"07".repeat(32)}`,
    } as const;
    const channelId = computeChannelId(config, sandbox.info.network);
    const read = publicClient();
    expect(await read.readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: "getChannelId", args: [config] })).toBe(channelId);
    const domain = { name: "x402 Batch Settlement", version: "1", chainId: sandbox.info.chainId, verifyingContract: BATCH_SETTLEMENT_ADDRESS } as const;
    expect(await read.readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: "getVoucherDigest", args: [channelId, 12_345n] })).toBe(
      hashTypedData({ domain, types: voucherTypes, primaryType: "Voucher", message: { channelId, maxClaimableAmount: 12_345n } }),
    );
    const claims = [
      { voucher: { channel: config, maxClaimableAmount: 9_000n }, signature: "0x" as Hex, totalClaimed: 6_000n },
      { voucher: { channel: { ...config, salt: `0x${"08".repeat(32)}` as Hex }, maxClaimableAmount: 3_000n }, signature: "0x" as Hex, totalClaimed: 3_000n },
    ];
    expect(await read.readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: "getClaimBatchDigest", args: [claims] })).toBe(
      hashTypedData({
        domain,
        types: claimBatchTypes,
        primaryType: "ClaimBatch",
        message: {
          claims: claims.map((claim) => ({
            channelId: computeChannelId(claim.voucher.channel, sandbox.info.network),
            maxClaimableAmount: claim.voucher.maxClaimableAmount,
            totalClaimed: claim.totalClaimed,
          })),
        },
      }),
    );
  });

  it("lets only the channel contract use a payer's deposit authorization", async () => {
    const stranger = privateKeyToAccount(generatePrivateKey());
    await expect(
      publicClient().simulateContract({
        account: stranger,
        address: ERC3009_DEPOSIT_COLLECTOR_ADDRESS,
        abi: [{ type: "function", name: "collect", stateMutability: "nonpayable", inputs: [{ type: "address" }, { type: "address" }, { type: "uint256" }, { type: "bytes32" }, { type: "bytes" }], outputs: [] }, { type: "error", name: "OnlyBatchSettlement", inputs: [] }],
        functionName: "collect",
        args: [stranger.address, sandbox.info.usdc.address, 1n, `0x${"00".repeat(32)}`, "0x"],
      }),
    ).rejects.toThrow(/OnlyBatchSettlement/);
  });

  it("is listed by the facilitator's /supported, with no receiverAuthorizer of its own", async () => {
    const supported = await facilitator.getSupported();
    const kind = supported.kinds.find((entry) => entry.scheme === "batch-settlement" && entry.network === sandbox.info.network);
    expect(kind).toBeDefined();
    expect(kind?.extra?.receiverAuthorizer).toBeUndefined();
    expect(supported.kinds.map((entry) => entry.scheme)).toEqual(expect.arrayContaining(["exact", "upto", "batch-settlement"]));
  });

  it("takes a deposit through Permit2 too, from a payer who approved Permit2", async () => {
    const payer = await newChannelPayer({ usdc: 100_000n, eth: 10n ** 17n });
    const wallet = createWalletClient({ account: payer.account, chain: foundry, transport: http(sandbox.info.rpcUrl) });
    await publicClient().waitForTransactionReceipt({
      hash: await wallet.writeContract({ address: sandbox.info.usdc.address, abi: erc20Abi, functionName: "approve", args: [PERMIT2_ADDRESS, maxUint256] }),
    });
    const entry = service("market-ticks");
    const requirements = { ...(await channelRequirements(`${entry.url}?symbol=AAPL`)), extra: { ...(await channelRequirements(entry.url)).extra, assetTransferMethod: "permit2" } };
    const result = await payer.scheme.createPaymentPayload(2, requirements);
    const payload: PaymentPayload = { x402Version: 2, accepted: requirements, payload: result.payload };
    expect(await facilitator.verify(payload, requirements)).toMatchObject({ isValid: true, payer: payer.account.address });
    const settled = await facilitator.settle(payload, requirements);
    expect(settled).toMatchObject({ success: true, amount: "50000" });
    const channelId = computeChannelId(payer.scheme.buildChannelConfig(requirements), sandbox.info.network);
    expect(await channelOf(channelId)).toEqual({ balance: 50_000n, totalClaimed: 0n });
    expect(await balanceOf(payer.account.address)).toBe(50_000n);
  });
});

describe("market-ticks: deposits, calls by voucher, claims in batches, cooperative refunds", () => {
  it("moves one deposit, claims exactly what was vouched, and refunds the rest to the payer", async () => {
    const entry = service("market-ticks");
    expect(entry).toMatchObject({ schemes: ["batch-settlement", "exact"], price: "0.001", listed: true });
    expect(entry.channel).toMatchObject({ deposit: "0.05", withdrawDelaySeconds: 900, claimEvery: 3, refunds: true, contract: BATCH_SETTLEMENT_ADDRESS });
    const url = `${entry.url}?symbol=AAPL`;
    const price = 1_000n;
    const deposit = 50_000n;
    const payer = await newChannelPayer({ usdc: 1_000_000n });
    const payeeBefore = await balanceOf(entry.payTo);
    const heldBefore = await balanceOf(BATCH_SETTLEMENT_ADDRESS);
    // The service's first paid calls since it started: its claims fall on calls 3, 6 and 9.
    const activityBefore = await sandbox.channelActivity("market-ticks");
    expect(activityBefore.claims).toEqual([]);

    // The first call opens the channel: its deposit moves once, in one transaction.
    const opening = await payer.pay(url);
    expect(opening.status).toBe(200);
    expect(await opening.json()).toMatchObject({ symbol: "AAPL", currency: "USD" });
    const opened = settlementOf(opening);
    expect(opened).toMatchObject({ success: true, amount: deposit.toString() });
    expect(opened.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await balanceOf(payer.account.address)).toBe(1_000_000n - deposit);
    const channelId = computeChannelId(payer.scheme.buildChannelConfig(await channelRequirements(url)), sandbox.info.network);
    expect(await channelOf(channelId)).toEqual({ balance: deposit, totalClaimed: 0n });

    // Ten more calls, each paid by a voucher: no transaction, no new deposit.
    for (let call = 1; call <= 10; call++) {
      const response = await payer.pay(url);
      expect(response.status, `call ${call}`).toBe(200);
      expect(settlementOf(response)).toMatchObject({ success: true, transaction: "", extra: { chargedAmount: price.toString() } });
    }
    const vouched = 11n * price;
    expect((await payer.storage.get(channelId))?.chargedCumulativeAmount).toBe(vouched.toString());
    expect(await balanceOf(payer.account.address)).toBe(1_000_000n - deposit);

    // It claimed after every third paid call, and swept each claim to its payee.
    const activity = await sandbox.channelActivity("market-ticks");
    expect(activity.failures).toEqual([]);
    expect(activity.claims.map((claim) => claim.vouchers)).toEqual([1, 1, 1]);
    expect(activity.sweeps).toHaveLength(3);
    expect(await channelOf(channelId)).toEqual({ balance: deposit, totalClaimed: 9n * price });
    expect(await balanceOf(entry.payTo)).toBe(payeeBefore + 9n * price);

    // The payer closes: the service claims the last vouchers and returns the rest, in one transaction.
    const refund = await payer.scheme.refund(url);
    expect(refund).toMatchObject({ success: true, amount: (deposit - vouched).toString() });
    expect(await payer.storage.get(channelId)).toBeUndefined();
    await sandbox.channelActivity("market-ticks");

    expect(await channelOf(channelId)).toEqual({ balance: vouched, totalClaimed: vouched });
    expect(await balanceOf(payer.account.address)).toBe(1_000_000n - vouched);
    expect(await balanceOf(entry.payTo)).toBe(payeeBefore + vouched);
    expect(await balanceOf(BATCH_SETTLEMENT_ADDRESS)).toBe(heldBefore);

    const events = await channelEvents(channelId);
    const named = (name: string) => events.filter((log) => log.eventName === name);
    expect(named("Deposited")).toHaveLength(1);
    expect(named("ChannelCreated")).toHaveLength(1);
    const claimed = named("Claimed").map((log) => (log.args as { claimAmount: bigint }).claimAmount);
    expect(claimed).toEqual([3n * price, 3n * price, 3n * price, 2n * price]);
    expect(claimed.reduce((sum, amount) => sum + amount, 0n)).toBe(vouched);
    expect(named("Refunded").map((log) => (log.args as { amount: bigint }).amount)).toEqual([deposit - vouched]);
    expect(await publicClient().readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: "refundNonce", args: [channelId] })).toBe(1n);
  }, 60_000);

  it("takes vouchers signed by a channel key other than the payer's (the payerAuthorizer), and claims them", async () => {
    const entry = service("market-ticks");
    const url = `${entry.url}?symbol=NVDA`;
    const channelKey = privateKeyToAccount(generatePrivateKey());
    const payer = await newChannelPayer({ usdc: 1_000_000n, channelKey });
    for (let call = 0; call < 4; call++) expect((await payer.pay(url)).status).toBe(200);
    const config = payer.scheme.buildChannelConfig(await channelRequirements(url));
    expect(config).toMatchObject({ payer: payer.account.address, payerAuthorizer: channelKey.address });
    const channelId = computeChannelId(config, sandbox.info.network);

    expect(await payer.scheme.refund(url)).toMatchObject({ success: true, amount: "46000" });
    await sandbox.channelActivity("market-ticks");
    expect(await channelOf(channelId)).toEqual({ balance: 4_000n, totalClaimed: 4_000n });
    expect(await balanceOf(payer.account.address)).toBe(1_000_000n - 4_000n);
  }, 60_000);
});

describe("a receiver that claims more than was vouched", () => {
  it("gets nothing past the payer's vouchers, by itself or through the facilitator", async () => {
    const entry = service("quotes-silent");
    const url = `${entry.url}?topic=money`;
    const payer = await newChannelPayer({ usdc: 1_000_000n });
    for (let call = 0; call < 3; call++) expect((await payer.pay(url)).status).toBe(200);
    const requirements = await channelRequirements(url);
    const config = payer.scheme.buildChannelConfig(requirements);
    const channelId = computeChannelId(config, sandbox.info.network);
    const vouched = 6_000n;
    // The payer's latest voucher, as it sent it (its signatures are deterministic).
    const voucher = await signVoucher(
      { address: payer.account.address, signTypedData: (data) => payer.account.signTypedData(data as Parameters<typeof payer.account.signTypedData>[0]) },
      channelId,
      vouched.toString(),
      sandbox.info.network,
    );
    const receiver = payeeAccount(entry);
    expect(receiver.address).toBe(config.receiverAuthorizer);
    const row = (totalClaimed: bigint, maxClaimableAmount = vouched, signature: Hex = voucher.signature) => ({
      voucher: { channel: config, maxClaimableAmount },
      signature,
      totalClaimed,
    });
    const payeeBefore = await balanceOf(entry.payTo);

    // By itself: more than the voucher's ceiling, or a ceiling it signed for the payer.
    const simulateClaim = (claims: ReturnType<typeof row>[]) =>
      publicClient().simulateContract({ account: receiver, address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: "claim", args: [claims] });
    await expect(simulateClaim([row(vouched + 1n)])).rejects.toThrow(/ClaimExceedsCeiling/);
    const forged = await receiver.signTypedData({
      domain: { name: "x402 Batch Settlement", version: "1", chainId: sandbox.info.chainId, verifyingContract: BATCH_SETTLEMENT_ADDRESS },
      types: voucherTypes,
      primaryType: "Voucher",
      message: { channelId, maxClaimableAmount: 20_000n },
    });
    await expect(simulateClaim([row(20_000n, 20_000n, forged)])).rejects.toThrow(/InvalidSignature/);

    // Through the facilitator, with its own authorization of the batch.
    const claimThroughFacilitator = async (claims: ReturnType<typeof row>[]) => {
      const claimAuthorizerSignature = await receiver.signTypedData({
        domain: { name: "x402 Batch Settlement", version: "1", chainId: sandbox.info.chainId, verifyingContract: BATCH_SETTLEMENT_ADDRESS },
        types: claimBatchTypes,
        primaryType: "ClaimBatch",
        message: { claims: claims.map((claim) => ({ channelId, maxClaimableAmount: claim.voucher.maxClaimableAmount, totalClaimed: claim.totalClaimed })) },
      });
      const wire = claims.map((claim) => ({ ...claim, voucher: { ...claim.voucher, maxClaimableAmount: claim.voucher.maxClaimableAmount.toString() }, totalClaimed: claim.totalClaimed.toString() }));
      const operation = { scheme: "batch-settlement", network: sandbox.info.network, asset: sandbox.info.usdc.address, amount: "0", payTo: entry.payTo, maxTimeoutSeconds: 0, extra: {} };
      return facilitator.settle({ x402Version: 2, accepted: operation, payload: { type: "claim", claims: wire, claimAuthorizerSignature } }, operation);
    };
    expect(await claimThroughFacilitator([row(vouched + 1n)])).toMatchObject({ success: false, errorReason: "invalid_batch_settlement_evm_claim_simulation_failed" });
    expect(await claimThroughFacilitator([row(20_000n, 20_000n, forged)])).toMatchObject({ success: false });
    expect(await channelOf(channelId)).toEqual({ balance: 20_000n, totalClaimed: 0n });

    // What was vouched, it can claim, once; the same claim again changes nothing.
    expect(await claimThroughFacilitator([row(vouched)])).toMatchObject({ success: true });
    expect(await claimThroughFacilitator([row(vouched)])).toMatchObject({ success: true });
    expect(await channelOf(channelId)).toEqual({ balance: 20_000n, totalClaimed: vouched });
    const operation = { scheme: "batch-settlement", network: sandbox.info.network, asset: sandbox.info.usdc.address, amount: "0", payTo: entry.payTo, maxTimeoutSeconds: 0, extra: {} };
    const sweep = () => facilitator.settle({ x402Version: 2, accepted: operation, payload: { type: "settle", receiver: entry.payTo, token: sandbox.info.usdc.address } }, operation);
    expect(await sweep()).toMatchObject({ success: true, amount: vouched.toString() });
    expect(await sweep()).toMatchObject({ success: false, errorReason: "invalid_batch_settlement_evm_nothing_to_settle" });
    expect(await balanceOf(entry.payTo)).toBe(payeeBefore + vouched);
    expect(await balanceOf(payer.account.address)).toBe(1_000_000n - 20_000n);
  }, 60_000);
});

// Last: it moves the chain's clock past the withdrawal delay (see the header).
describe("quotes-silent: the payer withdraws after the delay", () => {
  it("refuses a refund and never claims; the payer asks, waits out the delay, and takes the whole deposit back", async () => {
    const entry = service("quotes-silent");
    expect(entry).toMatchObject({ schemes: ["batch-settlement", "exact"], price: "0.002" });
    expect(entry.channel).toMatchObject({ deposit: "0.02", withdrawDelaySeconds: 900, claimEvery: null, refunds: false });
    const url = `${entry.url}?topic=time`;
    const payer = await newChannelPayer({ usdc: 1_000_000n, eth: 10n ** 17n });
    for (let call = 0; call < 4; call++) {
      const response = await payer.pay(url);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ topic: "time", author: "Benjamin Franklin" });
    }
    expect(await balanceOf(payer.account.address)).toBe(1_000_000n - 20_000n);
    const requirements = await channelRequirements(url);
    const config = payer.scheme.buildChannelConfig(requirements);
    const channelId = computeChannelId(config, sandbox.info.network);

    // It does not answer the payer's request to close, and has claimed nothing.
    await expect(payer.scheme.refund(url)).rejects.toThrow(/503/);
    expect(await sandbox.channelActivity("quotes-silent")).toMatchObject({ claims: [], sweeps: [] });
    expect(await channelOf(channelId)).toEqual({ balance: 20_000n, totalClaimed: 0n });

    // The payer asks for its deposit back, with its own transaction.
    const wallet = createWalletClient({ account: payer.account, chain: foundry, transport: http(sandbox.info.rpcUrl) });
    const read = publicClient();
    const asked = await read.waitForTransactionReceipt({
      hash: await wallet.writeContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: "initiateWithdraw", args: [config, 20_000n] }),
    });
    expect(asked.status).toBe("success");
    const [, initiatedAt] = await read.readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: "pendingWithdrawals", args: [channelId] });
    expect(initiatedAt).toBeGreaterThan(0);
    await expect(
      read.simulateContract({ account: payer.account, address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: "finalizeWithdraw", args: [config] }),
    ).rejects.toThrow(/WithdrawDelayNotElapsed/);

    // The delay passes (anvil's clock, moved on), and the payer takes it.
    const testClient = createTestClient({ chain: foundry, mode: "anvil", transport: http(sandbox.info.rpcUrl) });
    await testClient.increaseTime({ seconds: CHANNEL_WITHDRAW_DELAY_SECONDS });
    await testClient.mine({ blocks: 1 });
    const taken = await read.waitForTransactionReceipt({
      hash: await wallet.writeContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: "finalizeWithdraw", args: [config] }),
    });
    expect(taken.status).toBe("success");
    expect(await balanceOf(payer.account.address)).toBe(1_000_000n);
    expect(await channelOf(channelId)).toEqual({ balance: 0n, totalClaimed: 0n });
    const names = parseEventLogs({ abi: batchSettlementAbi, logs: taken.logs }).map((log) => log.eventName);
    expect(names).toEqual(["WithdrawFinalized", "ChannelClosed"]);

    // The vouchers the service never claimed are worth nothing now.
    const receiver = payeeAccount(entry);
    const voucher = await signVoucher(
      { address: payer.account.address, signTypedData: (data) => payer.account.signTypedData(data as Parameters<typeof payer.account.signTypedData>[0]) },
      channelId,
      "8000",
      sandbox.info.network,
    );
    await expect(
      read.simulateContract({
        account: receiver,
        address: BATCH_SETTLEMENT_ADDRESS,
        abi: batchSettlementAbi,
        functionName: "claim",
        args: [[{ voucher: { channel: config, maxClaimableAmount: 8_000n }, signature: voucher.signature, totalClaimed: 8_000n }]],
      }),
    ).rejects.toThrow(/ClaimExceedsBalance/);
  }, 60_000);
});
