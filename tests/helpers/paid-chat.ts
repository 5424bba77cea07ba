// Helpers for paying through the chat on the sandbox: the app's environment for a sandbox,
// funded payers, a model that asks for one paid call, and the two requests of an approval
// (the quote, then the signed approval), signed by a test key as the person's wallet would.
import type { LanguageModelV4Prompt, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { createPublicClient, createWalletClient, erc20Abi, http, parseEther, parseSignature, type Hex } from "viem";
import { foundry } from "viem/chains";
import { usdcWalletAbi } from "@/lib/chain/usdc-abi";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { expect } from "vitest";
import { isFinishLine, type PaymentStatus, type StreamLine } from "@/lib/protocol/lines";
import type { WalletRequest } from "@/lib/payments/payment";
import { typedDataMessage, type TypedDataForWallet } from "@/lib/chain/typed-data";
import { chainEnvOf, mppServicesOf, type Sandbox, type ServiceDefinition } from "@/sandbox";
import { handleHistoryRequest, type HistoryEntry } from "@/lib/account/payment-history";
import { createRateLimiter } from "@/lib/rate-limit";
import { sessionCookie } from "@/lib/session";
import { collectLines, type TestChat } from "./chat";

export function sandboxEnv(sandbox: Sandbox, extra: Record<string, string> = {}): Record<string, string> {
  return {
    X402_DISCOVERY_URLS: sandbox.info.registryUrl,
    MPP_SERVICES: mppServicesOf(sandbox.info).join(","),
    ...chainEnvOf(sandbox.info),
    PAYMENT_TOKEN_SECRET: "test-secret-that-is-at-least-32-characters",
    // The sandbox's services listen on 127.0.0.1, which the server calls only when allowed.
    X402_ALLOW_PRIVATE_ADDRESSES: "127.0.0.1",
    ...extra,
  };
}

export function sandboxService(sandbox: Sandbox, name: string) {
  const found = sandbox.info.services.find((entry) => entry.name === name);
  if (!found) throw new Error(`no sandbox service ${name}`);
  return found;
}

export async function newPayer(sandbox: Sandbox, usdc = 1_000_000n): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  if (usdc > 0n) await sandbox.fund({ to: account.address, usdc });
  return account;
}

export function usdcBalance(sandbox: Sandbox) {
  const chain = createPublicClient({ transport: http(sandbox.info.rpcUrl) });
  return (owner: `0x${string}`) =>
    chain.readContract({ address: sandbox.info.usdc.address, abi: erc20Abi, functionName: "balanceOf", args: [owner] });
}

export const generousLimits = { daily: "1", weekly: "5", monthly: "20", perPayment: "0.5" };

/** A model that asks for one paid call, then answers with plain text from the result. */
export function payingModel(url: string, query: Record<string, string> = {}) {
  return modelCallingPayForService({ url, query });
}

export type PayForServiceInput = { url: string; method?: "GET" | "POST"; query?: Record<string, string>; body?: unknown };

/**
 * A model that calls payForService once with this input (or the one the function gives at
 * each request, so one chat can serve several tests), then answers "Done." from the result.
 */
export function modelCallingPayForService(
  input: PayForServiceInput | ((prompt: LanguageModelV4Prompt) => PayForServiceInput),
  { onToolResult }: { onToolResult?: (content: unknown) => void } = {},
) {
  const finish = (unified: "stop" | "tool-calls"): LanguageModelV4StreamPart => ({
    type: "finish",
    finishReason: { unified, raw: undefined },
    usage: {
      inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 1, text: 1, reasoning: undefined },
    },
  });
  return new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      const last = prompt.at(-1);
      if (last?.role === "tool") {
        onToolResult?.(last.content);
        return {
          stream: convertArrayToReadableStream<LanguageModelV4StreamPart>([
            { type: "text-start", id: "1" },
            { type: "text-delta", id: "1", delta: "Done." },
            { type: "text-end", id: "1" },
            finish("stop"),
          ]),
        };
      }
      return {
        stream: convertArrayToReadableStream<LanguageModelV4StreamPart>([
          { type: "tool-call", toolCallId: `c${prompt.length}`, toolName: "payForService", input: JSON.stringify(typeof input === "function" ? input(prompt) : input) },
          finish("tool-calls"),
        ]),
      };
    },
  });
}

export const paymentsOf = (lines: StreamLine[]): PaymentStatus[] =>
  lines.flatMap((line) => (line.type === "payment" ? [line.payment] : []));

/** The stream's one final `d:` line, which must be its last line. */
export const finishOf = (lines: StreamLine[]) => {
  const finals = lines.filter(isFinishLine);
  expect(finals).toHaveLength(1);
  expect(isFinishLine(lines.at(-1) as StreamLine)).toBe(true);
  return finals[0]?.data;
};

export type Quoted = { status: PaymentStatus; body: Record<string, unknown> };

/** Each payment status of a stream as [status, reason code]: the steps a person sees on the card. */
export const steps = (lines: StreamLine[]) => paymentsOf(lines).map((status) => [status.status, status.reason?.code]);

/** Request A again, whose limits leave room for one payment: it is refused if the first payment counted. */
export async function expectNextQuoteRefused(target: Pick<TestChat, "post">, quoted: Quoted) {
  const lines = await collectLines(await target.post(quoted.body));
  expect(steps(lines)).toEqual([
    ["checking", undefined],
    ["failed", "limit-exceeded"],
  ]);
  expect(finishOf(lines)?.finishReason).toBe("limit-exceeded");
}

/** Who pays: a key account, or a smart account signing through its owner (sandbox/smart-account.ts). */
export type Payer = Pick<PrivateKeyAccount, "address" | "signTypedData">;

/** Request A: ask, and get the quote that awaits the wallet's signature. */
export async function requestQuote(
  target: Pick<TestChat, "post">,
  payer: Pick<Payer, "address">,
  content: string,
  limits: Record<string, string> = generousLimits,
): Promise<Quoted> {
  const body = { messages: [{ role: "user", content }], walletAddress: payer.address, spendingLimits: limits };
  const lines = await collectLines(await target.post(body));
  const awaiting = paymentsOf(lines).find((status) => status.status === "awaiting-signature");
  if (!awaiting) throw new Error(`no quote: ${JSON.stringify(lines)}`);
  expect(finishOf(lines)?.finishReason).toBe("stop");
  return { status: awaiting, body };
}

export function typedDataOf(status: PaymentStatus): TypedDataForWallet {
  return status.approval?.typedData as TypedDataForWallet;
}

/** A request's typed data as a wallet signs it (its EIP712Domain left to the signer, its integers read back). */
export function typedDataForSigning(request: WalletRequest | undefined) {
  if (request?.kind !== "typed-data") throw new Error("no typed data to sign");
  const typedData = request.typedData as TypedDataForWallet;
  const { EIP712Domain: _domain, ...types } = typedData.types;
  return { domain: typedData.domain, types, primaryType: typedData.primaryType, message: typedDataMessage(typedData) };
}

/** Signs a channel quote's request as the page does: the wallet's with the wallet, the channel key's with the channel key. */
export function signChannelRequest(request: WalletRequest | undefined, keys: { wallet: Payer; channelKey: Payer }): Promise<Hex> {
  return (request?.signer === "channel-key" ? keys.channelKey : keys.wallet).signTypedData(typedDataForSigning(request));
}

export async function signQuote(payer: Payer, status: PaymentStatus): Promise<Hex> {
  const typedData = typedDataOf(status);
  return payer.signTypedData({
    domain: typedData.domain,
    types: typedData.types,
    primaryType: typedData.primaryType,
    message: typedDataMessage(typedData),
  });
}

/** Request B: the same messages plus the signed approval. */
export async function sendApproval(
  target: Pick<TestChat, "post">,
  quoted: Quoted,
  signature: Hex,
  { token = quoted.status.approval?.token ?? "", signal, permitSignature }: { token?: string; signal?: AbortSignal; permitSignature?: Hex } = {},
) {
  return target.post(
    { ...quoted.body, payment: { paymentId: quoted.status.paymentId, token, signature, ...(permitSignature ? { permitSignature } : {}) } },
    signal ? { signal } : {},
  );
}

/**
 * A test-only fortune service at `price` (atomic USDC), unlisted unless added so: the tests of
 * what happens around a payment change its latency, timeout or handler through `extra`.
 */
export function fortuneOracle(name: string, price: bigint, extra: Partial<ServiceDefinition> = {}): ServiceDefinition {
  return {
    name,
    serviceName: `Oracle ${name}`,
    description: "Tells your fortune, for tests of what happens around its payment.",
    method: "GET",
    path: "/fortune",
    price,
    latencyMs: 0,
    tags: ["test-only", "fortune"],
    testOnly: true,
    discovery: {
      input: {},
      inputSchema: { properties: {} },
      output: { example: { fortune: "A quiet week." }, schema: { properties: { fortune: { type: "string" } } } },
    },
    async handle() {
      return { fortune: "A quiet week ahead." };
    },
    ...extra,
  };
}

/** Reads until `done` holds or `timeoutMs` passes, and returns the last reading either way. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}

/** Uses a signed authorization directly on the token, as a service holding it could at any time. */
export async function collectOnChain(world: Sandbox, typedData: TypedDataForWallet, signature: Hex): Promise<Hex> {
  const collector = privateKeyToAccount(generatePrivateKey());
  await world.fund({ to: collector.address, eth: parseEther("1") });
  const wallet = createWalletClient({ account: collector, chain: foundry, transport: http(world.info.rpcUrl) });
  const message = typedDataMessage(typedData) as { from: Hex; to: Hex; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex };
  const { r, s, v, yParity } = parseSignature(signature);
  const hash = await wallet.writeContract({
    address: world.info.usdc.address,
    abi: usdcWalletAbi,
    functionName: "transferWithAuthorization",
    args: [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, Number(v ?? 27n + BigInt(yParity)), r, s],
  });
  const receipt = await createPublicClient({ transport: http(world.info.rpcUrl) }).waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
  return hash;
}

/** The person's history as the page reads it (GET /api/spending/history), from their own signed-in session. */
export async function historyOf(target: Pick<TestChat, "db" | "env">, wallet: string, format: "json" | "csv" = "json"): Promise<Response> {
  const url = `http://localhost/api/spending/history?wallet=${wallet}&format=${format}`;
  const cookie = sessionCookie(new Request(url), wallet, target.env).split(";")[0] ?? "";
  return handleHistoryRequest(new Request(url, { headers: { cookie } }), {
    env: () => target.env,
    database: async () => target.db,
    rateLimit: createRateLimiter({ limit: 100, windowMs: 60_000 }),
  });
}

/** The history's payments, newest first. */
export async function historyPaymentsOf(target: Pick<TestChat, "db" | "env">, wallet: string): Promise<HistoryEntry[]> {
  return ((await (await historyOf(target, wallet)).json()) as { payments: HistoryEntry[] }).payments;
}
