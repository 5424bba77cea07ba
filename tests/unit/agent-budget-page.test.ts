// The page's own wall around the agent budget's key (lib/client/agent-budget.ts): the key signs a
// quote only when it is a USDC transfer from the budget's address, on the budget's network and
// token, within the person's threshold and the grant; and the stored budget is the connected
// wallet's, usable until it is revoked or expires.
import { describe, expect, test } from "vitest";
import type { WalletNetwork } from "@/lib/chain/wallet-networks";
import { transferWithAuthorizationTypes } from "@/lib/chain/typed-data";
import { UserRejectedRequestError } from "viem";
import {
  isBudgetUsable,
  readStoredBudget,
  removeStoredBudget,
  sessionQuoteProblem,
  wasRefusedByWallet,
  writeStoredBudget,
  type QuotedPayment,
  type StoredAgentBudget,
} from "@/lib/client/agent-budget";
import type { ApprovalTypedData } from "@/lib/client/wallet-signer";

const wallet = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
const session = "0x2D7614f1D1E1B1F6bD5CDd4e9c4cF0E1d9b93654";
const usdc = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const network: WalletNetwork = { id: "eip155:84532", chainId: 84532, name: "Base Sepolia", testnet: true, usdc: { address: usdc, decimals: 6, name: "USDC", version: "2" } };
const budget: StoredAgentBudget = {
  grant: { wallet, session, maxAmount: "50000", validUntil: 1_900_000_000, networks: [network.id], signature: `0x${"ab".repeat(65)}` },
  network,
  sealedKey: { iv: "aXY=", data: "ZGF0YQ==" },
  grantedAt: "2026-11-23T12:00:00.000Z",
  fundingTx: `0x${"12".repeat(32)}`,
};

const payTo = "0x1111111111111111111111111111111111111111";
const now = new Date("2026-11-23T12:00:00Z");
const seconds = Math.floor(now.getTime() / 1000);
/** What the quote's card says: the payee, the amount, the deadline (five minutes from now). */
const card: QuotedPayment = { payTo, amount: 2000n, expiresAt: new Date((seconds + 300) * 1000) };

type QuoteChange = {
  from?: string;
  to?: string;
  value?: string;
  chainId?: number;
  verifyingContract?: `0x${string}`;
  name?: string;
  version?: string;
  primaryType?: string;
  validBefore?: number;
  validAfter?: number;
  types?: ApprovalTypedData["types"];
};
const quote = (change: QuoteChange = {}): ApprovalTypedData => ({
  domain: { name: change.name ?? "USDC", version: change.version ?? "2", chainId: change.chainId ?? 84532, verifyingContract: change.verifyingContract ?? usdc },
  types: change.types ?? structuredClone(transferWithAuthorizationTypes) as unknown as ApprovalTypedData["types"],
  primaryType: change.primaryType ?? "TransferWithAuthorization",
  message: {
    from: change.from ?? session.toLowerCase(),
    to: change.to ?? payTo,
    value: change.value ?? "2000",
    validAfter: String(change.validAfter ?? 0),
    validBefore: String(change.validBefore ?? seconds + 300),
    nonce: `0x${"00".repeat(32)}`,
  },
});

describe("what the agent budget's key signs", () => {
  test("a small transfer from its address on its network is signed", () => {
    expect(sessionQuoteProblem(quote(), budget, 10_000n, card, now)).toBeUndefined();
  });

  test.each([
    ["another payer", quote({ from: wallet }), "it is not for the agent budget's address"],
    ["another chain", quote({ chainId: 8453 }), "it is not for USDC on Base Sepolia"],
    ["another token", quote({ verifyingContract: "0x0000000000000000000000000000000000000bad" }), "it is not for USDC on Base Sepolia"],
    ["more than the threshold", quote({ value: "10001" }), "it is above your confirmation threshold"],
    ["something other than a transfer", quote({ primaryType: "Permit" }), "it is not a USDC transfer authorization"],
    ["types that are not EIP-3009's", quote({ types: { TransferWithAuthorization: [{ name: "from", type: "address" }] } }), "it is not a USDC transfer authorization"],
    ["another token's EIP-712 name", quote({ name: "USD Coin" }), "it is not for USDC on Base Sepolia"],
    ["another version", quote({ version: "1" }), "it is not for USDC on Base Sepolia"],
    ["a payee other than the quote's", quote({ to: wallet }), "it pays someone other than the quote's service"],
    ["an amount other than the quote's", quote({ value: "1999" }), "its amount is not the quote's"],
    ["a window past the quote's deadline", quote({ validBefore: seconds + 301 }), "it is valid for longer than the quote"],
    ["a window of a year", quote({ validBefore: seconds + 365 * 24 * 3600 }), "it is valid for longer than the quote"],
    ["an authorization already expired", quote({ validBefore: seconds - 1 }), "it is valid for longer than the quote"],
    ["an authorization valid only later", quote({ validAfter: seconds + 60 }), "it is valid for longer than the quote"],
  ])("%s is refused", (_, typedData, problem) => {
    const value = BigInt(String(typedData.message.value ?? "0"));
    // The card and the typed data agree on the amount, so the threshold case is judged on its own.
    expect(sessionQuoteProblem(typedData, budget, 10_000n, value > 10_000n ? { ...card, amount: value } : card, now)).toBe(problem);
  });

  test("more than the whole grant is refused even under a higher threshold", () => {
    expect(sessionQuoteProblem(quote({ value: "50001" }), budget, 1_000_000n, { ...card, amount: 50_001n }, now)).toBe("it is more than the whole budget");
  });
});

describe("the stored budget", () => {
  const storage = () => {
    const values = new Map<string, string>();
    return { getItem: (key: string) => values.get(key) ?? null, setItem: (key: string, value: string) => void values.set(key, value), removeItem: (key: string) => void values.delete(key) };
  };

  test("is the connected wallet's, whatever the address's case, and gone once removed", () => {
    const store = storage();
    writeStoredBudget(budget, store);
    expect(readStoredBudget(wallet.toLowerCase(), store)).toEqual(budget);
    expect(readStoredBudget(session, store)).toBeUndefined();
    removeStoredBudget(wallet, store);
    expect(readStoredBudget(wallet, store)).toBeUndefined();
  });

  test("is usable once its transfer is mined, until it is revoked or expires", () => {
    expect(isBudgetUsable(budget, new Date("2026-11-23T12:00:00Z"))).toBe(true);
    const { fundingTx: _, ...unfunded } = budget;
    expect(isBudgetUsable(unfunded, new Date("2026-11-23T12:00:00Z"))).toBe(false);
    expect(isBudgetUsable({ ...budget, revokedAt: "2026-11-23T12:30:00Z" }, new Date("2026-11-23T12:00:00Z"))).toBe(false);
    expect(isBudgetUsable(budget, new Date(1_900_000_000 * 1000))).toBe(false);
    expect(isBudgetUsable(undefined)).toBe(false);
  });
});

describe("when a failed grant may forget its key", () => {
  test("only when the wallet refused to send the transfer: nothing can arrive then", () => {
    expect(wasRefusedByWallet(new UserRejectedRequestError(new Error("User rejected the request.")))).toBe(true);
    expect(wasRefusedByWallet({ code: 4001, message: "User rejected the request." })).toBe(true);
    expect(wasRefusedByWallet(new Error("wrapped", { cause: { code: 4001 } }))).toBe(true);
  });

  test("never after a timeout, a dropped connection or an RPC error: the transfer may still land, and its USDC must find its key", () => {
    expect(wasRefusedByWallet(new Error("The request took too long to respond."))).toBe(false);
    expect(wasRefusedByWallet({ code: -32603, message: "Internal JSON-RPC error." })).toBe(false);
    expect(wasRefusedByWallet(new Error("Failed to fetch"))).toBe(false);
    expect(wasRefusedByWallet(undefined)).toBe(false);
  });
});
