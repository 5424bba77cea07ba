// A pay-as-you-go channel's payment option (x402 `batch-settlement`), as a stranger may send it:
// paid here only with the fields a channel needs, each of the right kind, and a deposit through
// EIP-3009; otherwise refused with the reason a person can read.
import type { PaymentRequirements } from "@x402/core/types";
import { describe, expect, test } from "vitest";
import { parseServerEnv } from "@/lib/env";
import { checkChannelRequirement } from "@/lib/payments/rails/evm/channel/requirement";

const env = parseServerEnv({ X402_NETWORKS: "eip155:84532" });
const requirement = {
  scheme: "batch-settlement",
  network: "eip155:84532",
  amount: "1000",
  asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
  payTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
  maxTimeoutSeconds: 60,
  extra: { name: "USDC", version: "2", receiverAuthorizer: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", withdrawDelay: 900, minDeposit: "50000" },
} satisfies PaymentRequirements;
const withExtra = (extra: Record<string, unknown>): PaymentRequirements => ({ ...requirement, extra: { ...requirement.extra, ...extra } });

describe("a channel's payment option", () => {
  test("paid with its price per call, the service's authorizer, its withdrawal delay and the deposit it suggests", () => {
    expect(checkChannelRequirement(requirement, env, { x402Version: 2 })).toMatchObject({
      payable: true,
      amount: 1000n,
      receiverAuthorizer: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
      withdrawDelay: 900,
      suggestedDeposit: 50_000n,
    });
    expect(checkChannelRequirement(withExtra({ minDeposit: undefined }), env)).toMatchObject({ payable: true, suggestedDeposit: undefined });
  });

  test.each<[PaymentRequirements, string]>([
    [withExtra({ receiverAuthorizer: "0x0000000000000000000000000000000000000000" }), "the channel names no receiverAuthorizer to sign its claims and refunds"],
    [withExtra({ receiverAuthorizer: undefined }), "the channel names no receiverAuthorizer to sign its claims and refunds"],
    [withExtra({ withdrawDelay: 60 }), "the channel's withdrawal delay is not between 15 minutes and 30 days"],
    [withExtra({ withdrawDelay: "900" }), "the channel's withdrawal delay is not between 15 minutes and 30 days"],
    [withExtra({ withdrawDelay: 31 * 24 * 3600 }), "the channel's withdrawal delay is not between 15 minutes and 30 days"],
    [withExtra({ assetTransferMethod: "permit2" }), "the channel's deposit is asked through Permit2, which is not paid here"],
    [withExtra({ minDeposit: "999" }), "the channel's suggested deposit is not a whole number of atomic units at least the price of a call"],
    [withExtra({ minDeposit: 50_000 }), "the channel's suggested deposit is not a whole number of atomic units at least the price of a call"],
    [withExtra({ name: "USD Coin" }), "the EIP-712 domain is not USDC version 2"],
    [{ ...requirement, amount: "0" }, "the price per call is not a positive whole number of atomic units"],
    [{ ...requirement, network: "eip155:1" as const }, "network eip155:1 is not enabled here"],
    [{ ...requirement, scheme: "exact" }, "scheme exact is not supported"],
  ])("refused, with the reason, when a field is missing or wrong (%#)", (option, reason) => {
    expect(checkChannelRequirement(option, env, { x402Version: 2 })).toEqual({ payable: false, reason });
  });

  test("not in x402 version 1", () => {
    expect(checkChannelRequirement(requirement, env, { x402Version: 1 })).toEqual({ payable: false, reason: "channels are paid in x402 version 2 only" });
  });
});
