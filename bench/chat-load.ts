// Chat routes side by side: single-request time to first byte, then throughput and server CPU
// per request under N keep-alive connections, in interleaved rounds (A B C A B C ...) so that
// the machine's noise falls on every contender alike.
import { performance } from "node:perf_hooks";
import { post, runLoad, type LoadReturnType } from "./http-client";
import type { RunningApp } from "./servers";
import { spread, type Spread } from "./stats";

export type Contender = {
  name: string;
  app: RunningApp;
  path: string;
  body: string;
  isComplete: (body: string) => boolean;
};

export type FirstByteResult = {
  name: string;
  /** Request sent → status line. */
  firstByteMs: Spread;
  /** Request sent → first body bytes (the first streamed line). */
  firstBodyMs: Spread;
};

/** Single requests on an idle server, one contender after the other, each on a new connection. */
export async function measureFirstByte(contenders: Contender[], samples: number): Promise<FirstByteResult[]> {
  const firstByte = new Map<string, number[]>();
  const firstBody = new Map<string, number[]>();
  for (let sample = 0; sample < samples; sample++) {
    for (const contender of contenders) {
      const exchange = await post(new URL(contender.path, contender.app.origin), contender.body, { recordReads: true });
      if (exchange.status !== 200 || !contender.isComplete(exchange.body)) {
        throw new Error(`${contender.name}: incomplete answer ${exchange.status}: ${exchange.body.slice(0, 200)}`);
      }
      firstByte.set(contender.name, [...(firstByte.get(contender.name) ?? []), exchange.headersAt - exchange.sentAt]);
      const firstRead = exchange.reads[0]?.at ?? exchange.endedAt;
      firstBody.set(contender.name, [...(firstBody.get(contender.name) ?? []), firstRead - exchange.sentAt]);
    }
  }
  return contenders.map(({ name }) => ({
    name,
    firstByteMs: spread(firstByte.get(name) ?? []),
    firstBodyMs: spread(firstBody.get(name) ?? []),
  }));
}

export type Round = LoadReturnType & {
  /** Server process tree CPU per completed request. */
  serverCpuMsPerRequest: number;
  /** This process's (the load generator's) CPU per completed request. */
  clientCpuMsPerRequest: number;
};

export type ThroughputResult = {
  name: string;
  rounds: Round[];
  requestsPerSecond: Spread;
  serverCpuMsPerRequest: Spread;
  clientCpuMsPerRequest: Spread;
  latencyMs: Spread;
  failed: number;
};

export type ThroughputParameters = {
  rounds: number;
  roundMs: number;
  warmUpMs: number;
  connections: number;
  log: (line: string) => void;
};

async function loadOnce(contender: Contender, connections: number, durationMs: number): Promise<Round> {
  const serverBefore = contender.app.cpuSeconds();
  const clientBefore = process.cpuUsage();
  const load = await runLoad({
    url: new URL(contender.path, contender.app.origin),
    body: contender.body,
    connections,
    durationMs,
    isComplete: contender.isComplete,
  });
  const client = process.cpuUsage(clientBefore);
  const serverSeconds = contender.app.cpuSeconds() - serverBefore;
  const perRequest = (ms: number) => (load.completed > 0 ? ms / load.completed : Number.NaN);
  return {
    ...load,
    serverCpuMsPerRequest: perRequest(serverSeconds * 1000),
    clientCpuMsPerRequest: perRequest((client.user + client.system) / 1000),
  };
}

export async function measureThroughput(contenders: Contender[], parameters: ThroughputParameters): Promise<ThroughputResult[]> {
  const { rounds, roundMs, warmUpMs, connections, log } = parameters;
  for (const contender of contenders) {
    const warmUp = await loadOnce(contender, connections, warmUpMs);
    log(`  warm-up ${contender.name}: ${warmUp.requestsPerSecond.toFixed(0)} req/s`);
    if (warmUp.completed === 0) throw new Error(`${contender.name} answered nothing in the warm-up: ${warmUp.firstFailure ?? ""}`);
  }
  const results = new Map<string, Round[]>(contenders.map(({ name }) => [name, []]));
  for (let index = 0; index < rounds; index++) {
    const startedAt = performance.now();
    for (const contender of contenders) {
      const round = await loadOnce(contender, connections, roundMs);
      results.get(contender.name)?.push(round);
    }
    const summary = contenders
      .map(({ name }) => {
        const round = results.get(name)?.at(-1);
        return `${name} ${round?.requestsPerSecond.toFixed(0)} req/s ${round?.serverCpuMsPerRequest.toFixed(2)} ms CPU`;
      })
      .join(" | ");
    log(`  round ${index + 1}/${rounds} (${((performance.now() - startedAt) / 1000).toFixed(0)} s): ${summary}`);
  }
  return contenders.map(({ name }) => {
    const list = results.get(name) ?? [];
    return {
      name,
      rounds: list,
      requestsPerSecond: spread(list.map((round) => round.requestsPerSecond)),
      serverCpuMsPerRequest: spread(list.map((round) => round.serverCpuMsPerRequest)),
      clientCpuMsPerRequest: spread(list.map((round) => round.clientCpuMsPerRequest)),
      latencyMs: spread(list.map((round) => round.latencyMs.median)),
      failed: list.reduce((sum, round) => sum + round.failed, 0),
    };
  });
}
