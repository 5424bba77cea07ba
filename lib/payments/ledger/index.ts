// The spending ledger: every approved payment is reserved against the wallet's rolling limits
// before the service is paid, then marked settled (with its transaction) or failed (which
// releases it). A payment whose service neither delivered nor collected it is `pending`: still
// counted, until the chain shows its authorization used (settled) or expired unused (failed).
// Reservation is atomic per wallet, so concurrent approvals can never pass a limit together,
// and a payment id or nonce is recorded once, so nothing is paid twice.
//
// Amounts are atomic USDC units (6 decimals), which are also micro-dollars: USDC is counted 1:1
// with USD for limits.
//
// One folder, a file per job: the record and its row (./records.ts), the JSON columns' forms
// (./forms.ts), the limits' sums (./totals.ts), the state writes (./marks.ts), the sweep's
// bookkeeping (./sweeps.ts) and the reads (./reads.ts). This is what the rest of the core imports.
export { recordedUpdate, type RecordedUpdate, type StoredReceipt } from "./forms";
export { markChecked, markFailed, markPending, markSettled, reservePayment, type NewPayment, type ReserveResult } from "./marks";
export {
  findPayment,
  findPaymentByNonce,
  heldPayments,
  isKnownTxHash,
  knownTxHashes,
  paymentHistory,
  paymentsById,
  recentPayments,
  settledPayments,
  type HistoryCursor,
  type HistoryFilter,
} from "./reads";
export type { ListedPayment, PaymentRecord, PaymentRecordStatus, Wallets } from "./records";
export { claimSweep, lastSweepAt, STALE_RESERVATION_MS, unfinishedPayments } from "./sweeps";
export {
  countedByPeriod,
  countedSince,
  findBudgetBreach,
  findDrawBreach,
  findLimitBreach,
  heldByPeriod,
  inDepositsByPeriod,
  withHeld,
  periods,
  periodStarts,
  settledByPeriod,
  spentByPayer,
  type BudgetCap,
  type LimitBreach,
  type Period,
  type PeriodCount,
} from "./totals";
