// The person's settings as the browser keeps them (docs/contract.md, sections 5 and 9): spending limits,
// preferences and the model tier, in local storage, sent with every request. Owns three things:
// reading stored settings back (a broken field takes its default, nothing throws), the rule for
// the model's proposals (lowering a limit or changing a preference applies at once; raising a
// limit, or the confirmation threshold, waits for the person), and a small store over local
// storage that is safe to import during server rendering and keeps two tabs in step.
// Amounts are compared as bigint micro-dollars and kept as decimal strings, never floats.
import * as z from "zod/mini";
import type { chatRequestSchema } from "@/lib/chat/request";
import type { ModelTier } from "@/lib/chat/models";
import { dollarsOf, formatUsd, parseUsd } from "@/lib/money";
import { onFirstUse } from "@/lib/lazy-load";

export const limitKeys = ["daily", "weekly", "monthly", "perPayment"] as const;
export type LimitKey = (typeof limitKeys)[number];
export type SpendingLimitSettings = Record<LimitKey, string>;

/** The tiers the server allows (lib/chat/models.ts); `satisfies` keeps this list within them. */
export const modelTierIds = ["vendor-2.0-flash-exp", "vendor-1.5-pro", "vendor-1.5-flash"] as const satisfies readonly ModelTier[];
export type ModelTierId = (typeof modelTierIds)[number];

export type Priority = "cost" | "speed";

export type Settings = {
  spendingLimits: SpendingLimitSettings;
  preferences: {
    /** A CAIP-2 network id such as eip155:8453; absent: no preference. */
    defaultChain?: string;
    priority: Priority;
    /** At or below this USD amount the wallet's prompt opens at once; above it the page asks first. */
    confirmationThreshold: string;
  };
  model: ModelTierId;
};

/**
 * The server's defaults for the limits (DEFAULT_LIMIT_* in lib/env.ts). The threshold is 0, so
 * every payment is confirmed in the page until the person chooses otherwise: the safer start
 * for a page that spends money.
 */
export const defaultSettings: Settings = {
  spendingLimits: { daily: "1", weekly: "5", monthly: "20", perPayment: "0.5" },
  preferences: { priority: "cost", confirmationThreshold: "0" },
  model: "vendor-2.0-flash-exp",
};

export const SETTINGS_STORAGE_KEY = "x402-agent:settings:v1";

const MAX_USD = 1_000_000n * 1_000_000n;
const networkIdPattern = /^eip155:\d{1,12}$/;

/** A USD amount as the settings hold it: 0..1,000,000 with at most 6 decimals, normalised ("0.50" -> "0.5"). */
export function readUsd(value: unknown): string | undefined {
  if (typeof value !== "string" && typeof value !== "number") return undefined;
  const micros = parseUsd(value);
  return micros !== undefined && micros <= MAX_USD ? formatUsd(micros) : undefined;
}

/** Why a typed amount is not accepted, or undefined when it is. */
export function usdError(value: string): string | undefined {
  if (value.trim() === "") return "Enter an amount in USD.";
  const micros = parseUsd(value);
  if (micros === undefined) return "Use a number such as 2 or 0.25, with at most 6 decimals.";
  if (micros > MAX_USD) return "At most 1,000,000 USD.";
  return undefined;
}

/**
 * A decimal USD string as the page writes it: a dollar sign and at least two decimals, all the
 * decimals it has beyond that ("1" -> "$1.00", "0.5" -> "$0.50", "0.004" -> "$0.004").
 * Text only, never arithmetic; something that is not an amount is shown as given.
 */
export function displayUsd(amount: string): string {
  return dollarsOf(amount);
}

// ---------------------------------------------------------------------------------------------
// Reading stored settings

// zod's small build, as everywhere on the page, built on its first use (lib/protocol/stream-payloads.ts).
/**
 * What local storage holds, read field by field: each field that is missing or broken takes its
 * default (`catch`), so a partial or corrupt value never throws and never loses the good fields.
 */
export const storedSettingsSchema = onFirstUse(() => {
  const usd = z.pipe(
    z.unknown(),
    z.transform((value, payload) => {
      const amount = readUsd(value);
      if (amount === undefined) {
        payload.issues.push({ code: "custom", message: "not a USD amount from 0 to 1000000 with at most 6 decimals", input: value });
        return z.NEVER;
      }
      return amount;
    }),
  );
  return z.catch(
    z.object({
      spendingLimits: z.catch(
        z.object({
          daily: z.catch(usd, defaultSettings.spendingLimits.daily),
          weekly: z.catch(usd, defaultSettings.spendingLimits.weekly),
          monthly: z.catch(usd, defaultSettings.spendingLimits.monthly),
          perPayment: z.catch(usd, defaultSettings.spendingLimits.perPayment),
        }),
        () => ({ ...defaultSettings.spendingLimits }),
      ),
      preferences: z.catch(
        z.object({
          defaultChain: z.catch(z.optional(z.string().check(z.regex(networkIdPattern))), undefined),
          priority: z.catch(z.enum(["cost", "speed"]), defaultSettings.preferences.priority),
          confirmationThreshold: z.catch(usd, defaultSettings.preferences.confirmationThreshold),
        }),
        () => ({ ...defaultSettings.preferences }),
      ),
      model: z.catch(z.enum(modelTierIds), defaultSettings.model),
    }),
    () => structuredClone(defaultSettings),
  );
});

/** Settings from whatever was stored (already JSON-parsed); never throws. */
export function readSettings(raw: unknown): Settings {
  const { spendingLimits, preferences, model } = storedSettingsSchema().parse(raw);
  const { defaultChain, priority, confirmationThreshold } = preferences;
  return {
    spendingLimits: { ...spendingLimits },
    preferences: { ...(defaultChain ? { defaultChain } : {}), priority, confirmationThreshold },
    model,
  };
}

/** Settings from the stored text (`null` when nothing is stored); text that is not JSON gives the defaults. */
export function parseStoredSettings(text: string | null): Settings {
  if (text === null) return readSettings(undefined);
  try {
    return readSettings(JSON.parse(text));
  } catch {
    return readSettings(undefined);
  }
}

// ---------------------------------------------------------------------------------------------
// The form's checks

/**
 * Limits that do not nest (a day allowed more than a week) are worth a warning, not a refusal:
 * the server enforces every limit on its own, so the tightest one simply decides.
 */
export function limitWarnings(limits: SpendingLimitSettings): string[] {
  const micros = (key: LimitKey) => parseUsd(limits[key]) ?? 0n;
  const warnings: string[] = [];
  if (micros("daily") > micros("weekly")) warnings.push("The daily limit is above the weekly one, so the weekly limit decides.");
  if (micros("weekly") > micros("monthly")) warnings.push("The weekly limit is above the monthly one, so the monthly limit decides.");
  if (micros("perPayment") > micros("daily")) warnings.push("The per-payment limit is above the daily one, so the daily limit decides.");
  return warnings;
}

// ---------------------------------------------------------------------------------------------
// The chat request

type ChatRequestInput = z.input<typeof chatRequestSchema>;
export type RequestExtras = Required<Pick<ChatRequestInput, "spendingLimits" | "preferences" | "model">>;

/** The part of a chat request body that settings make: limits and threshold as decimal strings. */
export function toRequestExtras(settings: Settings): RequestExtras {
  const { defaultChain, priority, confirmationThreshold } = settings.preferences;
  return {
    spendingLimits: { ...settings.spendingLimits },
    preferences: { ...(defaultChain ? { defaultChain } : {}), priority, confirmationThreshold },
    model: settings.model,
  };
}

// ---------------------------------------------------------------------------------------------
// The model's proposals

/** What a `d:` line may carry (see updatePreferences in lib/chat/tools/account-tools.ts); read as untrusted. */
export type Proposal = { spendingLimits?: unknown; preferences?: unknown };

export type AmountField = LimitKey | "confirmationThreshold";
/** A limit or the threshold moving from one amount to another (decimal USD strings). */
export type AmountChange = { field: AmountField; from: string; to: string };
/** A preference that is not an amount; `from` is absent when there was no default chain. */
export type PreferenceChange = { field: "priority"; from: Priority; to: Priority } | { field: "defaultChain"; from?: string; to: string };
export type Change = AmountChange | PreferenceChange;

export type ClassifiedProposal = {
  /** The settings with the proposal's safe part applied: lowered amounts and the other preferences. */
  apply: Settings;
  /** What `apply` changed, for the page to say so. */
  applied: Change[];
  /** Raised limits or threshold: they need the person's confirmation and are not in `apply`. */
  confirm: AmountChange[];
  /** Valid fields whose proposed value is what the settings already hold. */
  unchanged: Change["field"][];
  /** Fields that were unknown or not valid: never applied. */
  ignored: string[];
};

/**
 * Sorts a proposal against the current settings. A raised threshold counts as a raise: it lets
 * more payments skip the page's own confirmation. Amounts are compared in micro-dollars, so
 * "0.50" and 0.5 are the same and equal values change nothing.
 */
export function classifyProposal(current: Settings, proposal: Proposal): ClassifiedProposal {
  const next = copySettings(current);
  const applied: Change[] = [];
  const confirm: AmountChange[] = [];
  const unchanged: Change["field"][] = [];
  const ignored: string[] = [];

  const weigh = (field: AmountField, from: string, proposed: unknown) => {
    const to = readUsd(proposed);
    if (to === undefined) return void ignored.push(field);
    const delta = (parseUsd(to) ?? 0n) - (parseUsd(from) ?? 0n);
    if (delta === 0n) unchanged.push(field);
    else if (delta > 0n) confirm.push({ field, from, to });
    else {
      setAmount(next, field, to);
      applied.push({ field, from, to });
    }
  };

  if (proposal.spendingLimits !== undefined) {
    if (!isRecord(proposal.spendingLimits)) ignored.push("spendingLimits");
    else
      for (const [key, value] of Object.entries(proposal.spendingLimits)) {
        if (isLimitKey(key)) weigh(key, current.spendingLimits[key], value);
        else ignored.push(key);
      }
  }

  if (proposal.preferences !== undefined) {
    if (!isRecord(proposal.preferences)) ignored.push("preferences");
    else
      for (const [key, value] of Object.entries(proposal.preferences)) {
        if (key === "confirmationThreshold") {
          weigh("confirmationThreshold", current.preferences.confirmationThreshold, value);
        } else if (key === "priority" && (value === "cost" || value === "speed")) {
          const from = current.preferences.priority;
          if (value === from) unchanged.push("priority");
          else {
            next.preferences.priority = value;
            applied.push({ field: "priority", from, to: value });
          }
        } else if (key === "defaultChain" && typeof value === "string" && networkIdPattern.test(value)) {
          const from = current.preferences.defaultChain;
          if (value === from) unchanged.push("defaultChain");
          else {
            next.preferences.defaultChain = value;
            applied.push({ field: "defaultChain", ...(from ? { from } : {}), to: value });
          }
        } else {
          ignored.push(key);
        }
      }
  }

  return { apply: next, applied, confirm, unchanged, ignored };
}

/** Applies amount changes the person confirmed. */
export function applyChanges(current: Settings, changes: readonly AmountChange[]): Settings {
  const next = copySettings(current);
  for (const change of changes) setAmount(next, change.field, change.to);
  return next;
}

/** The amount a field holds now. */
export function amountOf(settings: Settings, field: AmountField): string {
  return field === "confirmationThreshold" ? settings.preferences.confirmationThreshold : settings.spendingLimits[field];
}

/** Whether `change` would still raise the field above what `settings` hold (a raise can go stale). */
export function isRaise(settings: Settings, change: AmountChange): boolean {
  return (parseUsd(change.to) ?? 0n) > (parseUsd(amountOf(settings, change.field)) ?? 0n);
}

function setAmount(settings: Settings, field: AmountField, to: string): void {
  if (field === "confirmationThreshold") settings.preferences.confirmationThreshold = to;
  else settings.spendingLimits[field] = to;
}

function copySettings(settings: Settings): Settings {
  return { spendingLimits: { ...settings.spendingLimits }, preferences: { ...settings.preferences }, model: settings.model };
}

function isLimitKey(key: string): key is LimitKey {
  return (limitKeys as readonly string[]).includes(key);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------
// The store over local storage

export type SettingsStorage = Pick<Storage, "getItem" | "setItem">;
type StorageEvents = Pick<EventTarget, "addEventListener" | "removeEventListener">;

export type SettingsStore = {
  /** The current settings; the same object until they change (what useSyncExternalStore needs). */
  get: () => Settings;
  /** Stores settings (normalised first) and tells every subscriber in this tab. */
  set: (settings: Settings) => void;
  /** Called on every change, from this tab or (through the storage event) another one. */
  subscribe: (listener: () => void) => () => void;
};

export type CreateSettingsStoreParameters = {
  /** Local storage, or undefined where there is none (server rendering). Read lazily, never at import. */
  storage: () => SettingsStorage | undefined;
  /** Where `storage` events arrive (the window); undefined where there is none. */
  events?: () => StorageEvents | undefined;
};

export function createSettingsStore({ storage, events }: CreateSettingsStoreParameters): SettingsStore {
  const listeners = new Set<() => void>();
  // The parsed value of the last text read, so an unchanged text gives the same object.
  let cachedText: string | null | undefined;
  let cached: Settings = defaultSettings;
  // A write that storage refused (full, disabled): it holds for this tab until storage works.
  let unsaved: string | undefined;

  const readText = (): string | null => {
    if (unsaved !== undefined) return unsaved;
    try {
      return storage()?.getItem(SETTINGS_STORAGE_KEY) ?? null;
    } catch {
      return null;
    }
  };
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };

  return {
    get() {
      const text = readText();
      if (text !== cachedText) {
        cachedText = text;
        // Nothing stored: the defaults themselves, the same object the server rendered with, so
        // the first render after hydration is not redone for an equal copy.
        cached = text === null ? defaultSettings : parseStoredSettings(text);
      }
      return cached;
    },
    set(settings) {
      const text = JSON.stringify(readSettings(settings));
      try {
        const target = storage();
        if (!target) throw new Error("no storage");
        target.setItem(SETTINGS_STORAGE_KEY, text);
        unsaved = undefined;
      } catch {
        unsaved = text;
      }
      notify();
    },
    subscribe(listener) {
      listeners.add(listener);
      const target = events?.();
      const onStorage = (event: Event) => {
        // key null: another tab cleared the whole storage.
        const key = (event as Partial<StorageEvent>).key;
        if (key !== SETTINGS_STORAGE_KEY && key !== null) return;
        unsaved = undefined;
        listener();
      };
      target?.addEventListener("storage", onStorage);
      return () => {
        listeners.delete(listener);
        target?.removeEventListener("storage", onStorage);
      };
    },
  };
}

const hasWindow = () => typeof window !== "undefined";

/** This tab's store over `window.localStorage`: touches nothing until first used in the browser. */
export const browserSettingsStore: SettingsStore = createSettingsStore({
  storage: () => (hasWindow() ? window.localStorage : undefined),
  events: () => (hasWindow() ? window : undefined),
});
