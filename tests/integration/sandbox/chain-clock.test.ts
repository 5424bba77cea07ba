// The demo's chain keeps time as a live chain does: with no transaction arriving, its blocks still
// follow the wall clock, so a window read by a block's time (Permit2's and EIP-3009's, a maximum
// "held until 22:17 unless the service collects it") runs out on an idle demo too. The tests'
// chain mines only when a transaction arrives, and stays where it was.
import { createPublicClient, http } from "viem";
import { foundry } from "viem/chains";
import { afterAll, describe, expect, it } from "vitest";
import { startChain, type Chain } from "@/sandbox/chain";
import { freePort } from "@/sandbox/ports";

const started: Chain[] = [];
afterAll(async () => {
  for (const chain of started) await chain.stop();
});

const latestOf = (chain: Chain) => createPublicClient({ chain: foundry, transport: http(chain.rpcUrl) }).getBlock();

describe("the sandbox chain's clock", () => {
  it("with a clock, an idle chain's latest block keeps up with the wall clock; without one, it stays", { timeout: 60_000 }, async () => {
    const [ticking, still] = await Promise.all([startChain({ port: await freePort(), clock: { everyMs: 500 } }), startChain({ port: await freePort() })]);
    started.push(ticking, still);
    const [tickingBefore, stillBefore] = await Promise.all([latestOf(ticking), latestOf(still)]);
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    const [tickingAfter, stillAfter] = await Promise.all([latestOf(ticking), latestOf(still)]);

    expect(tickingAfter.number).toBeGreaterThan(tickingBefore.number);
    // Its time is the wall clock's, within the clock's pace and a second of rounding.
    expect(Date.now() / 1000 - Number(tickingAfter.timestamp)).toBeLessThan(2.5);
    expect(stillAfter.number).toBe(stillBefore.number);
    expect(Number(stillAfter.timestamp)).toBe(Number(stillBefore.timestamp));
  });
});
