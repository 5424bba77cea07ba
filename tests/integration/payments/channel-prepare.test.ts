// What the server prepares for a pay-as-you-go channel (x402 `batch-settlement`), signed as the
// browser would sign it (the wallet the deposit, the page's channel key each voucher), and paid to
// the sandbox's TickStream: the deposit lands in the channel contract once, the calls after it
// carry vouchers alone, and the service's claims never pass what was vouched. Real anvil, Circle's
// USDC, the sandbox's channel contract and facilitator, and the real x402 headers.
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequirements } from "@x402/core/types";
import { BATCH_SETTLEMENT_ADDRESS } from "@x402/evm";
import { createPublicClient, createTestClient, createWalletClient, http, keccak256, toHex, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { typedDataMessage, type TypedDataForWallet } from "@/lib/chain/typed-data";
import { channelHistory, readChannel } from "@/lib/payments/rails/evm/channel/chain";
import { completeChannelPayload, prepareChannelOpening, prepareRefund, prepareVoucher } from "@/lib/payments/rails/evm/channel/prepare";
import type { WalletRequest } from "@/lib/payments/payment";
import { parseServerEnv } from "@/lib/env";
import { checkChannelRequirement } from "@/lib/payments/rails/evm/channel/requirement";
import { batchSettlementAbi, chainEnvOf, CHANNEL_WITHDRAW_DELAY_SECONDS, startSandbox, usdcAbi, type Sandbox } from "@/sandbox";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, includeTestOnly: true });
}, 90_000);
afterAll(async () => {
  await sandbox?.stop();
});

const reader = () => createPublicClient({ chain: foundry, transport: http(sandbox.info.rpcUrl) });
const tickUrl = () => {
  const entry = sandbox.info.services.find((service) => service.name === "market-ticks");
  if (!entry) throw new Error("no market-ticks service");
  return `${entry.url}?symbol=NVDA`;
};

async function channelRequirement(): Promise<PaymentRequirements> {
  const response = await fetch(tickUrl());
  expect(response.status).toBe(402);
  const option = decodePaymentRequiredHeader(response.headers.get("payment-required") ?? "").accepts.find((accept) => accept.scheme === "batch-settlement");
  if (!option) throw new Error("TickStream offers no channel");
  return option;
}

/** Signs a request as the browser does: the typed data as it traveled, its integers read back. */
function sign(request: WalletRequest, key: PrivateKeyAccount): Promise<Hex> {
  if (request.kind !== "typed-data") throw new Error("a channel asks only for typed data");
  const typedData = request.typedData as TypedDataForWallet;
  const { EIP712Domain: _domain, ...types } = typedData.types;
  return key.signTypedData({ domain: typedData.domain, types, primaryType: typedData.primaryType, message: typedDataMessage(typedData) });
}

async function paidCall(payload: ReturnType<typeof completeChannelPayload>) {
  const response = await fetch(tickUrl(), { headers: { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payload) } });
  const header = response.headers.get("payment-response");
  return { status: response.status, body: await response.text(), settlement: header ? decodePaymentResponseHeader(header) : undefined };
}

describe("a channel prepared by the server, signed in the browser", () => {
  test("the wallet signs one deposit, the channel key every voucher; ten calls, one deposit on chain, claims within the vouchers", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const channelKey = privateKeyToAccount(generatePrivateKey());
    await sandbox.fund({ to: wallet.address, usdc: 1_000_000n });
    const requirement = await channelRequirement();
    const price = BigInt(requirement.amount);
    // The option as TickStream sends it is one this server can pay, with the deposit it suggests.
    expect(checkChannelRequirement(requirement, parseServerEnv(chainEnvOf(sandbox.info)), { x402Version: 2 })).toMatchObject({ payable: true, amount: price, withdrawDelay: CHANNEL_WITHDRAW_DELAY_SECONDS, suggestedDeposit: 50n * price });
    const deposit = 20n * price;
    const salt = keccak256(toHex(`channel-${wallet.address}`));

    const opening = await prepareChannelOpening({ requirements: requirement, payer: wallet.address, channelKey: channelKey.address, salt, deposit });
    expect(opening.toSign.map((request) => request.purpose)).toEqual(["the deposit", "the first call's voucher"]);
    expect(opening.exposure.amount).toBe(deposit);
    const signed = [await sign(opening.toSign[0] as WalletRequest, wallet), await sign(opening.toSign[1] as WalletRequest, channelKey)];
    const first = await paidCall(completeChannelPayload(opening.unsignedPayload, signed));
    expect(first.status, first.body).toBe(200);
    expect(first.settlement?.success).toBe(true);

    for (let call = 2; call <= 10; call += 1) {
      const voucher = await prepareVoucher({ requirements: requirement, config: opening.config, cumulative: price * BigInt(call) });
      const answer = await paidCall(completeChannelPayload(voucher.unsignedPayload, [await sign(voucher.toSign[0], channelKey)]));
      expect(answer.status, answer.body).toBe(200);
    }
    await sandbox.channelActivity("market-ticks");

    const [balance, totalClaimed] = await reader().readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: "channels", args: [opening.channelId] });
    expect(balance).toBe(deposit);
    // TickStream claims every third call: nine of the ten, never past the last voucher.
    expect(totalClaimed).toBe(9n * price);
    const walletBalance = await reader().readContract({ address: sandbox.info.usdc.address, abi: usdcAbi, functionName: "balanceOf", args: [wallet.address] });
    expect(walletBalance).toBe(1_000_000n - deposit);

    // Closed by a cooperative refund of what was not charged: the service claims the tenth call
    // with it, and the rest of the deposit comes back.
    const refund = await prepareRefund({ requirements: requirement, config: opening.config, charged: 10n * price });
    const closed = await paidCall(completeChannelPayload(refund.unsignedPayload, [await sign(refund.toSign[0], channelKey)]));
    expect(closed.status, closed.body).toBe(200);
    expect(closed.settlement).toMatchObject({ success: true, amount: (deposit - 10n * price).toString() });
    await sandbox.channelActivity("market-ticks");
    // The channel keeps, as claimed, exactly the ten calls vouched; nothing of the deposit is left in it for the payer.
    const after = await reader().readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: "channels", args: [opening.channelId] });
    expect(after).toEqual([10n * price, 10n * price]);
    const refunded = await reader().readContract({ address: sandbox.info.usdc.address, abi: usdcAbi, functionName: "balanceOf", args: [wallet.address] });
    expect(refunded).toBe(1_000_000n - 10n * price);

    // What the ledger will read to close it: nothing left for the payer, one deposit, one refund of the rest.
    expect(await readChannel(reader(), opening.channelId)).toEqual({ balance: 10n * price, totalClaimed: 10n * price, withdrawal: undefined, left: 0n });
    const history = await channelHistory(reader(), opening.channelId, { fromBlock: 0n });
    expect(history.deposits.map((entry) => entry.amount)).toEqual([deposit]);
    expect(history.returned).toEqual([{ amount: deposit - 10n * price, txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/), kind: "refund" }]);
  });

  test("a voucher the channel key did not sign is refused, and nothing is claimed on it", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const channelKey = privateKeyToAccount(generatePrivateKey());
    await sandbox.fund({ to: wallet.address, usdc: 1_000_000n });
    const requirement = await channelRequirement();
    const price = BigInt(requirement.amount);
    const opening = await prepareChannelOpening({ requirements: requirement, payer: wallet.address, channelKey: channelKey.address, salt: keccak256(toHex("other")), deposit: 5n * price });
    const signed = [await sign(opening.toSign[0] as WalletRequest, wallet), await sign(opening.toSign[1] as WalletRequest, channelKey)];
    expect((await paidCall(completeChannelPayload(opening.unsignedPayload, signed))).status).toBe(200);

    const voucher = await prepareVoucher({ requirements: requirement, config: opening.config, cumulative: 2n * price });
    // The wallet is not the channel's payerAuthorizer: its signature of a voucher is no voucher.
    const forged = await paidCall(completeChannelPayload(voucher.unsignedPayload, [await sign(voucher.toSign[0], wallet)]));
    expect(forged.status).toBe(402);
  });

  // Moves the chain's clock past the withdrawal delay: last in this file.
  test("a service that never claims: the chain shows the withdrawal asked, then the whole deposit back", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const channelKey = privateKeyToAccount(generatePrivateKey());
    await sandbox.fund({ to: wallet.address, usdc: 1_000_000n, eth: 10n ** 17n });
    const entry = sandbox.info.services.find((service) => service.name === "quotes-silent");
    const url = `${entry?.url}?topic=time`;
    const asked = await fetch(url);
    const requirement = decodePaymentRequiredHeader(asked.headers.get("payment-required") ?? "").accepts.find((accept) => accept.scheme === "batch-settlement");
    if (!requirement) throw new Error("Quote Stream offers no channel");
    const deposit = 10n * BigInt(requirement.amount);
    const opening = await prepareChannelOpening({ requirements: requirement, payer: wallet.address, channelKey: channelKey.address, salt: keccak256(toHex("silent")), deposit });
    const signed = [await sign(opening.toSign[0] as WalletRequest, wallet), await sign(opening.toSign[1] as WalletRequest, channelKey)];
    const paid = await fetch(url, { headers: { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(completeChannelPayload(opening.unsignedPayload, signed)) } });
    expect(paid.status).toBe(200);

    const client = createWalletClient({ account: wallet, chain: foundry, transport: http(sandbox.info.rpcUrl) });
    const read = reader();
    await read.waitForTransactionReceipt({ hash: await client.writeContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: "initiateWithdraw", args: [opening.config, deposit] }) });
    expect(await readChannel(read, opening.channelId)).toMatchObject({ balance: deposit, totalClaimed: 0n, left: deposit, withdrawal: { amount: deposit } });

    const testClient = createTestClient({ chain: foundry, mode: "anvil", transport: http(sandbox.info.rpcUrl) });
    await testClient.increaseTime({ seconds: CHANNEL_WITHDRAW_DELAY_SECONDS });
    await testClient.mine({ blocks: 1 });
    await read.waitForTransactionReceipt({ hash: await client.writeContract({ address: BATCH_SETTLEMENT_ADDRESS, abi: batchSettlementAbi, functionName: "finalizeWithdraw", args: [opening.config] }) });
    expect(await readChannel(read, opening.channelId)).toEqual({ balance: 0n, totalClaimed: 0n, withdrawal: undefined, left: 0n });
    const history = await channelHistory(read, opening.channelId, { fromBlock: 0n });
    expect(history.returned.map(({ amount, kind }) => ({ amount, kind }))).toEqual([{ amount: deposit, kind: "withdrawal" }]);
  });
});
