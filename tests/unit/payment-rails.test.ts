// The rails' registry (lib/payments/rails): schemes registered for their rail's network pattern,
// found by network id and scheme name, as the x402 packages' x402Client registers them.
import type { PaymentRequirements } from "@x402/core/types";
import { describe, expect, test } from "vitest";
import { parseServerEnv } from "@/lib/env";
import { paymentRails } from "@/lib/payments/rails";

const env = parseServerEnv({ X402_NETWORKS: "eip155:84532,solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1" });

describe("rails keyed by namespace and scheme", () => {
  test("each enabled network's rail and its exact scheme are found by network id and scheme name; upto and channels on EVM only; another scheme nowhere", () => {
    const rails = paymentRails(env);
    for (const id of ["eip155:84532", "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"]) {
      const found = rails.findScheme(id, "exact");
      expect(found?.network.id).toBe(id);
      expect(found?.scheme.scheme).toBe("exact");
      expect(found?.rail.namespace).toBe(id.split(":")[0]);
      expect(rails.findScheme(id, "streaming")).toBeUndefined();
    }
    // Pay-as-you-go channels (x402 `batch-settlement`): a scheme with state, on EVM.
    expect(rails.findScheme("eip155:84532", "batch-settlement")?.scheme.channel).toBeDefined();
    expect(rails.findScheme("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", "batch-settlement")).toBeUndefined();
    // Usage-priced `upto` on EVM; Solana's rests on a program whose binary no package ships.
    expect(rails.findScheme("eip155:84532", "upto")?.scheme.usagePriced).toBe(true);
    expect(rails.findScheme("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", "upto")).toBeUndefined();
    expect(rails.find("cosmos:cosmoshub-4")).toBeUndefined();
  });

  test("a requirement is checked by the scheme it names on the rail its network names", () => {
    const rails = paymentRails(env);
    const requirement = {
      scheme: "exact",
      network: "eip155:84532",
      amount: "10000",
      asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
      payTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
      maxTimeoutSeconds: 60,
      extra: { name: "USDC", version: "2" },
    } satisfies PaymentRequirements;
    const payable = rails.check(requirement, 2);
    expect(payable.payable && [payable.rail.namespace, payable.scheme.scheme, payable.amount]).toEqual(["eip155", "exact", 10_000n]);
    expect(rails.check({ ...requirement, scheme: "upto" }, 2)).toEqual({ payable: false, reason: "the upto option names no facilitator address to collect it" });
    const upto = rails.check({ ...requirement, scheme: "upto", extra: { ...requirement.extra, facilitatorAddress: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC" } }, 2);
    expect(upto.payable && [upto.scheme.scheme, upto.amount]).toEqual(["upto", 10_000n]);
    expect(rails.check({ ...requirement, scheme: "upto", extra: { ...requirement.extra, facilitatorAddress: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC" } }, 1)).toEqual({
      payable: false,
      reason: "upto is paid in x402 version 2 only",
    });
    expect(rails.check({ ...requirement, scheme: "batch-settlement" }, 2)).toEqual({ payable: false, reason: "the channel names no receiverAuthorizer to sign its claims and refunds" });
    expect(rails.check({ ...requirement, scheme: "streaming" }, 2)).toEqual({ payable: false, reason: "scheme streaming is not supported" });
    expect(rails.check({ ...requirement, network: "cosmos:cosmoshub-4" }, 2)).toEqual({ payable: false, reason: "network cosmos:cosmoshub-4 is not enabled here" });
  });

  test("MPP's evm charge is a scheme of the EVM rail only: USDC of an enabled chain, one recipient", () => {
    const rails = paymentRails(env);
    expect(rails.findScheme("eip155:84532", "mpp-evm-charge")?.scheme.scheme).toBe("mpp-evm-charge");
    expect(rails.findScheme("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", "mpp-evm-charge")).toBeUndefined();
    const option = {
      scheme: "mpp-evm-charge",
      network: "eip155:84532",
      amount: "10000",
      asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
      payTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
      maxTimeoutSeconds: 60,
      extra: {},
    } satisfies PaymentRequirements;
    const payable = rails.check(option, 2);
    expect(payable.payable && [payable.rail.namespace, payable.scheme.scheme, payable.amount]).toEqual(["eip155", "mpp-evm-charge", 10_000n]);
    expect(rails.check({ ...option, network: "eip155:8453" }, 2)).toMatchObject({ payable: false, reason: expect.stringMatching(/not one this agent pays on/) });
    expect(rails.check({ ...option, amount: "0" }, 2)).toMatchObject({ payable: false });
    const split = { ...option, extra: { splits: [{ amount: "20000", recipient: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C" }] } };
    expect(rails.check(split, 2)).toMatchObject({ payable: false, reason: expect.stringMatching(/do not add up within its amount/) });
  });
});
