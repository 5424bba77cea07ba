// The app's own transaction page reads the chain once per transaction, not once per visit: a
// page loaded in a loop must not spend the deployment's RPC quota. A mined transaction is kept;
// one the chain does not know is asked again only after a short while.
import { createPublicClient, http, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { findNetwork } from "@/lib/chain/networks";
import { getTransactionSummary } from "@/lib/chain/transaction";
import { parseServerEnv } from "@/lib/env";
import { startSandbox, type Sandbox } from "@/sandbox";
import { newPayer, sandboxEnv } from "@/tests/helpers/paid-chat";
import { startStallingRpc, type StallingRpc } from "@/tests/helpers/stalling-rpc";

let sandbox: Sandbox;
let rpc: StallingRpc;
beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  rpc = await startStallingRpc(sandbox.info.rpcUrl);
});
afterAll(async () => {
  await rpc?.close();
  await sandbox?.stop();
});

describe("the transaction page's chain reads", () => {
  test("a mined transaction is read once however often its page is loaded; an unknown one at most every few seconds", async () => {
    const network = findNetwork(sandbox.info.network, parseServerEnv(sandboxEnv(sandbox, { [`RPC_URL_${sandbox.info.chainId}`]: rpc.url })));
    if (!network) throw new Error("no sandbox network");
    await newPayer(sandbox, 1_000n);
    const block = await createPublicClient({ transport: http(sandbox.info.rpcUrl) }).getBlock({ blockTag: "latest" });
    const [hash] = block.transactions;
    if (!hash) throw new Error("no transaction in the latest block");

    const before = rpc.calls;
    for (let visit = 0; visit < 10; visit += 1) expect((await getTransactionSummary({ network, hash }))?.status).toBe("success");
    const perTransaction = rpc.calls - before;
    expect(perTransaction).toBeGreaterThan(0);
    expect(perTransaction).toBeLessThanOrEqual(3);

    const unknown = `0x${"42".repeat(32)}` as Hex;
    const start = rpc.calls;
    for (let visit = 0; visit < 10; visit += 1) expect(await getTransactionSummary({ network, hash: unknown })).toBeUndefined();
    expect(rpc.calls - start).toBe(1);
  });
});
