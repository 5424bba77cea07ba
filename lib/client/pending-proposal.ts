// The model's raises that wait for the person's Confirm (docs/contract.md, section 5), kept for the
// tab's session beside the conversation they came from (sessionStorage, as the conversation is):
// a reload brings them back with it, "New chat" clears them, closing the tab ends them. What comes
// back is read as untrusted, field by field: only the amounts a proposal may raise, each an amount
// the settings accept. Nothing here applies anything: confirming still applies only what is a
// raise over the settings of that moment (use-settings.ts).
import { readUsd, type AmountChange, type AmountField } from "./settings";

export const PENDING_PROPOSAL_KEY = "x402-agent.pending-proposal.v1";

const amountFields: readonly AmountField[] = ["daily", "weekly", "monthly", "perPayment", "confirmationThreshold"];

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The waiting raises in what was stored (already JSON-parsed); anything else is dropped, never thrown. */
export function readPendingChanges(raw: unknown): AmountChange[] {
  if (!Array.isArray(raw)) return [];
  const changes = raw.flatMap((value): AmountChange[] => {
    if (!isRecord(value)) return [];
    const field = amountFields.find((known) => known === value.field);
    const from = readUsd(value.from);
    const to = readUsd(value.to);
    return field && from !== undefined && to !== undefined ? [{ field, from, to }] : [];
  });
  // One word per field, as a proposal keeps it: the last.
  return changes.filter((change, at) => changes.findLastIndex((other) => other.field === change.field) === at);
}

export type PendingProposalStore = {
  load: () => AmountChange[];
  /** Keeps the raises still waiting; none clears what was kept. */
  save: (changes: readonly AmountChange[]) => void;
};

export function createPendingProposalStore(storage: () => Pick<Storage, "getItem" | "setItem" | "removeItem"> | undefined): PendingProposalStore {
  return {
    load() {
      try {
        const stored = storage()?.getItem(PENDING_PROPOSAL_KEY);
        return stored ? readPendingChanges(JSON.parse(stored)) : [];
      } catch {
        return [];
      }
    },
    save(changes) {
      try {
        if (changes.length === 0) storage()?.removeItem(PENDING_PROPOSAL_KEY);
        else storage()?.setItem(PENDING_PROPOSAL_KEY, JSON.stringify(changes));
      } catch {
        // Storage full or refused (a private window's quota): the raises wait in memory only.
      }
    },
  };
}

/** This tab's store over `window.sessionStorage`: touches nothing until first used in the browser. */
export const browserPendingProposalStore: PendingProposalStore = createPendingProposalStore(() =>
  typeof window === "undefined" ? undefined : window.sessionStorage,
);
