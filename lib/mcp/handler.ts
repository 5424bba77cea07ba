// POST /api/mcp (docs/contract.md, section 11): a Model Context Protocol server over Streamable
// HTTP, stateless (each request stands alone, as a serverless host runs it). The access grant
// is checked first; a request without a good one is a 401 that says why, before any JSON-RPC
// is read. The body is bounded; what is not JSON is a JSON-RPC parse error. The SDK's server
// and transport do the protocol; ./tools.ts the tools.
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Database } from "@/lib/db";
import type { ServerEnv } from "@/lib/env";
import { AppError, toAppError } from "@/lib/errors";
import { readRequestText } from "@/lib/net/request-body";
import { openPayments, type KeepAlive } from "@/lib/payments";
import { createRateLimiter, type RateLimiter } from "@/lib/rate-limit";
import { readGrantToken } from "@/lib/remote/grant-token";
import { createMcpServer } from "./tools";

/** An MCP request's body: far above any tool's arguments (a paid call's body is at most 64 KiB). */
export const MAX_MCP_BODY_BYTES = 128 * 1024;
/** The longest a request may take: the route's 50 s, less room to answer. */
const DEADLINE_MS = 45_000;

export type McpDependencies = {
  env: () => ServerEnv;
  database: () => Promise<Database>;
  /** Requests per grant per minute. */
  rateLimit: RateLimiter;
  now?: () => Date;
  log?: (message: string, details?: Record<string, unknown>) => void;
  /** Where the host keeps the function alive for the sweep a request starts (Next's `after()`). */
  keepAlive?: KeepAlive;
};

export const createMcpRateLimit = (): RateLimiter => createRateLimiter({ limit: 120, windowMs: 60_000, maxClients: 10_000 });

const defaultLog = (message: string, details?: Record<string, unknown>) => console.error(`[mcp] ${message}`, details ?? "");

export async function handleMcpRequest(request: Request, deps: McpDependencies): Promise<Response> {
  const log = deps.log ?? defaultLog;
  const now = deps.now?.();
  try {
    if (request.method !== "POST") {
      // Stateless: no stream to open with GET, no session to end with DELETE.
      return Response.json(rpcError(-32000, "This MCP server is stateless: send JSON-RPC with POST."), { status: 405, headers: { Allow: "POST" } });
    }
    const env = deps.env();
    const db = await deps.database();
    const grant = await readGrantToken(db, request.headers.get("authorization"), { env, ...(now ? { now } : {}) });
    deps.rateLimit.take(`grant:${grant.id}`, now);
    let body: unknown;
    try {
      body = JSON.parse(await readRequestText(request, MAX_MCP_BODY_BYTES));
    } catch (error) {
      if (error instanceof AppError) throw error;
      return Response.json(rpcError(-32700, "Parse error: the body is not JSON."), { status: 400 });
    }
    const signal = AbortSignal.any([request.signal, AbortSignal.timeout(DEADLINE_MS)]);
    // Opening the payment core keeps the ledger's unfinished payments swept, in the background.
    const payments = openPayments({ db, env, log, ...(now ? { now } : {}), ...(deps.keepAlive ? { keepAlive: deps.keepAlive } : {}) });
    const server = createMcpServer({ db, env, payments, grant, origin: env.appOrigin, signal, ...(deps.now ? { now: deps.now } : {}) });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(acceptingJson(request), { parsedBody: body });
    } finally {
      await server.close();
    }
  } catch (error) {
    const appError = toAppError(error);
    if (appError.status >= 500) log("request failed", { code: appError.code, error: error instanceof Error ? error.name : typeof error });
    const response = appError.toResponse();
    if (appError.code === "unauthorized") response.headers.set("WWW-Authenticate", 'Bearer realm="x402-payment-agent", error="invalid_token"');
    return response;
  }
}

/**
 * The transport answers 406 to a client that does not say it accepts both JSON and an event
 * stream. This door only ever answers JSON, so a plain client (curl, a script) that sends no
 * Accept header, or `application/json` alone, is taken as accepting what it gets.
 */
function acceptingJson(request: Request): Request {
  const accept = request.headers.get("accept") ?? "";
  if (accept.includes("application/json") && accept.includes("text/event-stream")) return request;
  if (accept !== "" && !accept.includes("application/json") && !accept.includes("*/*")) return request;
  const headers = new Headers(request.headers);
  headers.set("accept", "application/json, text/event-stream");
  // The body was read already: the transport is handed it parsed.
  return new Request(request.url, { method: request.method, headers, signal: request.signal });
}

function rpcError(code: number, message: string) {
  return { jsonrpc: "2.0", id: null, error: { code, message } };
}
