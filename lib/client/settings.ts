// The person's settings as the browser keeps them (SPEC section 5): spending limits, preferences
// and the model tier, in local storage, sent with every request. Also the rule for the model's
// proposals: lowering a limit or changing a preference applies at once; raising a limit, or the
// confirmation threshold (fewer confirmations), waits for the person. Amounts are compared as
// bigint micro-dollars and kept as decimal strings, never floats.
import { z } from "zod";
import { formatUsd, parseUsd } from "@/lib/payments/money";

export const limitKeys = ["daily", "weekly", "monthly", "perPayment"] as const;
export type LimitKey = (typeof limitKeys)[number];
export type SpendingLimitSettings = Record<LimitKey, string>;

export const modelTierIds = ["vendor-2.0-flash-exp", "vendor-1.5-flash", "vendor-1.5-pro"] as const;
export type ModelTierId = (typeof modelTierIds)[number];

export type Settings = {
  spendingLimits: SpendingLimitSettings;
  preferences: { defaultChain?: string; priority: "cost" | "speed"; confirmationThreshold: string };
  model: ModelTierId;
};

/** The server's defaults (DEFAULT_LIMIT_*); a threshold of 0 means every payment is confirmed in the page. */
export const defaultSettings: Settings = {
  spendingLimits: { daily: "1", weekly: "5", monthly: "20", perPayment: "0.5" },
  preferences: { priority: "cost", confirmationThreshold: "0" },
  model: "vendor-2.0-flash-exp",
};

const MAX_USD = 1_000_000n * 1_000_000n;

/** A USD amount as the settings hold it: 0..1,000,000 with at most 6 decimals, normalised. */
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

const networkIdPattern = /^eip155:\d{1,12}$/;
const usd = z.custom<string | number>((value) => readUsd(value) !== undefined).transform((value) => readUsd(value) ?? "0");

/** Reads stored settings field by field: whatever is missing or broken takes its default. */
export function readSettings(raw: unknown): Settings {
  const source = isRecord(raw) ? raw : {};
  const limits = isRecord(source.spendingLimits) ? source.spendingLimits : {};
  const preferences = isRecord(source.preferences) ? source.preferences : {};
  const pick = <T,>(schema: z.ZodType<T, unknown>, value: unknown, fallback: T): T => {
    const parsed = schema.safeParse(value);
    return parsed.success ? parsed.data : fallback;
  };
  const spendingLimits = Object.fromEntries(
    limitKeys.map((key) => [key, pick(usd, limits[key], defaultSettings.spendingLimits[key])]),
  ) as SpendingLimitSettings;
  const defaultChain = pick(z.string().regex(networkIdPattern).optional(), preferences.defaultChain, undefined);
  return {
    spendingLimits,
    preferences: {
      ...(defaultChain ? { defaultChain } : {}),
      priority: pick(z.enum(["cost", "speed"]), preferences.priority, defaultSettings.preferences.priority),
      confirmationThreshold: pick(usd, preferences.confirmationThreshold, defaultSettings.preferences.confirmationThreshold),
    },
    model: pick(z.enum(modelTierIds), source.model, defaultSettings.model),
  };
}

/** Limits that do not nest (a day allowed more than a week): worth a warning, not a refusal. */
export function limitWarnings(limits: SpendingLimitSettings): string[] {
  const micros = (key: LimitKey) => parseUsd(limits[key]) ?? 0n;
  const warnings: string[] = [];
  if (micros("daily") > micros("weekly")) warnings.push("The daily limit is above the weekly one, so the weekly limit decides.");
  if (micros("weekly") > micros("monthly")) warnings.push("The weekly limit is above the monthly one, so the monthly limit decides.");
  if (micros("perPayment") > micros("daily")) warnings.push("The per-payment limit is above the daily one, so the daily limit decides.");
  return warnings;
}

/** The part of a chat request that settings make (limits as decimal strings). */
export function toRequestExtras(settings: Settings) {
  return {
    spendingLimits: { ...settings.spendingLimits },
    preferences: {
      ...(settings.preferences.defaultChain ? { defaultChain: settings.preferences.defaultChain } : {}),
      priority: settings.preferences.priority,
      confirmationThreshold: settings.preferences.confirmationThreshold,
    },
    model: settings.model,
  };
}

export type Proposal = { spendingLimits?: Record<string, unknown>; preferences?: Record<string, unknown> };

export type Change = { field: LimitKey | "confirmationThreshold"; from: string; to: string };

export type ClassifiedProposal = {
  /** Applied at once: lowered limits and threshold, and the other preferences. */
  apply: Settings;
  applied: Change[];
  /** Raised limits or threshold: need the person's confirmation in the page. */
  confirm: Change[];
  /** Fields that were not valid, never applied. */
  ignored: string[];
};

export function classifyProposal(current: Settings, proposal: Proposal): ClassifiedProposal {
  const next: Settings = {
    spendingLimits: { ...current.spendingLimits },
    preferences: { ...current.preferences },
    model: current.model,
  };
  const applied: Change[] = [];
  const confirm: Change[] = [];
  const ignored: string[] = [];
  const weigh = (field: Change["field"], from: string, proposed: unknown, set: (value: string) => void) => {
    const to = readUsd(proposed);
    if (to === undefined) return ignored.push(field);
    const delta = (parseUsd(to) ?? 0n) - (parseUsd(from) ?? 0n);
    if (delta === 0n) return;
    if (delta < 0n) {
      set(to);
      applied.push({ field, from, to });
    } else {
      confirm.push({ field, from, to });
    }
  };
  for (const [key, value] of Object.entries(proposal.spendingLimits ?? {})) {
    if (!(limitKeys as readonly string[]).includes(key)) {
      ignored.push(key);
      continue;
    }
    const limit = key as LimitKey;
    weigh(limit, current.spendingLimits[limit], value, (to) => (next.spendingLimits[limit] = to));
  }
  const preferences = proposal.preferences ?? {};
  for (const [key, value] of Object.entries(preferences)) {
    if (key === "confirmationThreshold") {
      weigh("confirmationThreshold", current.preferences.confirmationThreshold, value, (to) => (next.preferences.confirmationThreshold = to));
    } else if (key === "priority" && (value === "cost" || value === "speed")) {
      next.preferences.priority = value;
    } else if (key === "defaultChain" && typeof value === "string" && networkIdPattern.test(value)) {
      next.preferences.defaultChain = value;
    } else {
      ignored.push(key);
    }
  }
  return { apply: next, applied, confirm, ignored };
}

/** Applies confirmed raises. */
export function applyChanges(current: Settings, changes: readonly Change[]): Settings {
  const next: Settings = { spendingLimits: { ...current.spendingLimits }, preferences: { ...current.preferences }, model: current.model };
  for (const change of changes) {
    if (change.field === "confirmationThreshold") next.preferences.confirmationThreshold = change.to;
    else next.spendingLimits[change.field] = change.to;
  }
  return next;
}

export const SETTINGS_STORAGE_KEY = "x402-agent:settings:v1";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
