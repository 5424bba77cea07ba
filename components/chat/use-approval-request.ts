"use client";
// Request B of the approval round trip (docs/contract.md, section 4): approving a quote in the
// conversation. First what it takes, decided before anything is signed (planApproval): the
// messages and settings of the request that produced the quote, which request B resends, and who
// signs what the quote asks, in its order (lib/client/wallet-requests.ts): the Solana wallet a
// transaction, the agent budget's key or the wallet EIP-712 typed data. A quote that cannot be
// approved from this page (no wallet, another account, a budget the page no longer holds, an
// incomplete quote) is refused with the words the person sees, and nothing is signed or sent.
// Then the signatures, and the request with them (`payment.signed`, one per request). A request
// the person may do otherwise (one with `instead`) is left out once they have done it.
import { useCallback, useState, type RefObject } from "react";
import { sameAddress } from "@/lib/address-text";
import type { ChatRequestError } from "@/lib/client/chat-error";
import { channelKeyOnly, OptionalRequestDeclined, paymentRequestOf, requestsOf, requestsProblem, signRequests, type RequestSigners } from "@/lib/client/wallet-requests";
import { payerOfTypedData, readApprovalTypedData, type ApprovalTypedData } from "@/lib/client/wallet-signer";
import type { ApproveOptions } from "@/components/payment/payment-card";
import { quoteExpired } from "@/components/payment/payment-display";
import type { PaymentStatus } from "@/lib/protocol/lines";
import type { AssistantEntry, ChatEntry, ChatRequestBody, RequestMessage } from "./chat-entries";
import type { ChatEntries } from "./use-chat-entries";
import type { SendOutcome } from "./stream-reply";

/** What the wallet (or the budget's key) answers: one answer per request of the quote, in order (null for one done otherwise). */
export type WalletAnswer = { signed: (string | null)[] };

export type ApprovalSigners = {
  walletAddress?: string | undefined;
  sign?: ((typedData: ApprovalTypedData) => Promise<`0x${string}`>) | undefined;
  solanaAddress?: string | undefined;
  signSolana?: ((transaction: string, networkId: string) => Promise<string>) | undefined;
  signFromBudget?: ((typedData: ApprovalTypedData, payment: PaymentStatus) => Promise<`0x${string}`>) | undefined;
  /** The page's channel key, for what a pay-as-you-go channel's quote asks it (checked against the card's price). */
  signWithChannelKey?: ((typedData: ApprovalTypedData, payment: PaymentStatus) => Promise<`0x${string}`>) | undefined;
};

export type ApprovalPlan =
  | { kind: "refused"; code: string; message: string }
  | {
      kind: "sign";
      signAnswer: () => Promise<WalletAnswer>;
      /** Who signs, as the person is told when it fails: "The wallet", "The agent budget"... */
      signerName: string;
      messages: RequestMessage[];
      settings: AssistantEntry["requestSettings"];
      token: string;
    };

const refused = (code: string, message: string): ApprovalPlan => ({ kind: "refused", code, message });

function planApproval(payment: PaymentStatus, entries: readonly ChatEntry[], signers: ApprovalSigners, options: ApproveOptions = {}): ApprovalPlan {
  const { walletAddress, sign, solanaAddress, signSolana, signFromBudget, signWithChannelKey } = signers;
  const approval = payment.approval;
  const requests = requestsOf(approval);
  // The messages of the request that produced this quote: the approval must resend them.
  const origin = entries.find((entry) => entry.role === "assistant" && entry.payments.some((item) => item.paymentId === payment.paymentId));
  const messages = origin?.role === "assistant" ? origin.request : undefined;
  const settings = origin?.role === "assistant" ? origin.requestSettings : undefined;
  if (!approval || !requests || !messages) return refused("invalid-quote", "This quote cannot be signed: it is incomplete.");
  if (quoteExpired(payment)) return refused("expired", "This quote has run out. Ask again for a new one.");
  const skip = new Set(options.skip ?? []);
  const token = approval.token ?? "";
  const plan = (pageSigners: RequestSigners, signerName: string): ApprovalPlan => {
    const problem = requestsProblem(requests, pageSigners, skip);
    if (problem === "incomplete") return refused("invalid-quote", "This quote cannot be signed: it is incomplete.");
    if (problem === "no-signer") return refused("no-wallet", "Connect a wallet to approve this payment.");
    return { kind: "sign", signAnswer: async () => ({ signed: await signRequests(requests, pageSigners, skip) }), signerName, messages, settings, token };
  };

  // A Solana quote: the wallet signs the transaction itself; the server checks it is the quoted one.
  if (requests.some((request) => request.kind === "transaction")) {
    if (!solanaAddress || !signSolana) return refused("no-wallet", "Connect a Solana wallet to approve this payment.");
    return plan({ transaction: (transaction) => signSolana(transaction, payment.network) }, "The Solana wallet");
  }

  const fromBudget = payment.paidFrom === "agent-budget";
  // The budget's key signs with the quote's card beside it, to check one against the other.
  const signer = fromBudget ? (signFromBudget ? (data: ApprovalTypedData) => signFromBudget(data, payment) : undefined) : sign;
  if (!walletAddress) return refused("no-wallet", "Connect a wallet to approve this payment.");
  if (!signer) {
    return fromBudget
      ? refused("no-agent-budget", "This payment was quoted for your agent budget, which this page no longer holds or has revoked. Ask again to pay it from your wallet.")
      : refused("no-wallet", "Connect a wallet to approve this payment.");
  }
  const channelKey = signWithChannelKey ? (data: ApprovalTypedData) => signWithChannelKey(data, payment) : undefined;
  // A call on an open channel: the channel key alone signs it.
  if (channelKeyOnly(requests)) {
    if (!channelKey) return refused("no-channel-key", "This call is paid from a deposit whose key this page does not hold. Ask again to pay it another way.");
    return plan({ channelKey }, "The channel key");
  }
  // The approval token binds the wallet the quote was made for; another account cannot use it.
  const paymentRequest = requests.findLast((request) => request.signer === undefined) ?? paymentRequestOf(requests);
  const typedData = paymentRequest?.kind === "typed-data" ? readApprovalTypedData(paymentRequest.typedData) : undefined;
  const payer = typedData ? payerOfTypedData(typedData) : undefined;
  if (!fromBudget && payer && !sameAddress(payer, walletAddress)) {
    return refused(
      "wallet-changed",
      `This quote was made for the wallet ${payer.slice(0, 6)}…${payer.slice(-4)}. Switch back to it to approve, or ask again with this wallet.`,
    );
  }
  return plan({ typedData: signer, channelKey }, fromBudget ? "The agent budget" : "The wallet");
}

/** The refusal shown when the signer threw (the person declined, the wallet failed): its first line says why. */
function signingFailure(signerName: string, error: unknown): { code: string; message: string } {
  const detail = error instanceof Error && error.message ? ` (${error.message.split("\n")[0]})` : "";
  if (error instanceof OptionalRequestDeclined) {
    const instead = error.request.instead;
    return {
      code: "optional-not-signed",
      message: `${signerName} did not sign ${error.request.purpose}${detail}. Nothing was paid.${instead ? ` ${instead.note} ${instead.label} from the card instead, then approve the payment.` : ""}`,
    };
  }
  return { code: "signing-failed", message: `${signerName} could not sign the payment${detail}.` };
}

export type ApprovalRequestParameters = ApprovalSigners & {
  chat: Pick<ChatEntries, "entriesRef" | "update" | "newId">;
  /** The request in flight, if any: an approval waits for none, and takes the slot while it signs and sends. */
  controllerRef: RefObject<AbortController | null>;
  /** Sends a request and streams its answer into a new reply. */
  run: (body: ChatRequestBody, userText: undefined, controller: AbortController) => Promise<SendOutcome>;
  extras?: (() => Pick<ChatRequestBody, "spendingLimits" | "preferences" | "model" | "agentBudget" | "channelKeys">) | undefined;
};

export type ApprovalRequest = {
  /** The paymentId whose approval is being signed or sent, if any. */
  approving: string | undefined;
  approve: (payment: PaymentStatus, options?: ApproveOptions) => Promise<SendOutcome>;
};

export function useApprovalRequest({ chat, controllerRef, run, extras, walletAddress, sign, solanaAddress, signSolana, signFromBudget, signWithChannelKey }: ApprovalRequestParameters): ApprovalRequest {
  const [approving, setApproving] = useState<string | undefined>(undefined);
  const { entriesRef, update, newId } = chat;
  const approve = useCallback(
    async (payment: PaymentStatus, options?: ApproveOptions): Promise<SendOutcome> => {
      if (controllerRef.current) return { kind: "busy" };
      const refuse = (code: string, message: string): SendOutcome => {
        const error: ChatRequestError = { status: 0, code, message };
        update((current) => [...current, { id: newId(), role: "refusal", error }]);
        return { kind: "refused", error };
      };
      const plan = planApproval(payment, entriesRef.current, { walletAddress, sign, solanaAddress, signSolana, signFromBudget, signWithChannelKey }, options);
      if (plan.kind === "refused") return refuse(plan.code, plan.message);
      const controller = new AbortController();
      controllerRef.current = controller;
      setApproving(payment.paymentId);
      const signAndSend = async (): Promise<SendOutcome> => {
        let answer: WalletAnswer;
        try {
          answer = await plan.signAnswer();
        } catch (error) {
          controllerRef.current = null;
          const failure = signingFailure(plan.signerName, error);
          return refuse(failure.code, failure.message);
        }
        if (controller.signal.aborted) {
          controllerRef.current = null;
          return { kind: "answered" };
        }
        const body: ChatRequestBody = {
          messages: plan.messages,
          ...(walletAddress ? { walletAddress } : {}),
          ...(solanaAddress ? { solanaAddress } : {}),
          ...extras?.(),
          // The quote is bound to its conversation's model and settings, whatever the picker says now.
          ...plan.settings,
          payment: { paymentId: payment.paymentId, token: plan.token, signed: answer.signed },
        };
        return run(body, undefined, controller);
      };
      // However it ends, the approval is over.
      return signAndSend().finally(() => setApproving(undefined));
    },
    [controllerRef, entriesRef, extras, newId, run, sign, signFromBudget, signWithChannelKey, signSolana, solanaAddress, update, walletAddress],
  );
  return { approving, approve };
}
