// The wallet's answers to a quote, as request B brings them (docs/contract.md, sections 4 and 11):
// `signed`, a list with one answer per request of the quote's `approval.toSign`, in its order
// (null for an optional request the wallet declined, having done what it offers instead); or,
// deprecated and kept for one release, the single fields clients sent before the answer was a
// list: `signature` or `transaction` for the payment, `signed` as one string, and a scheme's extra
// signature in the field its request names (`WalletRequest.answeredAs`). The doors' wire schemas
// take these shapes from here, so that only a scheme says what each of its answers is.
import { z } from "zod";
import { AppError } from "@/lib/errors";
import type { WalletRequest } from "./rails/rail";

// A key wallet's signature is 132 characters; a smart account's (ERC-1271, passkey-signed, or
// wrapped for ERC-6492 with its factory's deployment call) runs to several kilobytes; a Solana
// transaction is base64 of at most 1,232 bytes.
const answer = z
  .string()
  .regex(/^(0x[0-9a-fA-F]{2,}|[0-9A-Za-z+/]+={0,2})$/, "must be the wallet's signature (hex) or signed transaction (base64)")
  .max(16_384);
const hexSignature = z.string().regex(/^0x[0-9a-fA-F]{130,}$/, "must be a hex signature").max(16_384);

/** The answers as a list, one per requested signature, in order. */
export const signedListSchema = z.array(answer.nullable()).min(1).max(8);

/**
 * The fields of request B's `payment` that carry the wallet's answers: `signed` (the list, or one
 * answer as a string) and the deprecated single fields (`docs/contract.md` lists them).
 */
export const answerShape = {
  signed: z.union([signedListSchema, answer]).optional(),
  signature: hexSignature.optional(),
  transaction: z.string().regex(/^[A-Za-z0-9+/]+={0,2}$/, "must be a base64 signed transaction").max(1_644).optional(),
  permitSignature: hexSignature.optional(),
};

export type WalletAnswers = { [K in keyof typeof answerShape]?: z.infer<(typeof answerShape)[K]> };

/** Whether a door's request carries the payment's own answer at all, once (in `signed`, or in one of the older fields). */
export function answerProblem(answers: WalletAnswers): { path: string; message: string } | undefined {
  const given = [answers.signed, answers.signature, answers.transaction].filter((value) => value !== undefined).length;
  if (given === 1) return undefined;
  return answers.signed === undefined
    ? { path: "signature", message: "must carry the wallet's answers (signed), or the older single signature or signed transaction, one of them" }
    : { path: "signed", message: "must carry the wallet's answer once: in signed, or in signature or transaction" };
}

/**
 * The answers in the order of the quote's requests (undefined for an optional one declined), or
 * a `bad-request` naming what is missing. The payment's own request is the last; the older single
 * fields answer it and the requests that name them.
 */
export function answersFor(toSign: readonly WalletRequest[], answers: WalletAnswers): readonly (string | undefined)[] {
  const last = toSign.length - 1;
  let list: (string | undefined)[];
  if (Array.isArray(answers.signed)) {
    if (answers.signed.length !== toSign.length) {
      throw new AppError("bad-request", `The quote asked the wallet for ${toSign.length} signature${toSign.length === 1 ? "" : "s"}, and the approval carries ${answers.signed.length}. Nothing was paid.`, {
        details: { fields: [{ path: "payment.signed", message: `must have ${toSign.length} answers, in the order of approval.toSign` }] },
      });
    }
    list = answers.signed.map((one) => one ?? undefined);
  } else {
    const fields: Record<string, string | undefined> = { signature: answers.signature, transaction: answers.transaction, permitSignature: answers.permitSignature };
    list = toSign.map((request, index) => (index === last && typeof answers.signed === "string" ? answers.signed : fields[request.answeredAs]));
  }
  const missing = toSign.findIndex((request, index) => list[index] === undefined && request.instead === undefined);
  if (missing !== -1) {
    throw new AppError("bad-request", `The approval is missing the wallet's signature of ${toSign[missing]?.purpose ?? "the payment"}. Nothing was paid.`, {
      details: { fields: [{ path: answerPath(toSign, answers, missing), message: "is missing" }] },
    });
  }
  return list;
}

/** Where in request B the answer to request `index` is: its place in `signed`, or the older field it came in. */
export function answerPath(toSign: readonly WalletRequest[], answers: WalletAnswers, index = toSign.length - 1): string {
  if (Array.isArray(answers.signed)) return `payment.signed[${index}]`;
  const request = toSign[index];
  if (index === toSign.length - 1 && typeof answers.signed === "string") return "payment.signed";
  return `payment.${request?.answeredAs ?? "signed"}`;
}
