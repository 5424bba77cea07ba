// What the page takes from the stream's `p:` and final `d:` lines, checked before anything renders
// it: the server validates what services send, and this is the page's own wall, so that no
// payload (a field of the wrong type, a value no renderer expects) can take the chat down.
import { z } from "zod";
import { paymentFailureCodes, paymentStages, receiptStatuses } from "@/lib/payments/payment";
import type { FinishMetadata, PaymentStatus } from "@/lib/protocol/lines";
import { finishReasons } from "@/lib/protocol/lines";

const text = z.string().max(4_000);
const decimal = z.string().regex(/^\d{1,78}(\.\d{1,78})?$/);

const paymentStatusSchema = z.object({
  paymentId: z.string().max(100),
  status: z.enum(paymentStages),
  service: z.object({ name: text, url: text }),
  network: z.string().max(100),
  chain: z.string().max(100),
  asset: z.object({ symbol: z.string().max(20), address: z.string().max(100), decimals: z.number().int().min(0).max(36) }),
  amount: z.object({ serviceFee: decimal, gasFee: decimal, total: decimal, currency: z.literal("USDC"), usd: decimal }),
  payTo: z.string().max(100),
  paidFrom: z.literal("agent-budget").optional(),
  approval: z.object({ typedData: z.unknown().optional(), transaction: z.string().max(8_000).optional(), token: z.string(), expiresAt: z.string().max(40) }).optional(),
  txHash: z.string().max(200).optional(),
  explorerUrl: text.optional(),
  reason: z.object({ code: z.enum(paymentFailureCodes), message: text }).optional(),
  collectableUntil: z.string().max(40).optional(),
  warnings: z.array(text).max(20).optional(),
  networkChoice: text.optional(),
  receipt: z.object({ status: z.enum(receiptStatuses), signer: z.string().max(2_048).optional(), reason: text.optional() }).optional(),
});

const finishSchema = z.looseObject({
  finishReason: z.enum(finishReasons),
  model: z.string().max(200),
  paymentId: z.string().max(100).optional(),
  txHash: z.string().max(200).optional(),
  explorerUrl: text.optional(),
  network: z.string().max(100).optional(),
});

/** A `p:` payload the page can show, or undefined when it is malformed. */
export function readPaymentStatus(value: unknown): PaymentStatus | undefined {
  const parsed = paymentStatusSchema.safeParse(value);
  return parsed.success ? (parsed.data as PaymentStatus) : undefined;
}

/** A final `d:` payload the page can show, or undefined when it is malformed. */
export function readFinish(value: unknown): FinishMetadata | undefined {
  const parsed = finishSchema.safeParse(value);
  return parsed.success ? (parsed.data as FinishMetadata) : undefined;
}
