// Real HTTP servers on loopback addresses for the outbound-call tests: each records the requests
// it received, so a test can prove that a refused destination was never reached.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

export type LoopbackServer = {
  /** `http://<host>:<port>` */
  origin: string;
  host: string;
  port: number;
  /** Paths of the requests received, in order. */
  requests: string[];
  close(): Promise<void>;
};

export async function startLoopbackServer(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
  { host = "127.0.0.1", port = 0 }: { host?: string; port?: number } = {},
): Promise<LoopbackServer> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(request.url ?? "/");
    handler(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const actualPort = typeof address === "object" && address ? address.port : 0;
  return {
    origin: `http://${host.includes(":") ? `[${host}]` : host}:${actualPort}`,
    host,
    port: actualPort,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers `text` as plain text, closing the connection after each answer. */
export const answers =
  (text: string) =>
  (_request: IncomingMessage, response: ServerResponse): void => {
    response.writeHead(200, { "content-type": "text/plain", connection: "close" });
    response.end(text);
  };

/**
 * Streams `totalBytes` of JSON-looking text in 64 KB chunks, honouring backpressure, and reports
 * how many bytes it managed to hand to the socket before the client went away.
 */
export function streamsHugeBody(totalBytes: number, onDone: (sentBytes: number) => void) {
  return (_request: IncomingMessage, response: ServerResponse): void => {
    const chunk = Buffer.alloc(64 * 1024, "a");
    let sent = 0;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      onDone(sent);
    };
    response.on("close", finish);
    response.writeHead(200, { "content-type": "application/json" });
    const pump = () => {
      while (sent < totalBytes && !response.destroyed) {
        sent += chunk.byteLength;
        if (!response.write(chunk)) {
          response.once("drain", pump);
          return;
        }
      }
      if (!response.destroyed) response.end();
    };
    pump();
  };
}
