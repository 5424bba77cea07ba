/**
 * The small HTTP plumbing every sandbox server shares: listening on loopback, closing without
 * leaving sockets open, JSON bodies in and out, and CORS for browser clients.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { SANDBOX_HOST } from "./ports";

export type RequestHandler = (request: IncomingMessage, response: ServerResponse) => Promise<void>;

export type RunningServer = { url: string; port: number; close(): Promise<void>; server: Server };

const MAX_BODY_BYTES = 1024 * 1024;

/** Headers a browser x402 client must be able to read and send. */
export const CORS_HEADERS: Record<string, string> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
  "Access-Control-Allow-Headers": "Content-Type, PAYMENT-SIGNATURE, X-PAYMENT, Access-Control-Expose-Headers",
  "Access-Control-Expose-Headers": "PAYMENT-REQUIRED, PAYMENT-RESPONSE, X-PAYMENT-RESPONSE",
};

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, "request body too large");
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export async function readJson(request: IncomingMessage): Promise<unknown> {
  const text = await readBody(request);
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, "request body is not valid JSON");
  }
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value));
  response.writeHead(status, { ...CORS_HEADERS, "Content-Type": "application/json; charset=utf-8", ...headers });
  response.end(text);
}

export function requestUrl(request: IncomingMessage): URL {
  return new URL(request.url ?? "/", `http://${request.headers.host ?? SANDBOX_HOST}`);
}

/**
 * Listens on 127.0.0.1 only. Errors thrown by the handler become JSON errors; an `HttpError`
 * keeps its status, anything else is a 500 without internals.
 */
export async function listen(port: number, handler: RequestHandler): Promise<RunningServer> {
  const server: Server = createServer((request, response) => {
    if (request.method === "OPTIONS") {
      response.writeHead(204, CORS_HEADERS);
      response.end();
      return;
    }
    handler(request, response).catch((error: unknown) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      if (error instanceof HttpError) sendJson(response, error.status, { error: error.message });
      else sendJson(response, 500, { error: "internal error" });
    });
  });
  // Keep-alive sockets would otherwise hold close() open for seconds.
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, SANDBOX_HOST, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  const actualPort = typeof address === "object" && address ? address.port : port;
  return {
    port: actualPort,
    url: `http://${SANDBOX_HOST}:${actualPort}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
