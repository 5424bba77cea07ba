// The chat stream's line format (docs/contract.md, section 3): one encoder and one decoder, shared by the
// route, the browser, the tests and the benchmarks. Each line is `<prefix>:<JSON>\n`. Its payment
// vocabulary (stages, failure codes, how a payment ends) is the payment core's own. Imports are
// relative: the bench's reference app builds this file without the project's `@/` alias.
import { paymentEnds, paymentFailureCodes, paymentStages, type PaymentFailureCode, type PaymentStage, type ReceiptSummary, type WalletFallback, type WalletRequest } from "../payments/payment";

/** The stream's finish reasons: `stop`, or how the request's payment ended. */
export const finishReasons = ["stop", ...paymentEnds] as const;
export type FinishReason = (typeof finishReasons)[number];

export const paymentStatuses = paymentStages;
export type PaymentStatusName = PaymentStage;
export { paymentFailureCodes, type PaymentFailureCode };

/** Amounts are decimal strings; money never travels as a float. */
export type PaymentAmount = {
  serviceFee: string;
  gasFee: string;
  total: string;
  currency: "USDC";
  usd: string;
  /** Usage-priced (x402 `upto`): the amounts above are the most it can cost; the service settles what it used. */
  upTo?: true;
  /** What the service says a usual request costs (decimal USDC), where it says so: a usage-priced payment only. */
  typical?: string;
  /** What a usage-priced payment was charged, as the chain shows it, once it settled (decimal USDC; "0" when nothing). */
  charged?: string;
};

export type PaymentApproval = {
  /**
   * What the wallet signs, in order: each request's form (EIP-712 typed data for
   * `eth_signTypedData_v4`, or a transaction for `solana:signTransaction`, base64), what it is
   * for, and, for one it may decline, what to do instead. The answers go back as
   * `payment.signed`, one per request, in this order.
   */
  toSign?: WalletRequest[];
  /** Deprecated (the payment's own request, the last of `toSign`): its typed data (EVM)... */
  typedData?: unknown;
  /** ...or its transaction (Solana). */
  transaction?: string;
  /** Opaque to the client: sent back with the signature. Absent from an AI app's quote in the page, whose token the server keeps. */
  token?: string;
  expiresAt: string;
};

export type PaymentStatus = {
  paymentId: string;
  status: PaymentStatusName;
  service: { name: string; url: string };
  network: string;
  chain: string;
  asset: { symbol: string; address: string; decimals: number };
  amount: PaymentAmount;
  payTo: string;
  /** The protocol the service is paid through, by its registered name (`x402`, `mpp`)... */
  protocol?: string;
  /** ...and as a person reads it ("x402", "MPP (Machine Payments Protocol)"). */
  protocolLabel?: string;
  /**
   * `agent-budget`: paid by the session key of the wallet's agent budget, signed in the page
   * without a prompt; absent: the wallet signs.
   */
  paidFrom?: "agent-budget";
  /**
   * Paid through a pay-as-you-go channel (x402 `batch-settlement`), decimal USDC: `opening`, the
   * amount is the deposit the wallet signs, of which this first call takes `price`; else the
   * amount is the call's price, from the deposit, signed by the page's channel key. `left`: what
   * the deposit holds after this call. `withdrawDelaySeconds`: how long taking it back without the
   * service waits.
   */
  channel?: { opening: boolean; price: string; deposit: string; left: string; withdrawDelaySeconds: number; confirm?: true };
  approval?: PaymentApproval;
  txHash?: string;
  explorerUrl?: string;
  /** `remedy`: what the person can do once with the wallet so that asking again pays (approve a spender, with its gas). */
  reason?: { code: PaymentFailureCode; message: string; remedy?: WalletFallback };
  /**
   * With `payment-pending`: until when (ISO 8601) the service could still collect the signed
   * authorization; after it, unused, the reserved amount is released.
   */
  collectableUntil?: string;
  warnings?: string[];
  /** With the quote, when the service takes more than one network: why this one pays. */
  networkChoice?: string;
  /**
   * With `delivered`, when the service signed a receipt (x402 `offer-receipt`): `verified` with
   * the key that signed it, or `unverified` with the reason; an unverified receipt proves nothing.
   */
  receipt?: ReceiptSummary;
};

export type Usage = { inputTokens: number; outputTokens: number };

/** Metadata (`d:`). The last line of a stream is one carrying `finishReason`. */
export type StreamMetadata = {
  finishReason?: FinishReason;
  model?: string;
  paymentId?: string;
  txHash?: string;
  explorerUrl?: string;
  network?: string;
  usage?: Usage;
  preferences?: Record<string, unknown>;
  spendingLimits?: Record<string, unknown>;
  [key: string]: unknown;
};

export type FinishMetadata = StreamMetadata & { finishReason: FinishReason; model: string };

export type StreamError = { code: string; message: string };

export type StreamLine =
  | { type: "text"; text: string }
  | { type: "payment"; payment: PaymentStatus }
  | { type: "data"; data: StreamMetadata }
  | { type: "error"; error: StreamError };

const prefixOf = { text: "0", payment: "p", data: "d", error: "e" } as const;

/** Encodes one line, newline included. JSON.stringify escapes newlines, so a line never breaks. */
export function encodeLine(line: StreamLine): string {
  switch (line.type) {
    case "text":
      return `${prefixOf.text}:${JSON.stringify(line.text)}\n`;
    case "payment":
      return `${prefixOf.payment}:${JSON.stringify(line.payment)}\n`;
    case "data":
      return `${prefixOf.data}:${JSON.stringify(line.data)}\n`;
    case "error":
      return `${prefixOf.error}:${JSON.stringify(line.error)}\n`;
  }
}

export class StreamLineError extends Error {
  override readonly name = "StreamLineError";
}

/** Decodes one line (without its newline). Throws StreamLineError on anything malformed. */
export function decodeLine(raw: string): StreamLine {
  const colon = raw.indexOf(":");
  if (colon < 1) throw new StreamLineError(`not a stream line: ${raw.slice(0, 40)}`);
  const prefix = raw.slice(0, colon);
  let value: unknown;
  try {
    value = JSON.parse(raw.slice(colon + 1));
  } catch {
    throw new StreamLineError(`line with prefix ${prefix} does not hold JSON`);
  }
  switch (prefix) {
    case "0":
      if (typeof value !== "string") throw new StreamLineError("0: line must hold a JSON string");
      return { type: "text", text: value };
    case "p":
      if (!isObject(value)) throw new StreamLineError("p: line must hold an object");
      return { type: "payment", payment: value as PaymentStatus };
    case "d":
      if (!isObject(value)) throw new StreamLineError("d: line must hold an object");
      return { type: "data", data: value as StreamMetadata };
    case "e":
      if (!isObject(value) || typeof value.code !== "string" || typeof value.message !== "string") {
        throw new StreamLineError("e: line must hold { code, message }");
      }
      return { type: "error", error: { code: value.code, message: value.message } };
    default:
      throw new StreamLineError(`unknown prefix ${prefix}`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Splits a byte stream into decoded lines. Chunks may cut a line, or a multi-byte character,
 * anywhere; a line is yielded only once its newline has arrived.
 */
export function createLineDecoder(): TransformStream<Uint8Array, StreamLine> {
  const text = new TextDecoder();
  let buffer = "";
  return new TransformStream<Uint8Array, StreamLine>({
    transform(chunk, controller) {
      buffer += text.decode(chunk, { stream: true });
      let newline = buffer.indexOf("\n");
      while (newline !== -1) {
        const raw = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (raw.length > 0) controller.enqueue(decodeLine(raw));
        newline = buffer.indexOf("\n");
      }
    },
    flush(controller) {
      buffer += text.decode();
      if (buffer.length > 0) controller.enqueue(decodeLine(buffer));
    },
  });
}

/** Reads a whole response body (or any byte stream) into its lines. */
export async function* readLines(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamLine> {
  const reader = body.pipeThrough(createLineDecoder()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

export function isFinishLine(line: StreamLine): line is { type: "data"; data: FinishMetadata } {
  return line.type === "data" && typeof line.data.finishReason === "string";
}

export const chatStreamHeaders: Readonly<Record<string, string>> = {
  "Content-Type": "text/event-stream; charset=utf-8",
  "Cache-Control": "no-cache, no-transform",
  "X-Accel-Buffering": "no",
  "X-Chat-Protocol": "1",
};
