// What the page's channel key agrees to sign without a prompt (lib/client/channel-keys.ts): only
// the channel contract's Voucher, and never more than the card's price past the last voucher it
// signed for that channel; the contract's address the page knows is the one the x402 packages use.
import { BATCH_SETTLEMENT_ADDRESS } from "@x402/evm";
import { describe, expect, test } from "vitest";
import { CHANNEL_CONTRACT_ADDRESS } from "@/lib/chain/channel-address";
import { voucherProblem } from "@/lib/client/channel-keys";
import type { ApprovalTypedData } from "@/lib/client/wallet-signer";

const voucher = (amount: string, changes: Partial<ApprovalTypedData> = {}): ApprovalTypedData => ({
  domain: { name: "x402 Batch Settlement", version: "1", chainId: 31337, verifyingContract: CHANNEL_CONTRACT_ADDRESS },
  types: { Voucher: [{ name: "channelId", type: "bytes32" }, { name: "maxClaimableAmount", type: "uint128" }] },
  primaryType: "Voucher",
  message: { channelId: `0x${"ab".repeat(32)}`, maxClaimableAmount: amount },
  ...changes,
});

describe("the channel key signs vouchers only, within the card's price", () => {
  test("the page's channel contract is the x402 packages' own", () => {
    expect(CHANNEL_CONTRACT_ADDRESS).toBe(BATCH_SETTLEMENT_ADDRESS);
  });

  test("a voucher of at most the last one plus the price is signed", () => {
    expect(voucherProblem(voucher("5000"), 4000n, 1000n)).toBeUndefined();
    expect(voucherProblem(voucher("4000"), 4000n, 0n)).toBeUndefined();
  });

  test("a voucher past the price, anything but a voucher, or another contract's, is not", () => {
    expect(voucherProblem(voucher("5001"), 4000n, 1000n)).toMatch(/more than the call's price/);
    expect(voucherProblem(voucher("4001"), 4000n, 0n)).toMatch(/more than the call's price/);
    expect(voucherProblem(voucher("1000", { primaryType: "TransferWithAuthorization" }), 0n, 1000n)).toMatch(/vouchers only/);
    expect(voucherProblem(voucher("1000", { domain: { name: "x", chainId: 31337, verifyingContract: "0x0000000000000000000000000000000000000001" } }), 0n, 1000n)).toMatch(/not for the channel contract/);
    expect(voucherProblem(voucher("1e3"), 0n, 1000n)).toMatch(/no amount/);
  });
});
