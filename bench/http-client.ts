// The bench's HTTP client, on node:http so that it stays light beside the servers it loads: one
// request with the time of each step (headers, every read of the body) on the process's one
// clock, and a load of N keep-alive connections that each send requests back to back.
import { Agent, request as httpRequest } from "node:http";
import { performance } from "node:perf_hooks";
import { spread, type Spread } from "./stats";

export type Exchange = {
  status: number;
  /** performance.now() when the request was sent, the status line arrived, and the body ended. */
  sentAt: number;
  headersAt: number;
  endedAt: number;
  body: string;
  /** Each read of the body as it arrived (with `recordReads`). */
  reads: Array<{ at: number; text: string }>;
};

export type PostOptions = {
  agent?: Agent | false;
  recordReads?: boolean;
  headers?: Record<string, string>;
  timeoutMs?: number;
};

export function post(url: URL, body: string, { agent = false, recordReads = false, headers = {}, timeoutMs = 60_000 }: PostOptions = {}): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const sentAt = performance.now();
    const request = httpRequest(
      url,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers },
        timeout: timeoutMs,
      },
      (response) => {
        const headersAt = performance.now();
        const chunks: Buffer[] = [];
        const reads: Exchange["reads"] = [];
        response.on("data", (chunk: Buffer) => {
          chunks.push(chunk);
          if (recordReads) reads.push({ at: performance.now(), text: chunk.toString("utf8") });
        });
        response.once("error", reject);
        response.once("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            sentAt,
            headersAt,
            endedAt: performance.now(),
            body: Buffer.concat(chunks).toString("utf8"),
            reads,
          }),
        );
      },
    );
    request.once("timeout", () => request.destroy(new Error(`no answer from ${url.href} within ${timeoutMs} ms`)));
    request.once("error", reject);
    request.end(body);
  });
}

export type LoadParameters = {
  url: URL;
  body: string;
  connections: number;
  durationMs: number;
  /** Whether a 200 answer's body is the whole, correct answer. */
  isComplete: (body: string) => boolean;
};

export type LoadReturnType = { completed: number; failed: number; seconds: number; requestsPerSecond: number; latencyMs: Spread; firstFailure?: string };

/** `connections` keep-alive clients, each sending the next request as soon as its last one ended. */
export async function runLoad({ url, body, connections, durationMs, isComplete }: LoadParameters): Promise<LoadReturnType> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  let failed = 0;
  let firstFailure: string | undefined;
  const startedAt = performance.now();
  const deadline = startedAt + durationMs;
  const client = async () => {
    while (performance.now() < deadline) {
      try {
        const exchange = await post(url, body, { agent });
        if (exchange.status === 200 && isComplete(exchange.body)) {
          latencies.push(exchange.endedAt - exchange.sentAt);
        } else {
          failed += 1;
          firstFailure ??= `${exchange.status}: ${exchange.body.slice(0, 200)}`;
        }
      } catch (error) {
        failed += 1;
        firstFailure ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, client));
  const seconds = (performance.now() - startedAt) / 1000;
  agent.destroy();
  return {
    completed: latencies.length,
    failed,
    seconds,
    requestsPerSecond: latencies.length / seconds,
    latencyMs: spread(latencies),
    ...(firstFailure ? { firstFailure } : {}),
  };
}
