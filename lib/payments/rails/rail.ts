// The rail seam: what differs per chain family, in two parts, as the x402 packages split it. A
// rail (`PaymentRail`) is what a CAIP-2 namespace has whatever the scheme: its networks, the
// payer's balance, a chain checkpoint, the agent budget's grant, its address format and where its
// transactions are shown. A scheme (`PaymentScheme`) is one x402 scheme on that rail, like the
// packages' SchemeNetworkClient: which requirements it can pay, what the payer's wallet signs,
// whether what came back is that wallet's approval, the payload it completes, and whether the
// payment happened on chain. ./index.ts registers each scheme for its rail's network pattern
// (`eip155:*`, `solana:*`), as x402Client registers `new ExactEvmScheme(...)` for `eip155:*`.
// The core never looks inside a chain family or a scheme itself.
// A new rail is one folder beside `evm/`; a new scheme, one folder in its rail's (`evm/exact/`);
// each joins with one line in ./index.ts.
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types";
import type { ServerEnv } from "@/lib/env";
import type { PaymentNetwork, WalletFallback, WalletRequest } from "../payment";

/** The scheme a payment without one on record was made in: every payment this ledger held before schemes were named. */
export const FIRST_SCHEME = "exact";

export type { WalletFallback, WalletRequest } from "../payment";

/** What the rails read of the configuration: the enabled networks, their RPCs and tokens, and how many blocks one log search may span. */
export type RailEnv = Pick<ServerEnv, "X402_NETWORKS" | "rpcUrls" | "usdcAddresses" | "CHAIN_LOG_RANGE_BLOCKS">;

/**
 * How long a signed authorization stays collectable (docs/contract.md, section 4, item 5): at most 10
 * minutes after the quote, whatever `maxTimeoutSeconds` the service asks for. A longer window
 * would only let a service collect long after the person was told how the payment ended.
 */
export const MAX_AUTHORIZATION_SECONDS = 600;

/** A requirement a rail can pay, with its fields read and normalized. */
export type PayableRequirement = {
  requirements: PaymentRequirements;
  network: PaymentNetwork;
  /** Atomic units of the network's asset. */
  amount: bigint;
  asset: string;
  payTo: string;
};

export type RequirementVerdict = ({ payable: true } & PayableRequirement) | { payable: false; reason: string };

/**
 * What a signed payment exposes (docs/contract.md, section 12, "What can still move stays
 * counted"): what can still leave the payer's wallet because of the signature, and what ends
 * that. Every scheme states it when it prepares a payment. The core counts `amount` against the
 * limits from the reservation until the chain shows the instrument spent (then what moved is
 * counted) or the window has ended with it unspent (then, and only then, it is released); no
 * service's or facilitator's word lowers or releases it.
 */
export type Exposure = {
  /** The most that can move, in the asset's atomic units: the price; for a usage-priced payment, its maximum. */
  amount: bigint;
  /**
   * The one-time instrument the chain marks spent when the money moves, by which the chain is
   * asked about it later: an EIP-3009 authorization's nonce (x402 `exact`, MPP's charge), a
   * Permit2 nonce (`upto`), a Solana transaction (its message's hash and blockhash).
   */
  instrument: string;
  /**
   * Unix seconds: the window's end, as the person is told it. Whether the chain is past it is
   * the scheme's to say (`paymentState`'s `expired`), as its contract reads it: EIP-3009 from
   * `validBefore` on, Permit2 only after the deadline, Solana past the blockhash's last height.
   */
  until: number;
};

/** A payment ready for the payer's wallet: what it signs, what that exposes, and the x402 payload its signatures complete. */
export type PreparedPayment = {
  exposure: Exposure;
  /** What the wallet signs, in order (at least one). */
  toSign: WalletRequest[];
  /** The x402 payload with stand-ins where the signatures go. */
  unsignedPayload: PaymentPayload;
};

/** What the payment core knows of a prepared payment when the wallet's answer comes back. */
export type SignedPayment = {
  network: PaymentNetwork;
  /** The address that signs: the wallet, or its agent budget's session key. */
  payer: string;
  amount: bigint;
  prepared: PreparedPayment;
  /**
   * The wallet's answers, one per `prepared.toSign` in its order: a signature (EVM), a signed
   * transaction (Solana); undefined for an optional request it declined.
   */
  signed: readonly (string | undefined)[];
};

export type ApprovalVerdict =
  | { valid: true }
  /**
   * Not this payer's signature of this payment; `why`, when the rail knows more (a smart
   * account's own refusal, an extra signature missing or not the one asked), says it, and
   * `request` is the index in `toSign` of the answer it is about (the last one, the payment's, by
   * default).
   */
  | { valid: false; why?: { message: string; field: string; request?: number } };

/** What the chain says about a payment's authorization. */
export type ChainPaymentState =
  /**
   * Used: the money moved. The transaction is missing only if it could not be found. `amount`:
   * what it moved, for a usage-priced scheme (at most the amount authorized); absent, the whole
   * amount authorized moved (or, for a usage-priced one, the transaction was not found: the
   * maximum stands).
   */
  | { state: "used"; txHash: string | undefined; amount?: bigint }
  /** Cancelled by the payer before use: nothing moved and nothing can. */
  | { state: "canceled" }
  /** Not used yet; `expired` once the chain shows the exposure's window ended (the scheme's own reading of it). */
  | { state: "unused"; expired: boolean };

/** The wallet's signed grant to an agent budget's session key (docs/contract.md, section 9), as the core holds it. */
export type BudgetGrant = {
  wallet: string;
  session: string;
  /** Atomic units, as a decimal string. */
  maxAmount: string;
  /** Unix seconds. */
  validUntil: number;
  networks: string[];
  signature: string;
};

/** The chain could not be asked (no RPC configured, no answer, or no answer in time). */
export class ChainUnavailableError extends Error {
  override readonly name = "ChainUnavailableError";
}

/** A CAIP-2 network pattern a scheme is registered for: a namespace and every network in it. */
export type NetworkPattern = `${string}:*`;

/** What one CAIP-2 namespace has, whatever the x402 scheme a payment on it uses. */
export interface PaymentRail {
  /** The CAIP-2 namespace this rail pays in. */
  readonly namespace: string;
  /** An enabled network of this rail by CAIP-2 id, or undefined. */
  network(id: string): PaymentNetwork | undefined;
  /** The payer's balance of the network's asset, in atomic units. */
  balance(network: PaymentNetwork, owner: string): Promise<bigint>;
  /**
   * A point in the chain at or before now, from where a payment's trace is looked for later
   * (`from` in paymentState): read before a payment is sent, which it never is without one.
   */
  checkpoint(network: PaymentNetwork): Promise<bigint>;
  /** Whether the wallet signed this grant to its agent budget's session key. Throws ChainUnavailableError when the chain cannot be asked. */
  verifyGrant(grant: BudgetGrant, network: PaymentNetwork): Promise<boolean>;
  /** An address in this family's display form (EIP-55 on EVM), or undefined when it is not one. */
  formatAddress(address: string): string | undefined;
}

/** A pay-as-you-go channel's configuration as its scheme names it (x402 `batch-settlement`); its id is the hash of it. */
export type ChannelConfig = {
  payer: string;
  /** The key that signs the channel's vouchers: the page's channel key, never the server's. */
  payerAuthorizer: string;
  receiver: string;
  receiverAuthorizer: string;
  token: string;
  withdrawDelay: number;
  salt: string;
};

/** What a channel's chain contract holds of it now. */
export type ChannelOnChain = {
  /** What is in it, what the service claimed of it included. */
  balance: bigint;
  totalClaimed: bigint;
  /** The payer's withdrawal under way (Unix seconds it was asked at); undefined when none. */
  withdrawal: { amount: bigint; initiatedAt: number } | undefined;
  /** What is left for the payer: the balance less what was claimed. */
  left: bigint;
  /** The chain's clock (Unix seconds) at the block read: a withdrawal's delay runs by it. */
  chainTime: number;
};

/**
 * A scheme with state between payments (x402 `batch-settlement`): one deposit the wallet signs,
 * then each call paid by a cumulative voucher the page's channel key signs, and what is left
 * returned at the close. The core keeps the channel in the ledger; the scheme builds what is
 * signed and reads what the chain holds. `prepare` is not used for it: a quote opens (`open`)
 * or calls (`call`).
 */
export interface ChannelScheme {
  /** The service's channel terms: how long a withdrawal without it waits, and the deposit it suggests. */
  terms(requirement: PayableRequirement): { withdrawDelaySeconds: number; suggestedDeposit: bigint | undefined };
  /** Opening: the wallet signs the deposit (the exposure), then the channel key the first call's voucher of `firstCall`. */
  open(parameters: { requirement: PayableRequirement; x402Version: number; payer: string; channelKey: string; deposit: bigint }): Promise<PreparedPayment & { channelId: string; config: ChannelConfig }>;
  /** One call on an open channel: the voucher of `cumulative`, for the channel key alone; it exposes nothing new. */
  call(parameters: { requirement: PayableRequirement; x402Version: number; config: ChannelConfig; cumulative: bigint }): Promise<PreparedPayment>;
  /** The close by a cooperative refund: a last voucher of `charged`, for the channel key; the rest comes back. */
  refund(parameters: { requirements: PaymentRequirements; config: ChannelConfig; charged: bigint }): Promise<PreparedPayment>;
  /** What the chain's channel contract holds of it now. Throws ChainUnavailableError when it cannot be asked. */
  read(parameters: { network: PaymentNetwork; channelId: string }): Promise<ChannelOnChain>;
  /** The transactions that returned money to the payer (a refund, a withdrawal), since `fromBlock`. */
  returned(parameters: { network: PaymentNetwork; channelId: string; fromBlock: bigint }): Promise<{ amount: bigint; txHash: string; kind: "refund" | "withdrawal" }[]>;
  /** The channel a channel payment's payload is for. */
  configOf(payload: PaymentPayload): ChannelConfig;
  /** The wallet's own way back, without the service: two transactions, the second after the delay. */
  withdrawal(parameters: { network: PaymentNetwork; config: ChannelConfig; amount: bigint }): { contract: string; initiate: { functionName: string; args: unknown[] }; finalize: { functionName: string; args: unknown[] } };
}

/** One x402 scheme on one rail (`exact` on EVM, `exact` on Solana): a plugin the rail's pattern registers. */
export interface PaymentScheme {
  /** The scheme's name, as a requirement names it. */
  readonly scheme: string;
  /**
   * Usage-priced (x402 `upto`): the amount authorized is a maximum, and the service settles what
   * it used, possibly less, possibly nothing. The core reserves the maximum and counts what the
   * chain shows moved (`paymentState`'s `amount`).
   */
  readonly usagePriced?: boolean;
  /** A pay-as-you-go channel: quoted and paid through it rather than `prepare` (x402 `batch-settlement`). */
  readonly channel?: ChannelScheme;
  /**
   * Whether this scheme can pay the requirement, and if not, why (in words an agent can relay).
   * `payer`, when known (a quote's), is held to it too: a requirement may be unpayable by one
   * wallet only (on Solana, one named as the fee payer).
   */
  check(requirements: PaymentRequirements, x402Version: number | undefined, payer?: string): RequirementVerdict;
  /** Builds what the payer's wallet signs, through the x402 packages' own client for the scheme. */
  prepare(parameters: { paymentRequired: PaymentRequired; requirement: PayableRequirement; payer: string }): Promise<PreparedPayment>;
  /**
   * What the payer must do first before this scheme can pay at all, in words the person can act
   * on (a usage-priced payment's one-time Permit2 allowance); undefined when nothing, or when the
   * chain cannot be asked (the facilitator then decides). Asked before the wallet signs anything.
   */
  readiness?(parameters: { network: PaymentNetwork; payer: string; amount: bigint; prepared?: PreparedPayment }): Promise<{ message: string; remedy?: WalletFallback } | undefined>;
  /** What the payer can do once with the wallet when a payment in this scheme is refused for want of it (`upto`: approve Permit2). */
  remedyFor?(network: PaymentNetwork): WalletFallback | undefined;
  /** Whether the wallet's answer is the payer's approval of exactly this payment. Throws ChainUnavailableError when the chain must be asked and cannot be. */
  verify(payment: SignedPayment): Promise<ApprovalVerdict>;
  /** The x402 payload completed with the wallet's answers (SignedPayment's `signed`, in order). */
  complete(prepared: PreparedPayment, signed: readonly (string | undefined)[]): PaymentPayload;
  /**
   * Whether the payment's exposure was spent on chain (its instrument used), and where.
   * `claimed`: the transaction a service says settled it, which counts only when the chain shows
   * it moving exactly this instrument. `unused` and `expired` together release the payment, so
   * they are answered only when the chain has shown everything since `from` and its clock is past
   * the window as the instrument's own contract reads it. Throws when the chain cannot be asked,
   * or cannot tell (the trace could not be followed back to `from`).
   */
  paymentState(parameters: {
    network: PaymentNetwork;
    payer: string;
    /** Who the payment pays: a usage-priced scheme finds its settlement by the transfer to it. */
    payTo: string;
    /** The exposure's instrument (PreparedPayment's `exposure.instrument`). */
    instrument: string;
    /** The exposure's window end. */
    until: Date | undefined;
    from: bigint | undefined;
    claimed?: string | undefined;
  }): Promise<ChainPaymentState>;
}

/** The app's own transaction page, for networks without a public explorer (the sandbox): a `transactionUrl`. */
export function ownTransactionPage(networkId: string): string {
  return `/tx/${networkId}/{txHash}`;
}
