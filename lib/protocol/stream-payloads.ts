// What the page takes from the stream's `p:` and final `d:` lines, checked before anything renders
// it: the server validates what services send, and this is the page's own wall, so that no
// payload (a field of the wrong type, a value no renderer expects) can take the chat down.
import * as z from "zod/mini";
import { paymentFailureCodes, paymentStages, receiptStatuses } from "@/lib/payments/payment";
import type { FinishMetadata, PaymentStatus } from "@/lib/protocol/lines";
import { finishReasons } from "@/lib/protocol/lines";
import { onFirstUse } from "@/lib/lazy-load";

// zod's small build: the page's first load carries these few schemas, not the whole library. Each
// is built on its first use: building one is a phone's milliseconds, and a page that has not
// streamed or restored a payment has not needed it.
const upTo = (length: number) => z.string().check(z.maxLength(length));

// Both schemas at once, sharing their parts (a schema is immutable, so one may stand in many places).
const schemas = onFirstUse(() => {
  const text = upTo(4_000);
  const id = upTo(100);
  const hash = upTo(200);
  const time = upTo(40);
  const decimal = z.string().check(z.regex(/^\d{1,78}(\.\d{1,78})?$/));
  // What the person can do once with the wallet instead (approve a token's spender, with its gas).
  const fallback = z.object({ kind: z.literal("token-approval"), token: id, spender: id, label: upTo(80), note: text });
  const payment = z.object({
    paymentId: id,
    status: z.enum(paymentStages),
    service: z.object({ name: text, url: text }),
    network: id,
    chain: id,
    asset: z.object({ symbol: upTo(20), address: id, decimals: z.int().check(z.minimum(0), z.maximum(36)) }),
    amount: z.object({
      serviceFee: decimal,
      gasFee: decimal,
      total: decimal,
      currency: z.literal("USDC"),
      usd: decimal,
      upTo: z.optional(z.literal(true)),
      typical: z.optional(decimal),
      charged: z.optional(decimal),
    }),
    payTo: id,
    protocol: z.optional(upTo(40)),
    protocolLabel: z.optional(upTo(80)),
    paidFrom: z.optional(z.literal("agent-budget")),
    channel: z.optional(
      z.object({ opening: z.boolean(), price: decimal, deposit: decimal, left: decimal, withdrawDelaySeconds: z.int().check(z.minimum(0)), confirm: z.optional(z.literal(true)) }),
    ),
    approval: z.optional(
      z.object({
        // What the wallet signs, in order; each request what it is for, and what to do instead of an optional one.
        toSign: z.optional(
          z
            .array(
              z.intersection(
                z.union([
                  z.object({ kind: z.literal("typed-data"), typedData: z.unknown() }),
                  z.object({ kind: z.literal("transaction"), transaction: upTo(8_000) }),
                ]),
                z.object({
                  purpose: text,
                  answeredAs: id,
                  signer: z.optional(z.literal("channel-key")),
                  instead: z.optional(fallback),
                }),
              ),
            )
            .check(z.minLength(1), z.maxLength(8)),
        ),
        typedData: z.optional(z.unknown()),
        transaction: z.optional(upTo(8_000)),
        token: z.optional(z.string()),
        expiresAt: time,
      }),
    ),
    txHash: z.optional(hash),
    explorerUrl: z.optional(text),
    reason: z.optional(z.object({ code: z.enum(paymentFailureCodes), message: text, remedy: z.optional(fallback) })),
    collectableUntil: z.optional(time),
    warnings: z.optional(z.array(text).check(z.maxLength(20))),
    networkChoice: z.optional(text),
    receipt: z.optional(z.object({ status: z.enum(receiptStatuses), signer: z.optional(upTo(2_048)), reason: z.optional(text) })),
  });
  const finish = z.looseObject({
    finishReason: z.enum(finishReasons),
    model: hash,
    paymentId: z.optional(id),
    txHash: z.optional(hash),
    explorerUrl: z.optional(text),
    network: z.optional(id),
  });
  return { payment, finish };
});

/** A `p:` payload the page can show, or undefined when it is malformed. */
export function readPaymentStatus(value: unknown): PaymentStatus | undefined {
  const parsed = schemas().payment.safeParse(value);
  return parsed.success ? (parsed.data as PaymentStatus) : undefined;
}

/** A final `d:` payload the page can show, or undefined when it is malformed. */
export function readFinish(value: unknown): FinishMetadata | undefined {
  const parsed = schemas().finish.safeParse(value);
  return parsed.success ? (parsed.data as FinishMetadata) : undefined;
}
