// The MCP door on the sandbox, in process: the app's /api/mcp, /api/mcp/grants,
// /api/mcp/payments/{id} and /api/chat over one test database, reached through a fetch that
// routes to their handlers, so the SDK's own MCP client talks to them as to a deployment. A
// test key signs access grants and approvals as the person's wallet would.
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { randomBytes } from "node:crypto";
import type { PrivateKeyAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { handleChatRequest, type ChatDependencies } from "@/lib/chat/handler";
import { createChatTools } from "@/lib/chat/tools";
import type { Database, Queryable, Row } from "@/lib/db";
import { parseServerEnv, type ServerEnv } from "@/lib/env";
import { type AccessGrant, grantTypedData } from "@/lib/chain/access-grant";
import { handleMcpPaymentRequest } from "@/lib/remote/approval-by-link";
import { createGrantsRateLimit, handleGrantsRequest } from "@/lib/remote/grants-request";
import { createMcpRateLimit, handleMcpRequest } from "@/lib/mcp/handler";
import { createRateLimiter } from "@/lib/rate-limit";
import { handleSessionRequest } from "@/lib/session";
import type { TestChat } from "./chat";
import { openTestDatabase } from "./database";

export const ORIGIN = "http://localhost:3000";

export type TestMcp = {
  db: Database;
  env: ServerEnv;
  /** fetch for the app's routes, as a browser or an MCP client reaches them. */
  fetch: typeof fetch;
  /** The chat door on the same database. */
  chat: Pick<TestChat, "post">;
  /** Moves the server's clock (grants and quotes expire). */
  setNow(now: Date | undefined): void;
  close(): Promise<void>;
};

export async function createTestMcp({
  env: extra = {},
  model,
  slowWrites,
}: {
  env?: Record<string, string>;
  model?: LanguageModelV4;
  /** The handlers' writes whose SQL matches are held this long, as on a slow database; the tests read the database directly. */
  slowWrites?: { matching: RegExp; ms: number };
} = {}): Promise<TestMcp> {
  const env = parseServerEnv({ MODEL_PROVIDER: "offline", CHAT_COOLDOWN_SECONDS: "0", APP_URL: ORIGIN, ...extra });
  const db = await openTestDatabase();
  const handlersDb = slowWrites ? withSlowWrites(db, slowWrites) : db;
  let clock: Date | undefined;
  const now = () => clock ?? new Date();
  const base = { env: () => env, database: async () => handlersDb, now, log: () => undefined };
  const chatDeps: ChatDependencies = { ...base, createTools: createChatTools, ...(model ? { chatModel: () => ({ model, id: "mock-model" }) } : {}) };
  const mcpRate = createMcpRateLimit();
  const grantsRate = createGrantsRateLimit();
  const sessionRate = createRateLimiter({ limit: 10_000, windowMs: 60_000 });
  const route = (request: Request): Promise<Response> => {
    const { pathname } = new URL(request.url);
    if (pathname === "/api/mcp") return handleMcpRequest(request, { ...base, rateLimit: mcpRate });
    if (pathname === "/api/mcp/grants") return handleGrantsRequest(request, { ...base, rateLimit: grantsRate });
    const payment = pathname.match(/^\/api\/mcp\/payments\/([^/]+)$/);
    if (payment?.[1]) return handleMcpPaymentRequest(request, decodeURIComponent(payment[1]), base);
    if (pathname === "/api/chat") return handleChatRequest(request, chatDeps);
    if (pathname === "/api/session") return handleSessionRequest(request, { ...base, rateLimit: sessionRate });
    return Promise.resolve(new Response("not found", { status: 404 }));
  };
  const routedFetch = (async (input: RequestInfo | URL, init?: RequestInit) => route(new Request(input, init))) as typeof fetch;
  return {
    db,
    env,
    fetch: routedFetch,
    chat: {
      post: (body, init = {}) =>
        route(new Request(`${ORIGIN}/api/chat`, { method: "POST", headers: { "content-type": "application/json", ...init.headers }, body: JSON.stringify(body) })),
    },
    setNow: (next) => {
      clock = next;
    },
    close: () => db.close(),
  };
}

function withSlowWrites(db: Database, { matching, ms }: { matching: RegExp; ms: number }): Database {
  const held = async (sql: string) => {
    if (matching.test(sql)) await new Promise((resolve) => setTimeout(resolve, ms));
  };
  const slow = (target: Queryable): Queryable => ({
    async query<T extends Row>(sql: string, params?: unknown[]) {
      await held(sql);
      return target.query<T>(sql, params);
    },
  });
  return { ...slow(db), transaction: (work) => db.transaction((tx) => work(slow(tx))), close: () => db.close() };
}

export type GrantLimitsUsd = { daily: bigint; weekly: bigint; monthly: bigint; perPayment: bigint };

/** A grant as the page makes it: random id, the limits, a week by default, for this origin. */
export function newGrant(wallet: `0x${string}`, limits: GrantLimitsUsd, { days = 7, label = "Test app" }: { days?: number; label?: string } = {}): AccessGrant {
  return {
    id: randomBytes(16).toString("hex"),
    wallet,
    label,
    limits: { daily: String(limits.daily), weekly: String(limits.weekly), monthly: String(limits.monthly), perPayment: String(limits.perPayment) },
    validUntil: Math.floor(Date.now() / 1000) + days * 86_400,
    server: ORIGIN,
  };
}

/** Signs a grant with the wallet and asks the server for its bearer token, as the page does. */
export async function issueGrant(mcp: TestMcp, signer: Pick<PrivateKeyAccount, "signTypedData">, grant: AccessGrant, chainId: number) {
  const signature = await signer.signTypedData(grantTypedData(grant, chainId));
  const response = await mcp.fetch(`${ORIGIN}/api/mcp/grants`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ grant, chainId, signature }),
  });
  return { response, body: (await response.json()) as { token?: string; grant?: AccessGrant; error?: { code: string; message: string } } };
}

/** Signs the wallet in as the page does (docs/contract.md, section 9) and returns its session cookie. */
export async function signIn(mcp: TestMcp, signer: Pick<PrivateKeyAccount, "address" | "signMessage">, chainId: number): Promise<string> {
  const challenge = await mcp.fetch(`${ORIGIN}/api/session`);
  const { nonce, domain, uri } = (await challenge.json()) as { nonce: string; domain: string; uri: string };
  const cookieOf = (response: Response) =>
    response.headers
      .getSetCookie()
      .map((value) => value.split(";")[0] ?? "")
      .filter((pair) => !pair.endsWith("="))
      .join("; ");
  const message = createSiweMessage({ address: signer.address, chainId, domain, uri, nonce, version: "1", issuedAt: new Date() });
  const response = await mcp.fetch(`${ORIGIN}/api/session`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie: cookieOf(challenge) },
    body: JSON.stringify({ message, signature: await signer.signMessage({ message }) }),
  });
  if (response.status !== 200) throw new Error(`sign-in refused: ${await response.text()}`);
  return cookieOf(response);
}

/** The SDK's own MCP client, connected to the door with this bearer token. */
export async function connectClient(mcp: TestMcp, token: string): Promise<Client> {
  const client = new Client({ name: "test-app", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${ORIGIN}/api/mcp`), {
    fetch: mcp.fetch,
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** A tool's answer, read from its JSON text. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown> & { status?: string; summary?: string }> {
  const result = await client.callTool({ name, arguments: args });
  const [first] = result.content as Array<{ type: string; text?: string }>;
  if (result.isError) throw new Error(`tool ${name} failed: ${first?.text}`);
  return JSON.parse(first?.text ?? "{}");
}

/**
 * The same routes over real HTTP on 127.0.0.1 (a free port), for a client in another process
 * (the stdio bridge): each Node request becomes a web Request to the app's handlers, and their
 * Response is written back as it streams.
 */
export async function serveOverHttp(mcp: TestMcp): Promise<{ url: string; close(): Promise<void> }> {
  const { createServer } = await import("node:http");
  const server = createServer((incoming, outgoing) => {
    const aborted = new AbortController();
    outgoing.on("close", () => {
      if (!outgoing.writableFinished) aborted.abort();
    });
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      void (async () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          if (value === undefined) continue;
          for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
        }
        const method = incoming.method ?? "GET";
        const body = method === "GET" || method === "HEAD" ? undefined : Buffer.concat(chunks);
        const response = await mcp.fetch(new Request(new URL(incoming.url ?? "/", url), { method, headers, body, signal: aborted.signal }));
        const out: Record<string, string | string[]> = {};
        response.headers.forEach((value, name) => {
          if (name !== "set-cookie" && name !== "content-length" && name !== "transfer-encoding" && name !== "connection") out[name] = value;
        });
        const cookies = response.headers.getSetCookie();
        if (cookies.length > 0) out["set-cookie"] = cookies;
        outgoing.writeHead(response.status, out);
        if (response.body) {
          const reader = response.body.getReader();
          for (let read = await reader.read(); !read.done; read = await reader.read()) outgoing.write(read.value);
        }
        outgoing.end();
      })().catch((error: unknown) => {
        if (!outgoing.headersSent) outgoing.writeHead(500, { "content-type": "text/plain" });
        outgoing.end(error instanceof Error ? error.message : String(error));
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the test server has no port");
  const url = `http://127.0.0.1:${address.port}`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
