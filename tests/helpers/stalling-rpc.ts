// A JSON-RPC proxy on loopback in front of the test chain: it passes calls through, or, once
// told to stall, holds every call without an answer, as a node that has stopped responding.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type StallingRpc = {
  url: string;
  stall(on: boolean): void;
  /** How many calls arrived while stalled. */
  readonly stalledCalls: number;
  /** How many calls arrived in all (a batch counts once). */
  readonly calls: number;
  close(): Promise<void>;
};

export async function startStallingRpc(target: string): Promise<StallingRpc> {
  let stalled = false;
  let stalledCalls = 0;
  let calls = 0;
  const held = new Set<ServerResponse>();

  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    calls += 1;
    if (stalled) {
      stalledCalls += 1;
      held.add(response);
      return;
    }
    const answer = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body: Buffer.concat(chunks) });
    response.writeHead(answer.status, { "content-type": "application/json" });
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    stall(on) {
      stalled = on;
    },
    get stalledCalls() {
      return stalledCalls;
    },
    get calls() {
      return calls;
    },
    async close() {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
