// A loopback HTTP proxy to put in front of a real sandbox part (the chain's JSON-RPC, the
// facilitator) and break it on purpose: pass requests through, answer none of them, cut the
// connection, forward and then lose the answer, hold a request for a while, or answer it
// itself. It can also go down altogether (its port refuses connections) and come back on the
// same port.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";

/** What happens to one request. */
export type Fault =
  /** Forwarded; the answer comes back. */
  | { kind: "pass" }
  /** Never answered: the caller waits until it gives up. */
  | { kind: "stall" }
  /** The connection is cut before anything is forwarded. */
  | { kind: "cut" }
  /** Forwarded, and the upstream does its work, but its answer is cut off on the way back. */
  | { kind: "lose-answer" }
  /** Forwarded after a pause. */
  | { kind: "hold"; ms: number }
  /** Answered by the proxy itself with this JSON, never forwarded: an upstream that says something else. */
  | { kind: "reply"; json: unknown };

export type ProxiedRequest = { method: string; path: string; body: string };

export type FaultProxy = {
  url: string;
  /** Chooses the fault for each request from now on; `undefined` passes every request. */
  setFault(choose: ((request: ProxiedRequest) => Fault) | undefined): void;
  /** Every request that reached the proxy, in order. */
  readonly seen: ProxiedRequest[];
  /** Resolves when a request matching `match` arrives from now on. */
  waitFor(match: (request: ProxiedRequest) => boolean): Promise<ProxiedRequest>;
  /** Stops listening and drops open connections: connections are refused from then on. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
};

const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "host", "content-length"]);

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const target = new URL(upstream);
  let choose: ((request: ProxiedRequest) => Fault) | undefined;
  const seen: ProxiedRequest[] = [];
  const waiters: Array<{ match: (request: ProxiedRequest) => boolean; resolve: (request: ProxiedRequest) => void }> = [];
  const sockets = new Set<Socket>();

  const forward = async (request: IncomingMessage, proxied: ProxiedRequest): Promise<Response> => {
    const headers = Object.fromEntries(
      Object.entries(request.headers).flatMap(([name, value]) =>
        HOP_BY_HOP.has(name) || value === undefined ? [] : [[name, Array.isArray(value) ? value.join(", ") : value]],
      ),
    );
    return fetch(new URL(proxied.path, target), {
      method: proxied.method,
      headers,
      ...(proxied.method === "GET" || proxied.method === "HEAD" ? {} : { body: proxied.body }),
    });
  };

  const reply = async (response: ServerResponse, upstreamResponse: Response) => {
    const body = Buffer.from(await upstreamResponse.arrayBuffer());
    const headers = Object.fromEntries([...upstreamResponse.headers].filter(([name]) => !HOP_BY_HOP.has(name) && name !== "content-encoding"));
    response.writeHead(upstreamResponse.status, { ...headers, "content-length": String(body.length) });
    response.end(body);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const proxied: ProxiedRequest = { method: request.method ?? "GET", path: request.url ?? "/", body: await readBody(request) };
    seen.push(proxied);
    for (const waiter of waiters.filter((candidate) => candidate.match(proxied))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(proxied);
    }
    const fault = choose?.(proxied) ?? { kind: "pass" };
    switch (fault.kind) {
      case "stall":
        return;
      case "cut":
        request.socket.destroy();
        return;
      case "lose-answer":
        await (await forward(request, proxied)).arrayBuffer();
        request.socket.destroy();
        return;
      case "hold":
        await new Promise((resolve) => setTimeout(resolve, fault.ms));
        return reply(response, await forward(request, proxied));
      case "reply":
        return reply(response, Response.json(fault.json));
      case "pass":
        return reply(response, await forward(request, proxied));
    }
  };

  let server: Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const next = createServer((request, response) => {
        handle(request, response).catch(() => request.socket.destroy());
      });
      next.on("connection", (socket) => {
        sockets.add(socket);
        socket.once("close", () => sockets.delete(socket));
      });
      next.once("error", reject);
      next.listen(port, "127.0.0.1", () => {
        const address = next.address();
        if (address && typeof address === "object") port = address.port;
        server = next;
        resolve();
      });
    });
  const down = async () => {
    const current = server;
    server = undefined;
    if (!current) return;
    const closed = new Promise<void>((resolve) => current.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };

  await listen();
  return {
    url: `http://127.0.0.1:${port}`,
    setFault: (next) => {
      choose = next;
    },
    seen,
    waitFor: (match) => new Promise((resolve) => waiters.push({ match, resolve })),
    down,
    up: async () => {
      if (!server) await listen();
    },
    close: down,
  };
}
