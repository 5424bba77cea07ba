// Anvil can file a transaction as waiting for an earlier one of its sender that was already mined
// (one checked against the chain while that one was being mined): it then never mines it, nor
// anything the sender sends after it. Many settlements at once from the facilitator's one account
// met it under load, and every later settlement waited out its 30 s. The sandbox's chain frees
// such a transaction. The state is made here as the race leaves it: a transaction waiting for
// the nonce before its own, and the account's nonce then moved up to its own.
import { createPublicClient, createTestClient, createWalletClient, http, parseEther } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startChain, type Chain } from "@/sandbox/chain";
import { freePort } from "@/sandbox/ports";

// Anvil's first dev account, and the second as the receiver.
const sender = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const receiver = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

let chain: Chain;
beforeAll(async () => {
  chain = await startChain({ port: await freePort() });
});
afterAll(async () => {
  await chain?.stop();
});

describe("the sandbox's chain", () => {
  it("mines a transaction anvil left waiting for one its sender already had mined, and those after it", { timeout: 30_000 }, async () => {
    const transport = http(chain.rpcUrl);
    const publicClient = createPublicClient({ chain: foundry, transport });
    const wallet = createWalletClient({ account: sender, chain: foundry, transport });
    const testClient = createTestClient({ chain: foundry, mode: "anvil", transport });
    const start = await publicClient.getTransactionCount({ address: sender.address });
    const send = (nonce: number) => wallet.sendTransaction({ to: receiver, value: parseEther("0.001"), nonce, gas: 21_000n });
    // Two transactions filed as waiting for the one before the first, which never comes ...
    const first = await send(start + 1);
    const second = await send(start + 2);
    // ... and the account's nonce moved up to the first's, as a mined transaction would.
    await testClient.setNonce({ address: sender.address, nonce: start + 1 });

    const [firstReceipt, secondReceipt] = await Promise.all(
      [first, second].map((hash) => publicClient.waitForTransactionReceipt({ hash, pollingInterval: 100, timeout: 10_000 })),
    );
    expect(firstReceipt?.status).toBe("success");
    expect(secondReceipt?.status).toBe("success");
    expect(await publicClient.getTransactionCount({ address: sender.address })).toBe(start + 3);
  });
});
