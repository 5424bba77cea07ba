// What one payment is and what a person is told about it, in the payment core's own words: the
// stages of its life (docs/contract.md, section 3), how it can fail, how it can end, and the update a door
// (the chat's `p:` lines, an MCP tool result) turns into its own wire format. No door, no chain
// family: a network is its CAIP-2 id, its name and its token; an address is a string its rail
// reads. Free of imports, so the page and the stream's decoder share the vocabulary.

/** A payment's stages, in the order of its flow; `failed` ends it anywhere. */
export const paymentStages = ["checking", "awaiting-signature", "submitted", "confirmed", "delivered", "failed"] as const;
export type PaymentStage = (typeof paymentStages)[number];

export const paymentFailureCodes = [
  "limit-exceeded",
  "insufficient-balance",
  "service-unavailable",
  "payment-failed",
  "rejected",
  "expired",
  "insufficient-gas",
  "network-congestion",
  // Paid means paid (docs/contract.md, section 3): money moved but no data came back, with the transaction...
  "not-delivered",
  // ...or the service holds a signed authorization it has not collected yet (collectableUntil).
  "payment-pending",
] as const;
export type PaymentFailureCode = (typeof paymentFailureCodes)[number];

/** How a payment ends the person's request: paid and delivered, or why not. */
export const paymentEnds = ["payment-complete", "payment-failed", "limit-exceeded", "insufficient-balance", "service-unavailable"] as const;
export type PaymentEnd = (typeof paymentEnds)[number];

/** A network a payment can be made on, as the core sees it; its rail knows the rest. */
export type PaymentNetwork = {
  /** CAIP-2: `<namespace>:<reference>`. */
  id: string;
  name: string;
  testnet: boolean;
  /** The token payments are made in: USDC, counted 1:1 with the dollar. */
  asset: { symbol: "USDC"; address: string; decimals: number };
  /** What the payer pays in fees on top of the price, in the asset's atomic units (0 where the facilitator pays). */
  payerFee: bigint;
  /** Whether this server can ask the chain about it (an RPC is configured). */
  readable: boolean;
  /** Where a transaction of this network is shown, `{txHash}` standing for its id: its explorer, or the app's own page. */
  transactionUrl: string;
};

/** What stays the same through one payment's life, shown with every update. */
export type PaymentFacts = {
  paymentId: string;
  service: { name: string; url: string };
  network: PaymentNetwork;
  /** The price, in the asset's atomic units; for a usage-priced payment (x402 `upto`), the most it can cost. */
  amount: bigint;
  /** Usage-priced: the amount is a maximum, and the service settles what it used. */
  upTo?: true;
  /** What the service says a usual request costs (its 402's `typical-usd:` tag, as its listing), below the maximum. */
  typical?: bigint;
  /** What a usage-priced payment settled, once the chain shows it (0 when the service used nothing). */
  settledAmount?: bigint;
  payTo: string;
  /** The protocol the service is paid through, as registered (lib/payments/protocols): its name, and how a person reads it. */
  protocol: { name: string; label: string };
  /** Paid by the wallet's agent budget (its session key) rather than the wallet's own prompt. */
  paidFrom?: "agent-budget";
  /**
   * Paid through a pay-as-you-go channel: `opening`, the amount is the deposit the wallet signs
   * and `price` this first call's part of it; else the amount is the call's price, taken from the
   * deposit by the channel key's voucher. `left`: what the deposit holds after this call.
   */
  channel?: { opening: boolean; price: bigint; deposit: bigint; left: bigint; withdrawDelaySeconds: number; confirm?: true };
};

/**
 * What the wallet is asked to sign, in order (its scheme's requests), and the token that carries
 * the quote to the approval.
 */
export type PaymentApproval = {
  toSign: WalletRequest[];
  token: string;
  expiresAt: Date;
};

/**
 * One thing the payer's wallet is asked to sign. A scheme asks for a list of them, in order, and
 * the wallet's answers come back in the same order (`SignedPayment.signed`); only the scheme
 * knows what each one is.
 */
export type WalletRequest = (
  | {
      /** EIP-712 typed data, as `eth_signTypedData_v4` takes it. */
      kind: "typed-data";
      typedData: unknown;
    }
  | {
      /** A transaction for the wallet to sign, never send (base64 wire format). */
      kind: "transaction";
      transaction: string;
    }
) & {
  /** What it is for, in the person's words. */
  purpose: string;
  /**
   * Who signs it: absent, the payer (the wallet, or its agent budget's key); `channel-key`, the
   * page's own key for a pay-as-you-go channel, which signs without a prompt.
   */
  signer?: "channel-key";
  /**
   * A request the wallet may decline and still pay, by doing this once instead (approving a
   * token's spender, with its own gas); its answer is then left out (undefined).
   */
  instead?: WalletFallback;
  /**
   * The single field clients answered it in before the answer was a list (deprecated, kept for
   * one release): `signature`, `transaction`, or the name of the field of an extra signature.
   */
  answeredAs: string;
};

/** What a person can do once instead of signing an optional request: let `spender` move `token` (an ERC-20 approval, with its own gas). */
export type WalletFallback = { kind: "token-approval"; token: string; spender: string; label: string; note: string };


/** One step of a payment, as the person is told it. */
export type PaymentUpdate = {
  facts: PaymentFacts;
  stage: PaymentStage;
  approval?: PaymentApproval;
  txHash?: string;
  explorerUrl?: string;
  /** Why it failed; `remedy`, where the person can do one thing with the wallet that lets the payment go through (approve a spender once). */
  reason?: { code: PaymentFailureCode; message: string; remedy?: WalletFallback };
  /** With `payment-pending`: until when the service could still collect the signed payment. */
  collectableUntil?: Date;
  warnings?: string[];
  /** With the quote, when the service takes more than one network: why this one. */
  networkChoice?: string;
  /** With `delivered`, when the service signed a receipt for the payment. */
  receipt?: ReceiptSummary;
};

/** What a service's signed receipt for a payment came to (x402 `offer-receipt`; lib/payments/receipt.ts). */
export const receiptStatuses = ["verified", "unverified"] as const;
export type ReceiptStatus = (typeof receiptStatuses)[number];

/**
 * A receipt as a person is told of it: `verified` names the key that signed it; `unverified`
 * says why it is no proof of anything (docs/contract.md, section 3).
 */
export type ReceiptSummary = { status: ReceiptStatus; signer?: string; reason?: string };

/** What the agent is told about a payment: a summary it can relay, and the details behind it. */
export type AgentReport = Record<string, unknown> & { status: string; summary: string };

/** How one payment ended, as the person and the agent are told. */
export type PaymentOutcome = {
  /** The updates that tell it, in order. */
  updates: PaymentUpdate[];
  end: PaymentEnd;
  txHash: string | undefined;
  explorerUrl: string | undefined;
  report: AgentReport;
};

/** The price plus what the payer pays in fees. */
export function totalOf(facts: Pick<PaymentFacts, "amount" | "network">): bigint {
  return facts.amount + facts.network.payerFee;
}
