"use client";
// The person's settings in local storage, shared by every component and tab (a storage event
// keeps two tabs in step), with the model's proposals sorted into applied and waiting.
import { useCallback, useState, useSyncExternalStore } from "react";
import {
  applyChanges,
  classifyProposal,
  defaultSettings,
  readSettings,
  SETTINGS_STORAGE_KEY,
  type Change,
  type Proposal,
  type Settings,
} from "@/lib/client/settings";

const listeners = new Set<() => void>();
let cachedRaw: string | null | undefined;
let cachedSettings: Settings = defaultSettings;

function snapshot(): Settings {
  let raw: string | null = null;
  try {
    raw = window.localStorage.getItem(SETTINGS_STORAGE_KEY);
  } catch {
    raw = null;
  }
  if (raw !== cachedRaw) {
    cachedRaw = raw;
    let parsed: unknown;
    try {
      parsed = raw ? JSON.parse(raw) : undefined;
    } catch {
      parsed = undefined;
    }
    cachedSettings = readSettings(parsed);
  }
  return cachedSettings;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key === SETTINGS_STORAGE_KEY) listener();
  };
  window.addEventListener("storage", onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", onStorage);
  };
}

function save(settings: Settings): void {
  try {
    window.localStorage.setItem(SETTINGS_STORAGE_KEY, JSON.stringify(settings));
  } catch {
    // Storage full or disabled: the settings hold for this page only.
    cachedRaw = JSON.stringify(settings);
    cachedSettings = settings;
  }
  for (const listener of listeners) listener();
}

export type SettingsState = {
  settings: Settings;
  /** Stores a change the person made. */
  update: (change: Partial<Settings>) => void;
  /** Raises proposed by the model, waiting for the person. */
  pending: Change[];
  /** Lowerings (and threshold cuts) that were applied from the latest proposal. */
  applied: Change[];
  propose: (proposal: Proposal) => void;
  confirmPending: () => void;
  dismissPending: () => void;
  dismissApplied: () => void;
};

export function useSettings(): SettingsState {
  const settings = useSyncExternalStore(subscribe, snapshot, () => defaultSettings);
  const [pending, setPending] = useState<Change[]>([]);
  const [applied, setApplied] = useState<Change[]>([]);

  const update = useCallback((change: Partial<Settings>) => save({ ...snapshot(), ...change }), []);
  const propose = useCallback((proposal: Proposal) => {
    const result = classifyProposal(snapshot(), proposal);
    save(result.apply);
    setApplied(result.applied);
    // A newer proposal for the same field replaces the older one.
    setPending((current) => [...current.filter((change) => !result.confirm.some((next) => next.field === change.field)), ...result.confirm]);
  }, []);
  const confirmPending = useCallback(() => {
    setPending((current) => {
      if (current.length > 0) save(applyChanges(snapshot(), current));
      return [];
    });
  }, []);
  const dismissPending = useCallback(() => setPending([]), []);
  const dismissApplied = useCallback(() => setApplied([]), []);

  return { settings, update, pending, applied, propose, confirmPending, dismissPending, dismissApplied };
}
