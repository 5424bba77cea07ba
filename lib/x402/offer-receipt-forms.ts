// The forms of the x402 `offer-receipt` extension's signed offers and receipts, as zod schemas:
// what this agent reads from a service (lib/x402/offer-receipt.ts) and what the ledger keeps of
// it and reads back (lib/payments/ledger.ts). Apart from the extension's signature code, so that
// the ledger, which every chat request loads, reads a kept receipt without loading that code.
import { z } from "zod";

const text = (max: number) => z.string().max(max);
const unixSeconds = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
// EIP-712: 65 bytes of r, s and v as 0x hex. JWS: header.payload.signature in base64url.
const eip712Signature = z.string().regex(/^0x[0-9a-fA-F]{130}$/);
const jwsCompact = z.string().max(8_000).regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);

export const offerPayloadSchema = z.object({
  version: z.number().int().min(0).max(1_000),
  resourceUrl: text(2_048),
  scheme: text(40),
  network: text(100),
  asset: text(128),
  payTo: text(128),
  amount: z.string().regex(/^\d{1,78}$/),
  validUntil: unixSeconds,
});

export const receiptPayloadSchema = z.object({
  version: z.number().int().min(0).max(1_000),
  network: text(100),
  resourceUrl: text(2_048),
  payer: text(128),
  issuedAt: unixSeconds,
  // Empty or absent when the service keeps the transaction out of its receipt (the spec's default).
  transaction: text(200).optional(),
});

// Only the fields a signature covers are kept: for EIP-712 the typed payload, for JWS the
// compact string, which holds its payload. What is kept is then exactly what was signed.
export const signedOfferSchema = z.discriminatedUnion("format", [
  z.object({ format: z.literal("eip712"), acceptIndex: z.number().int().min(0).max(1_000).optional(), payload: offerPayloadSchema, signature: eip712Signature }),
  z.object({ format: z.literal("jws"), acceptIndex: z.number().int().min(0).max(1_000).optional(), signature: jwsCompact }),
]);

export const signedReceiptSchema = z.discriminatedUnion("format", [
  z.object({ format: z.literal("eip712"), payload: receiptPayloadSchema, signature: eip712Signature }),
  z.object({ format: z.literal("jws"), signature: jwsCompact }),
]);
