"use client";
// The person's settings for the page: one store over local storage shared by every component and
// tab, and the model's proposals sorted into what was applied and what waits for a Confirm.
// Waiting raises are kept with the conversation they came from, for the tab's session
// (lib/client/pending-proposal.ts): a reload brings them back and Confirm still applies them; they
// never reach the settings' own storage, so nothing is raised without that click, in any tab.
//
//   const settings = useSettings();
//   settings.settings            // Settings (defaults during server rendering and hydration)
//   settings.update({ model })   // a change the person made; shallow merge over the top-level keys
//   settings.propose(proposal)   // from a `d:` line: lowers apply at once, raises wait in `pending`
//   settings.pending             // AmountChange[]: raises still above the current values
//   settings.applied             // Change[]: what the latest proposal applied, for the banner
//   settings.confirmPending() / dismissPending() / dismissApplied()
import { startTransition, useCallback, useEffect, useMemo, useState, useSyncExternalStore } from "react";
import { browserPendingProposalStore, type PendingProposalStore } from "@/lib/client/pending-proposal";
import {
  amountOf,
  applyChanges,
  browserSettingsStore,
  classifyProposal,
  defaultSettings,
  isRaise,
  type AmountChange,
  type Change,
  type Proposal,
  type Settings,
  type SettingsStore,
} from "@/lib/client/settings";

export type SettingsState = {
  settings: Settings;
  /** Stores a change the person made: each given top-level key replaces the stored one. */
  update: (change: Partial<Settings>) => void;
  /** Raises proposed by the model that wait for the person; `from` is the value held now. */
  pending: AmountChange[];
  /** What the latest proposal applied at once (lowered amounts, priority, default chain). */
  applied: Change[];
  /** Sorts a proposal from a `d:` line: applies the safe part, queues the raises. */
  propose: (proposal: Proposal) => void;
  /** Applies the waiting raises (those still above the current values). */
  confirmPending: () => void;
  dismissPending: () => void;
  dismissApplied: () => void;
};

const serverSnapshot = () => defaultSettings;

export function useSettings(store: SettingsStore = browserSettingsStore, kept: PendingProposalStore = browserPendingProposalStore): SettingsState {
  const settings = useSyncExternalStore(store.subscribe, store.get, serverSnapshot);
  // undefined until the tab's kept raises are read, after hydration (the server knows none).
  const [queued, setQueued] = useState<AmountChange[] | undefined>(undefined);
  const [applied, setApplied] = useState<Change[]>([]);

  // A transition: read as the page mounts, and the chat's render for it yields between its parts.
  useEffect(() => {
    const restored = kept.load();
    startTransition(() => setQueued((current) => current ?? restored));
  }, [kept]);
  // Written on every change once read, so what was read is never overwritten by the empty start.
  useEffect(() => {
    if (queued !== undefined) kept.save(queued);
  }, [kept, queued]);

  // A raise goes stale when the person (or a lowering) moves the field past it meanwhile.
  const pending = useMemo(
    () =>
      (queued ?? []).filter((change) => isRaise(settings, change)).map((change) => ({ ...change, from: amountOf(settings, change.field) })),
    [queued, settings],
  );

  const update = useCallback((change: Partial<Settings>) => store.set({ ...store.get(), ...change }), [store]);

  const propose = useCallback(
    (proposal: Proposal) => {
      const result = classifyProposal(store.get(), proposal);
      if (result.applied.length > 0) {
        store.set(result.apply);
        setApplied(result.applied);
      }
      // The newest word on a field wins: an older raise of a field this proposal names is dropped.
      const named = new Set<Change["field"]>([...result.applied, ...result.confirm].map((change) => change.field).concat(result.unchanged));
      setQueued((current = []) => [...current.filter((change) => !named.has(change.field)), ...result.confirm]);
    },
    [store],
  );

  const confirmPending = useCallback(() => {
    const current = store.get();
    const raises = (queued ?? []).filter((change) => isRaise(current, change));
    if (raises.length > 0) store.set(applyChanges(current, raises));
    setQueued([]);
  }, [store, queued]);
  const dismissPending = useCallback(() => setQueued([]), []);
  const dismissApplied = useCallback(() => setApplied([]), []);

  return { settings, update, pending, applied, propose, confirmPending, dismissPending, dismissApplied };
}
