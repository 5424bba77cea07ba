"use client";
// Request B of the approval round trip (docs/contract.md, section 4): approving a quote in the
// conversation. First what it takes, decided before anything is signed (planApproval): the
// messages and settings of the request that produced the quote, which request B resends, and who
// signs what: the Solana wallet its transaction, the agent budget's key or the wallet the EIP-712
// typed data. A quote that cannot be approved from this page (no wallet, another account, a budget
// the page no longer holds, an incomplete quote) is refused with the words the person sees, and
// nothing is signed or sent. Then the signature, and the request with it. A usage-priced quote
// for a wallet without a Permit2 allowance also asks for USDC's gasless EIP-2612 permit for
// Permit2 (`approval.permit`): the wallet signs it first, then the payment, and both go back.
import { useCallback, useState, type RefObject } from "react";
import { sameAddress } from "@/lib/address-text";
import type { ChatRequestError } from "@/lib/client/chat-error";
import { payerOfTypedData, readApprovalTypedData, type ApprovalTypedData } from "@/lib/client/wallet-signer";
import type { ApproveOptions } from "@/components/payment/payment-card";
import type { PaymentStatus } from "@/lib/protocol/lines";
import type { AssistantEntry, ChatEntry, ChatRequestBody, RequestMessage } from "./chat-entries";
import type { ChatEntries } from "./use-chat-entries";
import type { SendOutcome } from "./stream-reply";

/** What the wallet (or the budget's key) answers: an EVM signature (and its permit's, when asked), or a signed Solana transaction. */
export type WalletAnswer = { signature: string; permitSignature?: string } | { transaction: string };


/** The wallet declined the quote's permit: the card offers to approve Permit2 with its gas instead. */
class PermitNotSigned extends Error {}

export type ApprovalSigners = {
  walletAddress?: string | undefined;
  sign?: ((typedData: ApprovalTypedData) => Promise<`0x${string}`>) | undefined;
  solanaAddress?: string | undefined;
  signSolana?: ((transaction: string, networkId: string) => Promise<string>) | undefined;
  signFromBudget?: ((typedData: ApprovalTypedData, payment: PaymentStatus) => Promise<`0x${string}`>) | undefined;
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
  const { walletAddress, sign, solanaAddress, signSolana, signFromBudget } = signers;
  const approval = payment.approval;
  // The messages of the request that produced this quote: the approval must resend them.
  const origin = entries.find((entry) => entry.role === "assistant" && entry.payments.some((item) => item.paymentId === payment.paymentId));
  const messages = origin?.role === "assistant" ? origin.request : undefined;
  const settings = origin?.role === "assistant" ? origin.requestSettings : undefined;
  const plan = (signAnswer: () => Promise<WalletAnswer>, signerName: string, quoted: RequestMessage[]): ApprovalPlan => ({
    kind: "sign",
    signAnswer,
    signerName,
    messages: quoted,
    settings,
    token: approval?.token ?? "",
  });

  // A Solana quote: the wallet signs the transaction itself; the server checks it is the quoted one.
  if (approval?.transaction !== undefined) {
    if (!solanaAddress || !signSolana) return refused("no-wallet", "Connect a Solana wallet to approve this payment.");
    if (!messages) return refused("invalid-quote", "This quote cannot be signed: it is incomplete.");
    const transaction = approval.transaction;
    return plan(async () => ({ transaction: await signSolana(transaction, payment.network) }), "The Solana wallet", messages);
  }

  const typedData = approval ? readApprovalTypedData(approval.typedData) : undefined;
  const fromBudget = payment.paidFrom === "agent-budget";
  // The budget's key signs with the quote's card beside it, to check one against the other.
  const signer = fromBudget ? (signFromBudget ? (data: ApprovalTypedData) => signFromBudget(data, payment) : undefined) : sign;
  if (!walletAddress) return refused("no-wallet", "Connect a wallet to approve this payment.");
  if (!signer) {
    return fromBudget
      ? refused("no-agent-budget", "This payment was quoted for your agent budget, which this page no longer holds or has revoked. Ask again to pay it from your wallet.")
      : refused("no-wallet", "Connect a wallet to approve this payment.");
  }
  if (!approval || !typedData || !messages) return refused("invalid-quote", "This quote cannot be signed: it is incomplete.");
  // The approval token binds the wallet the quote was made for; another account cannot use it.
  const payer = payerOfTypedData(typedData);
  if (!fromBudget && payer && !sameAddress(payer, walletAddress)) {
    return refused(
      "wallet-changed",
      `This quote was made for the wallet ${payer.slice(0, 6)}…${payer.slice(-4)}. Switch back to it to approve, or ask again with this wallet.`,
    );
  }
  // The permit for Permit2 the quote asks for, signed first (the wallet's own; never the budget's key).
  const permit = !fromBudget && !options.withoutPermit && approval.permit ? readApprovalTypedData(approval.permit.typedData) : undefined;
  if (approval.permit && !fromBudget && !options.withoutPermit) {
    const owner = permit?.message.owner;
    if (!permit || typeof owner !== "string" || !sameAddress(owner, walletAddress)) return refused("invalid-quote", "This quote cannot be signed: its permit is incomplete.");
  }
  return plan(
    async () => {
      let permitSignature: string | undefined;
      if (permit) {
        try {
          permitSignature = await signer(permit);
        } catch (error) {
          throw new PermitNotSigned(error instanceof Error ? error.message : String(error));
        }
      }
      return { signature: await signer(typedData), ...(permitSignature ? { permitSignature } : {}) };
    },
    fromBudget ? "The agent budget" : "The wallet",
    messages,
  );
}

/** The refusal shown when the signer threw (the person declined, the wallet failed): its first line says why. */
function signingFailure(signerName: string, error: unknown): { code: string; message: string } {
  const detail = error instanceof Error && error.message ? ` (${error.message.split("\n")[0]})` : "";
  if (error instanceof PermitNotSigned) {
    return {
      code: "permit-not-signed",
      message: `${signerName} did not sign the gasless USDC permit for Permit2${detail}. Nothing was paid. Approve Permit2 from the card instead (one transaction, with its gas), then approve the payment.`,
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
  extras?: (() => Pick<ChatRequestBody, "spendingLimits" | "preferences" | "model" | "agentBudget">) | undefined;
};

export type ApprovalRequest = {
  /** The paymentId whose approval is being signed or sent, if any. */
  approving: string | undefined;
  approve: (payment: PaymentStatus, options?: ApproveOptions) => Promise<SendOutcome>;
};

export function useApprovalRequest({ chat, controllerRef, run, extras, walletAddress, sign, solanaAddress, signSolana, signFromBudget }: ApprovalRequestParameters): ApprovalRequest {
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
      const plan = planApproval(payment, entriesRef.current, { walletAddress, sign, solanaAddress, signSolana, signFromBudget }, options);
      if (plan.kind === "refused") return refuse(plan.code, plan.message);
      const controller = new AbortController();
      controllerRef.current = controller;
      setApproving(payment.paymentId);
      try {
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
          payment: { paymentId: payment.paymentId, token: plan.token, ...answer },
        };
        return await run(body, undefined, controller);
      } finally {
        setApproving(undefined);
      }
    },
    [controllerRef, entriesRef, extras, newId, run, sign, signFromBudget, signSolana, solanaAddress, update, walletAddress],
  );
  return { approving, approve };
}
