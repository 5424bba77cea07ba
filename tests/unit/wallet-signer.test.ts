// The page reads a quote's typed data from the stream before its wallet signs it: EIP-3009's flat
// message for `exact`, and for `upto` Permit2's witness transfer, whose message holds structs and
// whose domain has no version. Both come out as the wallet signs them, integers as bigint.
import { PERMIT2_ADDRESS } from "@/lib/chain/permit2-address";
import { hashTypedData } from "viem";
import { describe, expect, test } from "vitest";
import { signingProblem } from "@/lib/chain/signable-payments";
import { payerOfTypedData, readApprovalTypedData, walletMessage, type ApprovalTypedData } from "@/lib/client/wallet-signer";

const permit2 = {
  domain: { name: "Permit2", chainId: 31337, verifyingContract: "0x000000000022D473030F116dDEE9F6B43aC78BA3" },
  types: {
    PermitWitnessTransferFrom: [
      { name: "permitted", type: "TokenPermissions" },
      { name: "spender", type: "address" },
      { name: "nonce", type: "uint256" },
      { name: "deadline", type: "uint256" },
      { name: "witness", type: "Witness" },
    ],
    TokenPermissions: [
      { name: "token", type: "address" },
      { name: "amount", type: "uint256" },
    ],
    Witness: [
      { name: "to", type: "address" },
      { name: "facilitator", type: "address" },
      { name: "validAfter", type: "uint256" },
    ],
  },
  primaryType: "PermitWitnessTransferFrom",
  message: {
    permitted: { token: "0x5FbDB2315678afecb367f032d93F642f64180aa3", amount: "20000" },
    spender: "0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002",
    nonce: "123456789012345678901234567890",
    deadline: "1900000000",
    witness: { to: "0x90F79bf6EB2c4f870365E785982E1f101E93b906", facilitator: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", validAfter: "0" },
  },
};

describe("a quote's typed data, read for the wallet", () => {
  test("upto's Permit2 witness transfer: structs within the message, no domain version", () => {
    const read = readApprovalTypedData(permit2);
    expect(read).toBeDefined();
    if (!read) return;
    expect(read.domain).toEqual(permit2.domain);
    expect(payerOfTypedData(read)).toBeUndefined();
    const message = walletMessage(read);
    expect(message).toEqual({
      permitted: { token: permit2.message.permitted.token, amount: 20_000n },
      spender: permit2.message.spender,
      nonce: 123456789012345678901234567890n,
      deadline: 1_900_000_000n,
      witness: { to: permit2.message.witness.to, facilitator: permit2.message.witness.facilitator, validAfter: 0n },
    });
    // What the wallet signs hashes as EIP-712 typed data.
    expect(hashTypedData({ domain: read.domain, types: read.types, primaryType: read.primaryType, message } as Parameters<typeof hashTypedData>[0])).toMatch(/^0x[0-9a-f]{64}$/);
  });

  test("a message with something other than strings and structs of them is refused", () => {
    expect(readApprovalTypedData({ ...permit2, message: { ...permit2.message, nonce: 1 } })).toBeUndefined();
    expect(readApprovalTypedData({ ...permit2, domain: { ...permit2.domain, version: 2 } })).toBeUndefined();
  });
});

describe("what the page lets its wallet sign for a payment", () => {
  const usdc = permit2.message.permitted.token;
  const networks = [{ chainId: 31337, usdc: { address: usdc } }];
  const read = (value: unknown) => readApprovalTypedData(value) as ApprovalTypedData;
  const authorization = (primaryType: string, verifyingContract: string, chainId = 31337) =>
    read({
      domain: { name: "USD Coin", version: "2", chainId, verifyingContract },
      types: { [primaryType]: [{ name: "from", type: "address" }, { name: "value", type: "uint256" }] },
      primaryType,
      message: { from: "0x90F79bf6EB2c4f870365E785982E1f101E93b906", value: "1000" },
    });

  const usdcPermit = (spender: string) =>
    read({
      domain: { name: "USD Coin", version: "2", chainId: 31337, verifyingContract: usdc },
      types: { Permit: [{ name: "owner", type: "address" }, { name: "spender", type: "address" }, { name: "value", type: "uint256" }] },
      primaryType: "Permit",
      message: { owner: "0x90F79bf6EB2c4f870365E785982E1f101E93b906", spender, value: "1000" },
    });

  test("USDC's own authorizations and Permit2's transfer of that USDC, on a network the page pays on", () => {
    expect(signingProblem(authorization("TransferWithAuthorization", usdc), networks)).toBeUndefined();
    expect(signingProblem(authorization("ReceiveWithAuthorization", usdc.toLowerCase()), networks)).toBeUndefined();
    expect(signingProblem(read(permit2), networks)).toBeUndefined();
    // USDC's EIP-2612 permit for Permit2: upto's gasless first payment from a fresh wallet.
    expect(signingProblem(usdcPermit(PERMIT2_ADDRESS), networks)).toBeUndefined();
  });

  test("anything else a quote's list holds is refused before the wallet is asked", () => {
    // Another token's authorization, a chain the page does not pay on, a permit of another token or for another contract, a type it never signs.
    expect(signingProblem(authorization("TransferWithAuthorization", "0x0000000000000000000000000000000000000bad"), networks)).toMatch(/USDC contract/);
    expect(signingProblem(authorization("TransferWithAuthorization", usdc, 1), networks)).toMatch(/chain this page does not pay on/);
    expect(signingProblem(read({ ...permit2, message: { ...permit2.message, permitted: { token: "0x0000000000000000000000000000000000000bad", amount: "1" } } }), networks)).toMatch(/other than/);
    expect(signingProblem(read({ ...permit2, domain: { ...permit2.domain, verifyingContract: "0x0000000000000000000000000000000000000bad" } }), networks)).toMatch(/not for Permit2/);
    expect(signingProblem(usdcPermit("0x0000000000000000000000000000000000000bad"), networks)).toMatch(/other than Permit2/);
    expect(signingProblem(authorization("Approve", usdc), networks)).toMatch(/not a payment the page signs/);
  });
});
