// Calls on a pay-as-you-go channel (x402 `batch-settlement`) on the sandbox, timed from one clock:
// the product's chat handler in this process with a model that calls the service at once (the
// hosted model is the one part mocked, at its provider boundary), the sandbox in this process too,
// so the channel service's own answer to each paid request is seen as it starts and ends
// (node:diagnostics_channel). One deposit opens the channel (the wallet's one signature); every
// call after it is request A (the quote), the page's channel key signing the voucher, and request
// B (the approval, answered once the service delivered). The mark: request B takes at most 1.2×
// the service's own answer to the paid request it sends (no transaction on the path), and a
// hundred calls ask the wallet once.
//
//   npm run bench:channels            (100 calls)
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { IncomingMessage } from "node:http";
import { performance } from "node:perf_hooks";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { PaymentStatus } from "@/lib/protocol/lines";
import { createChatTools } from "@/lib/chat/tools";
import { startSandbox } from "@/sandbox";
import { marketTicks } from "@/sandbox/services/market-ticks";
import { collectLines, createTestChat } from "@/tests/helpers/chat";
import { generousLimits, modelCallingPayForService, newPayer, paymentsOf, sandboxEnv, signChannelRequest } from "@/tests/helpers/paid-chat";
import { spread, type Spread } from "./stats";

export type ChannelCallsResult = {
  calls: number;
  /** How many times the wallet was asked to sign, over all of them (the deposit's). */
  walletSignatures: number;
  /** Request A: the quote of a call on the open channel (its service probe included). */
  quoteMs: Spread;
  /** The channel key's signature of the voucher, in the page's place. */
  signMs: Spread;
  /** Request B: the approval, from its send to its `p: delivered` line. */
  approvalMs: Spread;
  /** The channel service's own answer to the paid request B sent (its voucher check and its handler). */
  serviceMs: Spread;
  /** Request B ÷ the service's own answer, medians. */
  ratio: number;
};

/** How long the bench service's handler takes, as TickStream declares. */
const SERVICE_LATENCY_MS = marketTicks.latencyMs;

/** When `text` first appears in a stream's decoded text. */
async function whenSeen(stream: ReadableStream<Uint8Array>, text: string): Promise<number> {
  const decoder = new TextDecoder();
  let seen = "";
  let at = Number.NaN;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return at;
    seen += decoder.decode(value, { stream: true });
    if (Number.isNaN(at) && seen.includes(text)) at = performance.now();
  }
}

export async function measureChannelCalls({ calls = 100 }: { calls?: number } = {}): Promise<ChannelCallsResult> {
  const sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  // TickStream as it is, with a deposit that covers the run: the wallet signs once for all of it.
  const service = await sandbox.addService({ ...marketTicks, name: "bench-ticks", serviceName: "BenchTicks", channel: { ...marketTicks.channel, deposit: BigInt(calls + 1) * marketTicks.price } as typeof marketTicks.channel }, { listed: false });
  const servicePort = Number(new URL(service.url).port);
  const paidAnswers: { start: number; end: number }[] = [];
  const open = new WeakMap<IncomingMessage, { start: number; end: number }>();
  const onStart = (message: unknown) => {
    const { request } = message as { request: IncomingMessage };
    if (request.socket.localPort !== servicePort || !("payment-signature" in request.headers)) return;
    const answer = { start: performance.now(), end: Number.NaN };
    open.set(request, answer);
    paidAnswers.push(answer);
  };
  const onFinish = (message: unknown) => {
    const answer = open.get((message as { request: IncomingMessage }).request);
    if (answer) answer.end = performance.now();
  };
  subscribe("http.server.request.start", onStart);
  subscribe("http.server.response.finish", onFinish);
  const chat = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox), model: modelCallingPayForService({ url: service.url, query: { symbol: "NVDA" } }) });
  try {
    const wallet = await newPayer(sandbox, 10_000_000n);
    const channelKey = privateKeyToAccount(generatePrivateKey());
    const keys = { wallet, channelKey };
    const limits = { ...generousLimits, perPayment: "1" };
    const body = { messages: [{ role: "user", content: "NVDA" }], walletAddress: wallet.address, channelKeys: { eip155: channelKey.address }, spendingLimits: limits };
    let walletSignatures = 0;
    const quoteMs: number[] = [];
    const signMs: number[] = [];
    const approvalMs: number[] = [];
    const serviceMs: number[] = [];
    for (let call = 0; call <= calls; call += 1) {
      const startA = performance.now();
      const quote = paymentsOf(await collectLines(await chat.post(body))).find((status) => status.status === "awaiting-signature");
      const endA = performance.now();
      if (!quote) throw new Error(`call ${call}: no quote`);
      const startSign = performance.now();
      const signed: string[] = [];
      for (const request of quote.approval?.toSign ?? []) {
        if (request.signer !== "channel-key") walletSignatures += 1;
        signed.push(await signChannelRequest(request, keys));
      }
      const endSign = performance.now();
      const before = paidAnswers.length;
      const startB = performance.now();
      const response = await chat.post({ ...body, payment: { paymentId: quote.paymentId, token: quote.approval?.token, signed } });
      // Request B's time is to its `p: delivered` line: what follows is the model's next turn.
      const [timed, copy] = response.body?.tee() ?? [];
      const deliveredAt = timed ? whenSeen(timed, '"status":"delivered"') : Promise.resolve(Number.NaN);
      const statuses = paymentsOf(await collectLines(new Response(copy)));
      const endB = await deliveredAt;
      if (statuses.at(-1)?.status !== "delivered") throw new Error(`call ${call}: not delivered: ${JSON.stringify(statuses.at(-1) as PaymentStatus)}`);
      // The opening pays a deposit on chain: the calls after it are what is measured.
      if (call === 0) continue;
      const answer = paidAnswers.slice(before).find((one) => one.start >= startB && Number.isFinite(one.end));
      if (!answer) throw new Error(`call ${call}: the service's paid answer was not seen`);
      quoteMs.push(endA - startA);
      signMs.push(endSign - startSign);
      approvalMs.push(endB - startB);
      serviceMs.push(answer.end - answer.start);
    }
    const approval = spread(approvalMs);
    const served = spread(serviceMs);
    return { calls, walletSignatures, quoteMs: spread(quoteMs), signMs: spread(signMs), approvalMs: approval, serviceMs: served, ratio: approval.median / served.median };
  } finally {
    unsubscribe("http.server.request.start", onStart);
    unsubscribe("http.server.response.finish", onFinish);
    await chat.close();
    await sandbox.stop();
  }
}

if (process.argv[1]?.endsWith("channel-calls.ts")) {
  const calls = Number(process.argv[2] ?? 100);
  const result = await measureChannelCalls({ calls });
  const ms = (value: Spread) => `${value.median.toFixed(1)} ms (${value.min.toFixed(1)}-${value.max.toFixed(1)})`;
  console.log(`${result.calls} calls on one channel after its opening, the service's handler taking ${SERVICE_LATENCY_MS} ms:`);
  console.log(`  wallet signatures: ${result.walletSignatures}`);
  console.log(`  request A (quote): ${ms(result.quoteMs)}`);
  console.log(`  channel key's signature: ${ms(result.signMs)}`);
  console.log(`  request B (approval → p: delivered): ${ms(result.approvalMs)}`);
  console.log(`  the service's own answer to the paid request: ${ms(result.serviceMs)}`);
  console.log(`  B ÷ service: ${result.ratio.toFixed(2)}× (mark: ≤ 1.2×)`);
}
