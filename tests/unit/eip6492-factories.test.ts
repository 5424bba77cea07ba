// Which factories may deploy an account that pays before it exists (ERC-6492): the facilitator
// deploys it at its own expense, so the list is closed, and on Base and Base Sepolia it holds
// Coinbase Smart Wallet's, so a Base Account made a minute ago with a passkey pays at once.
import { createPublicClient, custom, isAddressEqual, isErc6492Signature, numberToHex, parseErc6492Signature } from "viem";
import { toCoinbaseSmartAccount } from "viem/account-abstraction";
import { privateKeyToAccount } from "viem/accounts";
import { base, baseSepolia } from "viem/chains";
import { describe, expect, it } from "vitest";
import { eip6492FactoriesOf } from "@/lib/chain/networks";

describe("ERC-6492 factories", () => {
  it("on Base and Base Sepolia are Coinbase Smart Wallet's two; elsewhere none but the sandbox's deployer", () => {
    expect(eip6492FactoriesOf({ chainId: 8453 })).toEqual([
      "0x0ba5ed0c6aa8c49038f819e587e2633c4a9f428a",
      "0xba5ed110efdba3d005bfc882d75358acbbb85842",
    ]);
    expect(eip6492FactoriesOf({ chainId: 84532 })).toEqual(eip6492FactoriesOf({ chainId: 8453 }));
    for (const chainId of [1, 42161, 137, 43114, 10]) expect(eip6492FactoriesOf({ chainId })).toEqual([]);
    expect(eip6492FactoriesOf({ chainId: 31337 })).toEqual(["0x4e59b44847b379578588920ca78fbf26c0b4956c"]);
  });

  it.each(["1", "1.1"] as const)(
    "allow the factory a Coinbase Smart Wallet of version %s names when it signs a payment before it is deployed",
    async (version) => {
      // The chain, answered here: the account has no code yet. Nothing leaves this process.
      const transport = custom({
        async request({ method }: { method: string }) {
          if (method === "eth_getCode") return "0x";
          if (method === "eth_chainId") return numberToHex(base.id);
          throw new Error(`unexpected ${method}`);
        },
      });
      const client = createPublicClient({ chain: base, transport });
      const owner = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
      const account = await toCoinbaseSmartAccount({ client, owners: [owner], version, address: "0x1111111111111111111111111111111111111111" });
      const signature = await account.signTypedData({
        domain: { name: "USD Coin", version: "2", chainId: base.id, verifyingContract: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" },
        types: { Payment: [{ name: "value", type: "uint256" }] },
        primaryType: "Payment",
        message: { value: 1000n },
      });
      expect(isErc6492Signature(signature)).toBe(true);
      const { address: factory } = parseErc6492Signature(signature);
      if (!factory) throw new Error("no factory in the signature");
      for (const chainId of [base.id, baseSepolia.id]) {
        expect(eip6492FactoriesOf({ chainId }).some((allowed) => isAddressEqual(allowed, factory))).toBe(true);
      }
    },
  );
});
