// What a quote asks the wallet to sign, as the page reads it and signs it: its approval's
// `toSign` list in order (or, from a server before the list, its one `typedData` or
// `transaction`), each request signed by the signer of its kind, and an optional one left out
// (null) when the person did what it offers instead. One for the chat and the AI apps approval
// page alike; the scheme that asked knows what each answer is, and the page names none of them.
import type { WalletFallback, WalletRequest } from "@/lib/payments/payment";
import type { PaymentApproval } from "@/lib/protocol/lines";
import { readApprovalTypedData, type ApprovalTypedData } from "./wallet-signer";

export type { WalletFallback, WalletRequest } from "@/lib/payments/payment";

/** The requests of a quote's approval, in order; undefined when it holds none the page can read. */
export function requestsOf(approval: PaymentApproval | undefined): WalletRequest[] | undefined {
  if (!approval) return undefined;
  if (approval.toSign && approval.toSign.length > 0) return approval.toSign;
  if (typeof approval.transaction === "string") return [{ kind: "transaction", transaction: approval.transaction, purpose: "the payment", answeredAs: "transaction" }];
  if (approval.typedData !== undefined) return [{ kind: "typed-data", typedData: approval.typedData, purpose: "the payment", answeredAs: "signature" }];
  return undefined;
}

/** The payment's own request: the last, which no fallback replaces. */
export function paymentRequestOf(requests: readonly WalletRequest[]): WalletRequest | undefined {
  return requests.at(-1);
}

/** The first request the person may do otherwise, and where it stands in the list. */
export function optionalRequestOf(requests: readonly WalletRequest[] | undefined): { index: number; instead: WalletFallback; purpose: string } | undefined {
  const index = requests?.findIndex((request) => request.instead !== undefined) ?? -1;
  const request = index === -1 ? undefined : requests?.[index];
  return request?.instead ? { index, instead: request.instead, purpose: request.purpose } : undefined;
}

/** The signers a page holds, by what they sign. */
export type RequestSigners = {
  typedData?: ((typedData: ApprovalTypedData) => Promise<string>) | undefined;
  /** The page's channel key, for what a pay-as-you-go channel asks it (a request with `signer: "channel-key"`). */
  channelKey?: ((typedData: ApprovalTypedData) => Promise<string>) | undefined;
  transaction?: ((transaction: string) => Promise<string>) | undefined;
};

/** The wallet did not sign a request it may do otherwise: the page offers that instead. */
export class OptionalRequestDeclined extends Error {
  override readonly name = "OptionalRequestDeclined";
  constructor(
    readonly request: WalletRequest,
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

/** Why a quote's requests cannot be signed here, if they cannot: one the page cannot read, or no signer for its kind. */
export function requestsProblem(requests: readonly WalletRequest[], signers: RequestSigners, skip: ReadonlySet<number> = new Set()): "incomplete" | "no-signer" | undefined {
  for (const [index, request] of requests.entries()) {
    if (skip.has(index) && request.instead) continue;
    if (request.kind === "typed-data" && !readApprovalTypedData(request.typedData)) return "incomplete";
    if (!signerOf(request, signers)) return "no-signer";
  }
  return undefined;
}

/**
 * The wallet's answers, one per request in order: each signed by its signer, or null for an
 * optional one in `skip` (the person did what it offers instead). A refusal of an optional one is
 * an OptionalRequestDeclined; any other is the signer's own error.
 */
export async function signRequests(requests: readonly WalletRequest[], signers: RequestSigners, skip: ReadonlySet<number> = new Set()): Promise<(string | null)[]> {
  const answers: (string | null)[] = [];
  for (const [index, request] of requests.entries()) {
    if (skip.has(index) && request.instead) {
      answers.push(null);
      continue;
    }
    try {
      answers.push(await signOne(request, signers));
    } catch (error) {
      if (request.instead) throw new OptionalRequestDeclined(request, error);
      throw error;
    }
  }
  return answers;
}

async function signOne(request: WalletRequest, signers: RequestSigners): Promise<string> {
  if (request.kind === "transaction") {
    if (!signers.transaction) throw new Error("no signer for a transaction");
    return signers.transaction(request.transaction);
  }
  const typedData = readApprovalTypedData(request.typedData);
  const signer = typedDataSigner(request, signers);
  if (!typedData || !signer) throw new Error("no signer for this typed data");
  return signer(typedData);
}

function typedDataSigner(request: WalletRequest, signers: RequestSigners): RequestSigners["typedData"] {
  return request.signer === "channel-key" ? signers.channelKey : signers.typedData;
}

function signerOf(request: WalletRequest, signers: RequestSigners): unknown {
  return request.kind === "transaction" ? signers.transaction : typedDataSigner(request, signers);
}

/** Whether the channel key alone signs what a quote asks: a call on an open channel, paid without a prompt. */
export function channelKeyOnly(requests: readonly WalletRequest[] | undefined): boolean {
  return requests !== undefined && requests.length > 0 && requests.every((request) => request.signer === "channel-key");
}
