"use client";
// The page an AI app's approval link opens (docs/contract.md, section 11): the payment the app
// asked for, on the same card as in the chat (service, fee, gas, total, network, countdown), and
// the wallet to approve it with. Approving signs the quote and sends the signature; the card
// then tells how the payment went, and the service's answer is shown to the wallet that paid. What
// the quote asks the wallet for is signed in its order and sent as one list (lib/client/
// wallet-requests.ts); a request the person may do otherwise is left out once they did it from
// the card.
// Declining signs nothing: the quote runs out and the app is told it expired.
//
// Test ids: approval-view, approval-app, approval-problem, approval-answer, and the card's own.
import { useCallback, useEffect, useState } from "react";
import { MarkdownText } from "@/components/shared/markdown";
import { PaymentCard, type ApproveOptions, type PaymentActions } from "@/components/payment/payment-card";
import { shortHex } from "@/components/payment/payment-display";
import { WalletConnectButton } from "@/components/wallet/connect-button";
import { insteadApproval, useWallet } from "@/components/wallet/wallet-context";
import { sameAddress } from "@/lib/address-text";
import type { WalletNetwork } from "@/lib/chain/wallet-networks";
import { describeServiceData, rawDataBlock } from "@/lib/data-words";
import { readPaymentStatus } from "@/lib/protocol/stream-payloads";
import { OptionalRequestDeclined, requestsOf, requestsProblem, signRequests } from "@/lib/client/wallet-requests";
import type { ApprovalTypedData } from "@/lib/client/wallet-signer";
import { useChannelKey } from "@/components/chat/use-channel-key";
import type { PaymentStatus } from "@/lib/protocol/lines";
import styles from "./mcp.module.css";

type View = { app: string; wallet: string; status: string; summary: string; card: PaymentStatus; data?: unknown };

export function ApprovalView({ paymentId, networks = [] }: { paymentId: string; networks?: WalletNetwork[] }) {
  const wallet = useWallet();
  // A channel's deposit asks this browser's channel key for the first call's voucher too.
  const channelKey = useChannelKey(wallet.address);
  const [view, setView] = useState<View | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [approving, setApproving] = useState(false);
  const [declined, setDeclined] = useState(false);

  const load = useCallback(async () => {
    const response = await fetch(`/api/mcp/payments/${encodeURIComponent(paymentId)}`, { cache: "no-store" }).catch(() => undefined);
    const body = (await response?.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (!response?.ok || !body) {
      setProblem(errorMessage(body) ?? "This payment could not be loaded. Check the link, or ask the AI app for the payment again.");
      return;
    }
    const card = readPaymentStatus(body.card) ?? readPaymentStatus(body.quote);
    if (!card || typeof body.wallet !== "string") {
      setProblem("This payment could not be read.");
      return;
    }
    setView({ app: String(body.app ?? "An AI app"), wallet: body.wallet, status: String(body.status), summary: String(body.summary ?? ""), card, ...("data" in body ? { data: body.data } : {}) });
  }, [paymentId]);

  useEffect(() => {
    void load();
  }, [load]);

  const approve = useCallback(
    async (payment: PaymentStatus, options?: ApproveOptions) => {
      if (!view) return;
      setProblem(undefined);
      const requests = requestsOf(payment.approval);
      const skip = new Set(options?.skip ?? []);
      const keySign = channelKey.sign;
      const signers = { typedData: wallet.sign, channelKey: keySign ? (typedData: ApprovalTypedData) => keySign(typedData, payment) : undefined };
      if (!requests || requestsProblem(requests, signers, skip) === "incomplete") return setProblem("This quote cannot be signed here.");
      if (!wallet.address || !wallet.sign) return setProblem("Connect your wallet to approve this payment.");
      if (!sameAddress(wallet.address, view.wallet)) {
        return setProblem(`The app asked for this payment from ${shortHex(view.wallet)}. Connect that wallet to approve it.`);
      }
      setApproving(true);
      const steps = async () => {
        let signed: (string | null)[];
        try {
          signed = await signRequests(requests, signers, skip);
        } catch (error) {
          const reason = error instanceof Error ? error.message.split("\n")[0] : "";
          if (error instanceof OptionalRequestDeclined) {
            const instead = error.request.instead;
            return setProblem(
              `The wallet did not sign ${error.request.purpose}${reason ? `: ${reason}` : ""}. Nothing was paid.${instead ? ` ${instead.note} Do that from the card instead (${instead.label}), then approve the payment.` : ""}`,
            );
          }
          return setProblem(`The wallet did not sign the payment${reason ? `: ${reason}` : ""}. Nothing was paid.`);
        }
        const response = await fetch(`/api/mcp/payments/${encodeURIComponent(paymentId)}`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ signed }),
        }).catch(() => undefined);
        const body = (await response?.json().catch(() => undefined)) as Record<string, unknown> | undefined;
        if (!response?.ok || !body) {
          return setProblem(errorMessage(body) ?? "The approval could not reach the server. Nothing was paid; please try again.");
        }
        const updates = Array.isArray(body.updates) ? body.updates.map(readPaymentStatus).filter((update) => update !== undefined) : [];
        const last = updates.at(-1);
        setView((current) =>
          current
            ? { ...current, status: String(body.status), summary: String(body.summary ?? ""), card: last ?? current.card, ...("data" in body ? { data: body.data } : {}) }
            : current,
        );
      };
      // However it ends, the approval is over.
      return steps().finally(() => setApproving(false));
    },
    [paymentId, view, wallet, channelKey.sign],
  );

  // A quote made for the agent budget is signed by its session key, in the page that holds it.
  const forBudget = view?.card.paidFrom === "agent-budget";
  const awaiting = view?.card.status === "awaiting-signature" && view.status === "awaiting-approval" && !declined && !forBudget;
  const actions: PaymentActions | undefined = awaiting
    ? {
        canSign: wallet.sign !== undefined,
        walletLoading: wallet.status === "loading",
        busy: approving,
        approving: approving ? paymentId : undefined,
        approve: (payment, options) => void approve(payment, options),
        ...insteadApproval(wallet.actions, networks),
        reject: () => setDeclined(true),
        ...(wallet.address ? { payingFrom: wallet.address } : {}),
      }
    : undefined;

  return (
    <div className={styles.shell} data-testid="approval-view">
      <header className={styles.topBar}>
        <div>
          <h1 className={styles.title}>Approve a payment</h1>
          <a className={styles.back} href="/">
            x402 payment agent
          </a>
        </div>
        <WalletConnectButton />
      </header>
      <section className={styles.panel} aria-live="polite">
        {view ? (
          <>
            <p className={styles.lead} data-testid="approval-app">
              <strong>{view.app}</strong> asks to pay this service from {shortHex(view.wallet)}, within the limits of its access.
            </p>
            <PaymentCard payment={view.card} actions={actions} />
            {forBudget && view.status === "awaiting-approval" ? (
              <p className={styles.muted}>Your agent budget pays this one from the chat page where it lives, while that page is open.</p>
            ) : null}
            {declined ? <p className={styles.muted}>Declined. Nothing was signed or paid; the app will see the quote expire.</p> : null}
            {!awaiting && view.status !== "awaiting-approval" && view.data === undefined ? <p className={styles.muted}>{view.summary}</p> : null}
            {view.data !== undefined ? (
              <div className={styles.answer} data-testid="approval-answer">
                <h2 className={styles.heading}>What the service answered</h2>
                <MarkdownText text={`${describeServiceData(view.data)}\n\n${rawDataBlock(view.data)}`} />
                <p className={styles.muted}>The app gets the same data when it asks for the payment.</p>
              </div>
            ) : null}
          </>
        ) : problem ? null : (
          <p className={styles.muted}>Loading the payment…</p>
        )}
        {problem ? (
          <p className={styles.problem} role="alert" data-testid="approval-problem">
            {problem}
          </p>
        ) : null}
      </section>
    </div>
  );
}

function errorMessage(body: Record<string, unknown> | undefined): string | undefined {
  const error = body?.error as { message?: unknown } | undefined;
  return typeof error?.message === "string" ? error.message : undefined;
}
