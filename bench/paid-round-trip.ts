// The paid round trip on the sandbox, timed from one clock. The sandbox runs in this process,
// so every HTTP request the product makes to the registry, the services and the facilitator is
// seen as it starts and as its answer ends (node:diagnostics_channel), and the product's chain
// calls pass through a timing JSON-RPC relay in front of anvil. Request A asks and gets the quote;
// the test wallet signs it (as the person's wallet would); request B sends the approval and is
// answered with `payment-complete`. What happens inside the product between those visible
// points (token and signature checks, reservation, ledger writes, model turns) is not exposed,
// and is reported as the gaps between them.
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { Agent, createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { startSandbox, type Sandbox } from "@/sandbox";
import { SANDBOX_HOST } from "@/sandbox/ports";
import { generousLimits, newPayer, sandboxEnv, signQuote } from "@/tests/helpers/paid-chat";
import { isFinishLine, type PaymentStatus } from "@/lib/protocol/lines";
import { post, type Exchange } from "./http-client";
import { startApp, type Teardown } from "./servers";
import { spread, type Spread } from "./stats";
import { timedLines, type TimedLine } from "./timed-lines";

/** Answered by the sandbox's currency service (declared latency 100 ms), the quickest listed one. */
export const PAID_PROMPT = "Convert 10 USD to EUR";

type Role = "registry" | "facilitator" | "service" | "chain";

export type SandboxCall = { role: Role; what: string; start: number; end: number; paid: boolean };

/** One round trip's steps, in ms; each from request A's or B's send time unless said otherwise. */
export type PaidRoundTrip = {
  service: string;
  requestA: {
    totalMs: number;
    firstByteMs: number;
    registryCalls: number;
    registryMs: number;
    serviceProbes: number;
    serviceProbeMs: number;
    chainCalls: number;
    chainMs: number;
    /** Sent → the `p: awaiting-signature` line. */
    quoteLineMs: number;
  };
  /** The test wallet's signature, between the two requests (not the server's time). */
  signMs: number;
  requestB: {
    totalMs: number;
    firstByteMs: number;
    /** Sent → the paid request reaching the service: token, signature, pre-flight, reservation. */
    beforeServiceCallMs: number;
    chainCallsBeforeService: number;
    chainMsBeforeService: number;
    /** The paid request at the service, verify + handler + settle. */
    serviceCallMs: number;
    verifyMs: number;
    settleMs: number;
    /** The service's answer ended → the `p: delivered` line (ledger write, stream). */
    afterServiceCallMs: number;
    /** Sent → `p: confirmed` and `p: delivered`. */
    confirmedLineMs: number;
    deliveredLineMs: number;
    /** `p: delivered` → the final `d:` line (the model's turn on the result, stream end). */
    modelTurnMs: number;
    finishReason: string;
  };
};

export type PaidResult = {
  prompt: string;
  /** The first round trip after the server started: caches (discovery, clients) still cold. */
  first: PaidRoundTrip;
  /** The round trips after it. */
  rounds: PaidRoundTrip[];
  requestAMs: Spread;
  requestBMs: Spread;
  /** A + B, without the wallet's signing. */
  wholeMs: Spread;
  /** B: sent → `p: delivered`, the model's last turn excluded. */
  approvalToDeliveredMs: Spread;
  serviceCallMs: Spread;
  settleMs: Spread;
  verifyMs: Spread;
};

function portOf(url: string): number {
  return Number(new URL(url).port);
}

/**
 * A JSON-RPC relay to anvil that times each call. It adds a hop that a deployed server does not
 * have, so it is kept as light as it can be: kept-alive connections, the answer piped through.
 */
async function startChainRelay(rpcUrl: string, calls: SandboxCall[]): Promise<{ url: string; close(): Promise<void> }> {
  const agent = new Agent({ keepAlive: true });
  const server: Server = createServer((request, response) => {
    const start = performance.now();
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      const upstream = httpRequest(rpcUrl, { method: "POST", agent, headers: { "content-type": "application/json", "content-length": body.length } }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, { "content-type": "application/json" });
        answer.pipe(response);
        answer.on("end", () => {
          const parsed: unknown = JSON.parse(body.toString("utf8"));
          const methods = (Array.isArray(parsed) ? parsed : [parsed]).map((call: { method?: string }) => call.method ?? "?");
          calls.push({ role: "chain", what: methods.join(","), start, end: performance.now(), paid: false });
        });
      });
      upstream.on("error", () => response.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, SANDBOX_HOST, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${SANDBOX_HOST}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type ServerMessage = { request: IncomingMessage };

/** Records every request the sandbox's servers in this process answer. */
function watchSandbox(sandbox: Sandbox, calls: SandboxCall[]): () => void {
  const roles = new Map<number, Role>([
    [portOf(sandbox.info.registryUrl), "registry"],
    [portOf(sandbox.info.facilitatorUrl), "facilitator"],
    ...sandbox.info.services.map((service): [number, Role] => [portOf(service.url), "service"]),
  ]);
  const open = new WeakMap<IncomingMessage, SandboxCall>();
  const onStart = (message: unknown) => {
    const { request } = message as ServerMessage;
    const role = roles.get(request.socket.localPort ?? 0);
    if (!role) return;
    const paid = "payment-signature" in request.headers || "x-payment" in request.headers;
    const call: SandboxCall = { role, what: `${request.method} ${request.url}`, start: performance.now(), end: Number.NaN, paid };
    open.set(request, call);
    calls.push(call);
  };
  const onFinish = (message: unknown) => {
    const call = open.get((message as ServerMessage).request);
    if (call) call.end = performance.now();
  };
  subscribe("http.server.request.start", onStart);
  subscribe("http.server.response.finish", onFinish);
  return () => {
    unsubscribe("http.server.request.start", onStart);
    unsubscribe("http.server.response.finish", onFinish);
  };
}

const within = (calls: SandboxCall[], exchange: Exchange) =>
  calls.filter((call) => call.start >= exchange.sentAt && call.start <= exchange.endedAt);
const durationOf = (calls: SandboxCall[]) => calls.reduce((sum, call) => sum + (call.end - call.start), 0);

function paymentLine(lines: TimedLine[], status: PaymentStatus["status"]): (TimedLine & { payment: PaymentStatus }) | undefined {
  for (const timed of lines) {
    if (timed.line.type === "payment" && timed.line.payment.status === status) return { ...timed, payment: timed.line.payment };
  }
  return undefined;
}

function finishOf(lines: TimedLine[]): { at: number; reason: string } {
  const last = lines.at(-1);
  if (!last || !isFinishLine(last.line)) throw new Error("the answer did not end with its final d: line");
  return { at: last.at, reason: last.line.data.finishReason };
}

export async function measurePaidRoundTrip({
  teardown,
  root,
  env,
  rounds,
}: {
  teardown: Teardown;
  root: string;
  env: Record<string, string | undefined>;
  rounds: number;
}): Promise<PaidResult> {
  const calls: SandboxCall[] = [];
  const sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  const forgetSandbox = teardown.add(sandbox.stop);
  const stopWatching = watchSandbox(sandbox, calls);
  const relay = await startChainRelay(sandbox.info.rpcUrl, calls);
  const chatBody = (extra: Record<string, unknown>) =>
    JSON.stringify({ messages: [{ role: "user", content: PAID_PROMPT }], spendingLimits: generousLimits, ...extra });
  let app: Awaited<ReturnType<typeof startApp>> | undefined;
  try {
    app = await startApp({
      teardown,
      name: "product (sandbox)",
      root,
      env: {
        ...env,
        ...sandboxEnv(sandbox, { [`RPC_URL_${sandbox.info.chainId}`]: relay.url }),
        MODEL_PROVIDER: "offline",
      },
      probe: { path: "/api/chat", body: JSON.stringify({ messages: [{ role: "user", content: "hello" }] }) },
    });
    const payer = await newPayer(sandbox, 1_000_000n);
    const results: PaidRoundTrip[] = [];
    // The first round trip meets cold caches (discovery, clients): reported on its own.
    for (let round = 0; round <= rounds; round++) {
      calls.length = 0;
      const bodyA = chatBody({ walletAddress: payer.address });
      const a = await post(new URL("/api/chat", app.origin), bodyA, { recordReads: true });
      const linesA = timedLines(a);
      const quote = paymentLine(linesA, "awaiting-signature");
      if (a.status !== 200 || !quote) throw new Error(`request A gave no quote (${a.status}): ${a.body.slice(0, 400)}`);
      const signStart = performance.now();
      const signature = await signQuote(payer, quote.payment);
      const signMs = performance.now() - signStart;
      const approval = { paymentId: quote.payment.paymentId, token: quote.payment.approval?.token ?? "", signature };
      const b = await post(new URL("/api/chat", app.origin), chatBody({ walletAddress: payer.address, payment: approval }), {
        recordReads: true,
      });
      const linesB = timedLines(b);
      const finishB = finishOf(linesB);
      const confirmed = paymentLine(linesB, "confirmed");
      const delivered = paymentLine(linesB, "delivered");
      if (b.status !== 200 || finishB.reason !== "payment-complete" || !delivered || !confirmed) {
        throw new Error(`request B did not complete the payment (${b.status}): ${b.body.slice(0, 300)} … ${b.body.slice(-700)}`);
      }

      const callsA = within(calls, a);
      const registryA = callsA.filter((call) => call.role === "registry");
      const probesA = callsA.filter((call) => call.role === "service");
      const chainA = callsA.filter((call) => call.role === "chain");
      const callsB = within(calls, b);
      const paidCall = callsB.find((call) => call.role === "service" && call.paid);
      if (!paidCall) throw new Error("request B's paid call was not seen at the service");
      const chainBefore = callsB.filter((call) => call.role === "chain" && call.start < paidCall.start);
      const facilitatorCall = (path: string) => callsB.find((call) => call.role === "facilitator" && call.what.endsWith(path));
      const verify = facilitatorCall("/verify");
      const settle = facilitatorCall("/settle");
      results.push({
        service: quote.payment.service.name,
        requestA: {
          totalMs: a.endedAt - a.sentAt,
          firstByteMs: a.headersAt - a.sentAt,
          registryCalls: registryA.length,
          registryMs: durationOf(registryA),
          serviceProbes: probesA.length,
          serviceProbeMs: durationOf(probesA),
          chainCalls: chainA.length,
          chainMs: durationOf(chainA),
          quoteLineMs: quote.at - a.sentAt,
        },
        signMs,
        requestB: {
          totalMs: b.endedAt - b.sentAt,
          firstByteMs: b.headersAt - b.sentAt,
          beforeServiceCallMs: paidCall.start - b.sentAt,
          chainCallsBeforeService: chainBefore.length,
          chainMsBeforeService: durationOf(chainBefore),
          serviceCallMs: paidCall.end - paidCall.start,
          verifyMs: verify ? verify.end - verify.start : Number.NaN,
          settleMs: settle ? settle.end - settle.start : Number.NaN,
          afterServiceCallMs: delivered.at - paidCall.end,
          confirmedLineMs: confirmed.at - b.sentAt,
          deliveredLineMs: delivered.at - b.sentAt,
          modelTurnMs: finishB.at - delivered.at,
          finishReason: finishB.reason,
        },
      });
    }
    const [first, ...later] = results;
    if (!first) throw new Error("no paid round trip");
    const pick = (get: (round: PaidRoundTrip) => number) => spread(later.map(get));
    return {
      prompt: PAID_PROMPT,
      first,
      rounds: later,
      requestAMs: pick((round) => round.requestA.totalMs),
      requestBMs: pick((round) => round.requestB.totalMs),
      wholeMs: pick((round) => round.requestA.totalMs + round.requestB.totalMs),
      approvalToDeliveredMs: pick((round) => round.requestB.deliveredLineMs),
      serviceCallMs: pick((round) => round.requestB.serviceCallMs),
      settleMs: pick((round) => round.requestB.settleMs),
      verifyMs: pick((round) => round.requestB.verifyMs),
    };
  } finally {
    await app?.stop();
    stopWatching();
    await relay.close();
    await sandbox.stop();
    forgetSandbox();
  }
}
