// The one rule for what can be paid here (the rails' exact schemes, lib/payments/rails): scheme, network in the v1
// and v2 spellings, USDC with its EIP-712 domain, a positive whole amount, payTo an address.
import type { PaymentRequirements } from "@x402/core/types";
import { EvmNetworkToChainId } from "x402/types";
import { describe, expect, test } from "vitest";
import { parseServerEnv } from "@/lib/env";
import { checkAnyRequirement } from "@/lib/payments/rails";
import { amountOf, caip2Of, checkRequirement } from "@/lib/payments/rails/evm/exact/requirement";
import { checkSolanaRequirement } from "@/lib/payments/rails/solana/exact/requirement";

const env = parseServerEnv({ X402_NETWORKS: "eip155:84532,eip155:8453" });
const baseSepoliaUsdc = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const baseUsdc = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const payTo = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";

const v2: PaymentRequirements = {
  scheme: "exact",
  network: "eip155:84532",
  amount: "10000",
  asset: baseSepoliaUsdc,
  payTo,
  maxTimeoutSeconds: 60,
  extra: { name: "USDC", version: "2" },
};

// As a v1 service or registry sends it: a network name and `maxAmountRequired`.
const v1 = {
  scheme: "exact",
  network: "base-sepolia",
  maxAmountRequired: "10000",
  resource: "https://weather.example/now",
  description: "Weather",
  mimeType: "application/json",
  payTo,
  maxTimeoutSeconds: 60,
  asset: baseSepoliaUsdc,
  extra: { name: "USDC", version: "2" },
} as unknown as PaymentRequirements;

const variant = (base: PaymentRequirements, changes: Record<string, unknown>) => ({ ...base, ...changes }) as unknown as PaymentRequirements;
const reasonOf = (requirements: PaymentRequirements, options?: { x402Version?: number }) => {
  const check = checkRequirement(requirements, env, options);
  return check.payable ? "payable" : check.reason;
};

describe("network spellings", () => {
  test("v1 names map to the chain ids of the x402 v1 packages; CAIP-2 ids pass through", () => {
    expect(caip2Of("base-sepolia")).toBe("eip155:84532");
    expect(caip2Of("base")).toBe("eip155:8453");
    expect(caip2Of("eip155:84532")).toBe("eip155:84532");
    // The v1 package's own table agrees for every EVM name both know.
    for (const [name, chainId] of EvmNetworkToChainId) {
      const id = caip2Of(name);
      if (id !== undefined) expect(id, name).toBe(`eip155:${chainId}`);
    }
    expect(caip2Of("base-mainnet")).toBeUndefined();
    expect(caip2Of("solana")).toBeUndefined();
    expect(caip2Of("toString")).toBeUndefined();
    expect(caip2Of(8453)).toBeUndefined();
  });

  test("with a protocol version, only that version's spelling counts", () => {
    expect(caip2Of("base-sepolia", 1)).toBe("eip155:84532");
    expect(caip2Of("base-sepolia", 2)).toBeUndefined();
    expect(caip2Of("eip155:84532", 2)).toBe("eip155:84532");
    expect(caip2Of("eip155:84532", 1)).toBeUndefined();
  });
});

describe("what can be paid here", () => {
  test("a v2 and a v1 requirement for Base Sepolia USDC are both payable, read the same way", () => {
    for (const requirements of [v2, v1]) {
      const check = checkRequirement(requirements, env);
      expect(check).toMatchObject({ payable: true, amount: 10_000n, asset: baseSepoliaUsdc, payTo });
      if (check.payable) expect(check.network).toMatchObject({ id: "eip155:84532", name: "Base Sepolia" });
    }
    expect(reasonOf(v1, { x402Version: 1 })).toBe("payable");
    expect(reasonOf(v2, { x402Version: 2 })).toBe("payable");
  });

  test("a lowercase asset or payTo is the same address", () => {
    const check = checkRequirement(variant(v2, { asset: baseSepoliaUsdc.toLowerCase(), payTo: payTo.toLowerCase() }), env);
    expect(check).toMatchObject({ payable: true, asset: baseSepoliaUsdc, payTo });
  });

  test("refuses, with a reason, what cannot be paid safely", () => {
    const refusals: [Record<string, unknown>, string][] = [
      [{ scheme: "upto" }, "scheme upto is not supported"],
      [{ network: "eip155:1" }, "network eip155:1 is not enabled here"],
      [{ network: "ethereum" }, "network ethereum is not enabled here"],
      [{ network: "eip155:999999" }, "network eip155:999999 is not enabled here"],
      [{ network: "base-mainnet" }, "network base-mainnet is not enabled here"],
      [{ asset: baseUsdc }, `asset ${baseUsdc} is not USDC on Base Sepolia`],
      [{ asset: undefined }, "asset undefined is not USDC on Base Sepolia"],
      [{ extra: { name: "USD Coin", version: "2" } }, "the EIP-712 domain is not USDC version 2"],
      [{ extra: undefined }, "the EIP-712 domain is not USDC version 2"],
      [{ amount: "0" }, "the amount is not a positive whole number of atomic units"],
      [{ amount: "-5" }, "the amount is not a positive whole number of atomic units"],
      [{ amount: "1.5" }, "the amount is not a positive whole number of atomic units"],
      [{ amount: 10000 }, "the amount is not a positive whole number of atomic units"],
      [{ amount: "1".repeat(79) }, "the amount is not a positive whole number of atomic units"],
      [{ amount: (2n ** 256n).toString() }, "the amount is not a positive whole number of atomic units"],
      [{ payTo: "0x1234" }, "payTo is not an address"],
      // Mixed case with a wrong EIP-55 checksum: a mistyped address.
      [{ payTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287c" }, "payTo is not an address"],
    ];
    for (const [changes, reason] of refusals) expect(reasonOf(variant(v2, changes)), JSON.stringify(changes)).toBe(reason);
  });

  test("a v1 requirement on a CAIP-2 network, or a v2 one on a v1 name, is not payable in that version", () => {
    expect(reasonOf(v1, { x402Version: 2 })).toBe("network base-sepolia is not enabled here");
    expect(reasonOf(v2, { x402Version: 1 })).toBe("network eip155:84532 is not enabled here");
  });

  test("garbage from a registry is refused, never thrown", () => {
    for (const garbage of [null, 42, "exact", { scheme: "exact", network: 84532 }, { scheme: "exact", network: "base", asset: 7 }]) {
      expect(checkRequirement(garbage as unknown as PaymentRequirements, env).payable).toBe(false);
    }
  });

  test("the amount is `amount` in v2 and `maxAmountRequired` in v1", () => {
    expect(amountOf(v2)).toBe(10_000n);
    expect(amountOf(v1)).toBe(10_000n);
    expect(amountOf(variant(v2, { amount: "0" }))).toBeUndefined();
  });
});

describe("a Solana requirement's fee payer", () => {
  const devnet = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
  const solanaEnv = parseServerEnv({ X402_NETWORKS: devnet });
  const facilitator = "2wKupLR9q6wXYppw8Gr2NvWxKBUqm4PPJKkQfoxHDBg4";
  const payee = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
  const wallet = "DRpbCBMxVnDK7maPM5tGv6MvB3v1sRMC86PZ8okm21hy";
  const solana = (feePayer: string) =>
    ({ scheme: "exact", network: devnet, amount: "3000", asset: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", payTo: payee, maxTimeoutSeconds: 60, extra: { feePayer } }) as PaymentRequirements;
  const reason = (check: { payable: boolean; reason?: string }) => (check.payable ? "payable" : check.reason);

  test("is a facilitator: never the payee, and never the wallet that pays; a listing, whose payer is not known, refuses the payee alone", () => {
    expect(reason(checkSolanaRequirement(solana(facilitator), solanaEnv, { payer: wallet }))).toBe("payable");
    expect(reason(checkSolanaRequirement(solana(payee), solanaEnv, { payer: wallet }))).toBe("the fee payer (extra.feePayer) is the payee itself, not a facilitator");
    expect(reason(checkSolanaRequirement(solana(wallet), solanaEnv, { payer: wallet }))).toBe(
      "the fee payer (extra.feePayer) is the paying wallet itself: it would pay the network fee, and its signature alone would complete the transaction",
    );
    expect(reason(checkAnyRequirement(solana(payee), solanaEnv))).toBe("the fee payer (extra.feePayer) is the payee itself, not a facilitator");
    expect(reason(checkAnyRequirement(solana(wallet), solanaEnv))).toBe("payable");
  });
});
