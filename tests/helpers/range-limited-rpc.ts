// A JSON-RPC proxy on loopback in front of the test chain that limits `eth_getLogs` as hosted
// providers do: a range wider than `maxBlocks` (with `latest` read from the chain, and a missing
// or `earliest` start read as block 0) is answered with their error, -32005 "block range is too
// wide"; every other call, and every narrower search, passes through. It keeps the ranges it
// answered and how many it refused, so a test can tell how a search was cut.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

type RpcCall = { jsonrpc?: string; id?: unknown; method?: unknown; params?: unknown };
type LogFilter = { fromBlock?: unknown; toBlock?: unknown; blockHash?: unknown };

export type RangeLimitedRpc = {
  url: string;
  /** The `eth_getLogs` ranges passed through, inclusive, in the order they arrived. */
  readonly searched: { from: bigint; to: bigint }[];
  /** How many `eth_getLogs` calls were refused as too wide. */
  readonly refused: number;
  close(): Promise<void>;
};

export async function startRangeLimitedRpc(target: string, { maxBlocks }: { maxBlocks: bigint }): Promise<RangeLimitedRpc> {
  const searched: { from: bigint; to: bigint }[] = [];
  let refused = 0;

  const upstream = async (call: RpcCall): Promise<unknown> => {
    const answer = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(call) });
    return answer.json();
  };

  const latestBlock = async (): Promise<bigint> => {
    const answer = (await upstream({ jsonrpc: "2.0", id: 0, method: "eth_blockNumber", params: [] })) as { result?: string };
    if (typeof answer.result !== "string") throw new Error(`the chain gave no block number: ${JSON.stringify(answer)}`);
    return BigInt(answer.result);
  };

  // A block tag as a provider reads it: a hex number, `earliest` (0), or the chain's head otherwise.
  const blockOf = async (tag: unknown, missing: "earliest" | "latest"): Promise<bigint> => {
    const named = tag ?? missing;
    if (typeof named === "string" && /^0x[0-9a-f]+$/i.test(named)) return BigInt(named);
    if (named === "earliest") return 0n;
    return latestBlock();
  };

  const answer = async (call: RpcCall): Promise<unknown> => {
    if (call.method !== "eth_getLogs") return upstream(call);
    const filter = (Array.isArray(call.params) ? call.params[0] : undefined) as LogFilter | undefined;
    // A search of one block by its hash has no range to limit.
    if (filter?.blockHash !== undefined) return upstream(call);
    const from = await blockOf(filter?.fromBlock, "earliest");
    const to = await blockOf(filter?.toBlock, "latest");
    if (to >= from && to - from + 1n > maxBlocks) {
      refused += 1;
      return { jsonrpc: "2.0", id: call.id ?? null, error: { code: -32005, message: "block range is too wide" } };
    }
    searched.push({ from, to });
    return upstream(call);
  };

  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as RpcCall | RpcCall[];
      const result = Array.isArray(body) ? await Promise.all(body.map(answer)) : await answer(body);
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(result));
    } catch (error) {
      response.writeHead(502, { "content-type": "application/json" });
      response.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32603, message: String(error) } }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    searched,
    get refused() {
      return refused;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
