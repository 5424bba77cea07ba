// Where a Solana payment landed, if it did: its transaction id is the facilitator's signature,
// made only as the facilitator sends it, so when the service does not name it the payer's USDC
// account's history is searched for a transaction with exactly the quoted message. The search
// pages back through that history (newest first) down to the slot recorded when the payment was
// sent, which the payment cannot have landed before; only a search that got there can say the
// payment is not on chain. A busy account has many transactions since then: they are all looked
// at, however many there are, up to a bound past which the answer stays unknown.
import type { Address } from "@solana/kit";
import { getSolanaFirstAvailableSlot, getSolanaSignaturesFor, SIGNATURES_PAGE_MAX, type SolanaNetworkConfig } from "@/lib/chain/solana";

/**
 * Pages of history searched at most: 10,000 transactions of the payer's USDC account since the
 * payment was sent. Past that the search stops, and the payment stays counted as not known.
 */
export const MAX_HISTORY_PAGES = 10;
/** Transactions read at once while looking for the payment among the candidates. */
const READS_AT_ONCE = 8;
/**
 * How long one search reads at most: about as long as its caller waits for an answer (lib/payments/
 * reconcile.ts), so that a search nobody hears any more stops rather than reading on.
 */
const SEARCH_MS = 10_000;

/**
 * `found`: the payment's transaction. Otherwise `complete` says whether every transaction the
 * account took part in since `from` was looked at and none is the payment.
 */
export type HistorySearch = { found: string } | { found: undefined; complete: boolean };

export async function searchPaymentHistory({
  network,
  account,
  from,
  isPayment,
}: {
  network: SolanaNetworkConfig;
  account: Address;
  /** The slot recorded when the payment was sent; without it the search can never be complete. */
  from: bigint | undefined;
  /** Whether a transaction is the payment; `undefined` when it could not be read. */
  isPayment: (signature: string) => Promise<boolean | undefined>;
}): Promise<HistorySearch> {
  const deadline = Date.now() + SEARCH_MS;
  const late = () => Date.now() > deadline;
  // Newest first. A transaction that failed moved nothing and used up its message: not a candidate.
  const candidates: string[] = [];
  let reached = false;
  let before: string | undefined;
  // Without the slot of sending there is nothing to reach: the newest page is looked at, for a
  // payment that can be found, and the search stays incomplete.
  const pages = from === undefined ? 1 : MAX_HISTORY_PAGES;
  for (let page = 0; page < pages && !reached && !late(); page++) {
    const entries = await getSolanaSignaturesFor({ network, account, limit: SIGNATURES_PAGE_MAX, before, minContextSlot: from });
    for (const entry of entries) {
      if (from !== undefined && entry.slot < from) {
        reached = true;
        break;
      }
      if (!entry.failed) candidates.push(entry.signature);
    }
    before = entries.at(-1)?.signature;
    // A short page is the end of the account's history as the node holds it: all of it since
    // `from` only when the node still holds `from` itself (one that purged older history, or
    // never had it, would end short with the payment among what it lacks).
    if (!reached && entries.length < SIGNATURES_PAGE_MAX) {
      reached = from !== undefined && (await getSolanaFirstAvailableSlot({ network })) <= from;
      break;
    }
  }
  // Oldest first: the payment most likely landed just after it was sent.
  let unread = false;
  for (let end = candidates.length; end > 0; end -= READS_AT_ONCE) {
    if (late()) return { found: undefined, complete: false };
    const batch = candidates.slice(Math.max(0, end - READS_AT_ONCE), end).reverse();
    const verdicts = await Promise.all(batch.map(isPayment));
    const index = verdicts.indexOf(true);
    if (index >= 0) return { found: batch[index] as string };
    unread ||= verdicts.includes(undefined);
  }
  // A transaction the history lists and the node cannot show might be the payment.
  return { found: undefined, complete: reached && from !== undefined && !unread };
}
