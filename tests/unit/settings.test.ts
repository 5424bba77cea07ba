// The browser's settings: what is read back from storage, what a request carries, how the model's
// proposals are sorted (lowering applies at once, raising waits for the person), and the store
// that keeps a tab and its neighbours in step.
import { describe, expect, it, vi } from "vitest";
import { chatRequestSchema } from "@/lib/chat/request";
import {
  applyChanges,
  classifyProposal,
  createSettingsStore,
  defaultSettings,
  displayUsd,
  isRaise,
  limitWarnings,
  parseStoredSettings,
  readSettings,
  SETTINGS_STORAGE_KEY,
  toRequestExtras,
  usdError,
  type Settings,
  type SettingsStorage,
} from "@/lib/client/settings";

const withLimits = (limits: Partial<Settings["spendingLimits"]>): Settings => ({
  ...defaultSettings,
  spendingLimits: { ...defaultSettings.spendingLimits, ...limits },
});

describe("stored settings", () => {
  it("start from the server's default limits, cost first, and every payment confirmed in the page", () => {
    expect(defaultSettings).toEqual({
      spendingLimits: { daily: "1", weekly: "5", monthly: "20", perPayment: "0.5" },
      preferences: { priority: "cost", confirmationThreshold: "0" },
      model: "vendor-2.0-flash-exp",
    });
  });

  it("fall back to the defaults for nothing, text that is not JSON, or a wrong shape", () => {
    expect(parseStoredSettings(null)).toEqual(defaultSettings);
    expect(parseStoredSettings("{not json")).toEqual(defaultSettings);
    expect(parseStoredSettings('"oops"')).toEqual(defaultSettings);
    expect(parseStoredSettings("[1,2]")).toEqual(defaultSettings);
    expect(parseStoredSettings("null")).toEqual(defaultSettings);
    expect(readSettings({ spendingLimits: "lots", preferences: 7 })).toEqual(defaultSettings);
  });

  it("keep the valid fields and replace each broken or missing one by its default", () => {
    const settings = readSettings({
      spendingLimits: { daily: "2.5", weekly: -1, monthly: "1e3", perPayment: 0.25 },
      preferences: { priority: "speed", confirmationThreshold: "0.0000001", defaultChain: "base" },
      model: "gpt-4",
    });
    expect(settings).toEqual({
      spendingLimits: { daily: "2.5", weekly: "5", monthly: "20", perPayment: "0.25" },
      preferences: { priority: "speed", confirmationThreshold: "0" },
      model: "vendor-2.0-flash-exp",
    });
  });

  it("read a partial value: what is there is kept, the rest is the default", () => {
    expect(parseStoredSettings(JSON.stringify({ spendingLimits: { daily: "0.50" }, preferences: { defaultChain: "eip155:84532" } }))).toEqual({
      spendingLimits: { daily: "0.5", weekly: "5", monthly: "20", perPayment: "0.5" },
      preferences: { defaultChain: "eip155:84532", priority: "cost", confirmationThreshold: "0" },
      model: "vendor-2.0-flash-exp",
    });
  });

  it("refuse amounts above 1,000,000 USD or with more than 6 decimals", () => {
    expect(usdError("1000000")).toBeUndefined();
    expect(usdError(" 0.000001 ")).toBeUndefined();
    expect(usdError("1000000.000001")).toBe("At most 1,000,000 USD.");
    expect(usdError("0.1234567")).toMatch(/at most 6 decimals/);
    expect(usdError("")).toBe("Enter an amount in USD.");
    expect(usdError("-1")).toMatch(/number such as/);
    expect(usdError("1,5")).toMatch(/number such as/);
    expect(readSettings({ spendingLimits: { daily: "1000000.5" } }).spendingLimits.daily).toBe("1");
  });

  it("warn when limits do not nest, without refusing them", () => {
    expect(limitWarnings({ daily: "10", weekly: "5", monthly: "20", perPayment: "0.5" })).toEqual([
      "The daily limit is above the weekly one, so the weekly limit decides.",
    ]);
    expect(limitWarnings({ daily: "1", weekly: "30", monthly: "20", perPayment: "2" })).toEqual([
      "The weekly limit is above the monthly one, so the monthly limit decides.",
      "The per-payment limit is above the daily one, so the daily limit decides.",
    ]);
    expect(limitWarnings(defaultSettings.spendingLimits)).toEqual([]);
  });

  it("make the part of a chat request that the server accepts, amounts as it will count them", () => {
    const extras = toRequestExtras({
      spendingLimits: { daily: "0.000001", weekly: "5", monthly: "1000000", perPayment: "0.25" },
      preferences: { defaultChain: "eip155:84532", priority: "speed", confirmationThreshold: "0.01" },
      model: "vendor-1.5-pro",
    });
    expect(extras).toEqual({
      spendingLimits: { daily: "0.000001", weekly: "5", monthly: "1000000", perPayment: "0.25" },
      preferences: { defaultChain: "eip155:84532", priority: "speed", confirmationThreshold: "0.01" },
      model: "vendor-1.5-pro",
    });
    const parsed = chatRequestSchema.parse({ messages: [{ role: "user", content: "hi" }], ...extras });
    expect(parsed.spendingLimits).toEqual({ daily: 1n, weekly: 5_000_000n, monthly: 1_000_000_000_000n, perPayment: 250_000n });
    expect(parsed.preferences).toEqual({ defaultChain: "eip155:84532", priority: "speed", confirmationThreshold: 10_000n });
    expect(chatRequestSchema.safeParse({ messages: [{ role: "user", content: "hi" }], ...toRequestExtras(defaultSettings) }).success).toBe(true);
  });

  it("write amounts for the page with at least two decimals, never rounding", () => {
    expect(displayUsd("1")).toBe("$1.00");
    expect(displayUsd("0.5")).toBe("$0.50");
    expect(displayUsd("0.004")).toBe("$0.004");
    expect(displayUsd("0.000001")).toBe("$0.000001");
    expect(displayUsd("n/a")).toBe("n/a");
  });
});

describe("the model's proposals", () => {
  it("apply a lowered limit at once", () => {
    const result = classifyProposal(defaultSettings, { spendingLimits: { daily: "0.5" } });
    expect(result.apply.spendingLimits.daily).toBe("0.5");
    expect(result.applied).toEqual([{ field: "daily", from: "1", to: "0.5" }]);
    expect(result.confirm).toEqual([]);
  });

  it("hold a raised limit for the person's confirmation and change nothing yet", () => {
    const result = classifyProposal(defaultSettings, { spendingLimits: { daily: "3" } });
    expect(result.apply).toEqual(defaultSettings);
    expect(result.applied).toEqual([]);
    expect(result.confirm).toEqual([{ field: "daily", from: "1", to: "3" }]);
    expect(applyChanges(result.apply, result.confirm).spendingLimits.daily).toBe("3");
  });

  it("treat an equal amount, however written, as no change", () => {
    const result = classifyProposal(defaultSettings, { spendingLimits: { weekly: "5.000", perPayment: 0.5 }, preferences: { priority: "cost" } });
    expect(result.apply).toEqual(defaultSettings);
    expect(result.applied).toEqual([]);
    expect(result.confirm).toEqual([]);
    expect(result.unchanged).toEqual(["weekly", "perPayment", "priority"]);
  });

  it("sort a mixed proposal: lowers and preferences applied, raises held", () => {
    const current = withLimits({ daily: "2" });
    const result = classifyProposal(current, {
      spendingLimits: { daily: 1.5, monthly: "50" },
      preferences: { confirmationThreshold: "0.05", priority: "speed", defaultChain: "eip155:8453" },
    });
    expect(result.apply).toEqual({
      spendingLimits: { daily: "1.5", weekly: "5", monthly: "20", perPayment: "0.5" },
      preferences: { priority: "speed", defaultChain: "eip155:8453", confirmationThreshold: "0" },
      model: "vendor-2.0-flash-exp",
    });
    expect(result.applied).toEqual([
      { field: "daily", from: "2", to: "1.5" },
      { field: "priority", from: "cost", to: "speed" },
      { field: "defaultChain", to: "eip155:8453" },
    ]);
    // A higher threshold lets more payments skip the page's confirmation: it is a raise.
    expect(result.confirm).toEqual([
      { field: "monthly", from: "20", to: "50" },
      { field: "confirmationThreshold", from: "0", to: "0.05" },
    ]);
  });

  it("ignore what is unknown or not valid, and never apply it", () => {
    const result = classifyProposal(defaultSettings, {
      spendingLimits: { daily: "lots", weekly: -2, monthly: "0.0000001", perPayment: "2000000", hourly: "1" },
      preferences: { priority: "cheap", defaultChain: "base", confirmationThreshold: null, model: "vendor-1.5-pro" },
    });
    expect(result.apply).toEqual(defaultSettings);
    expect(result.confirm).toEqual([]);
    expect(result.ignored.sort()).toEqual(
      ["daily", "weekly", "monthly", "perPayment", "hourly", "priority", "defaultChain", "confirmationThreshold", "model"].sort(),
    );
    expect(classifyProposal(defaultSettings, { spendingLimits: "0", preferences: [] }).ignored).toEqual(["spendingLimits", "preferences"]);
  });

  it("let a held raise go stale once the field is already at or above it", () => {
    const [raise] = classifyProposal(defaultSettings, { spendingLimits: { daily: "3" } }).confirm;
    if (!raise) throw new Error("expected a raise");
    expect(isRaise(defaultSettings, raise)).toBe(true);
    expect(isRaise(withLimits({ daily: "3" }), raise)).toBe(false);
    expect(isRaise(withLimits({ daily: "10" }), raise)).toBe(false);
  });
});

describe("the settings store", () => {
  function memoryStorage(initial?: string): SettingsStorage & { values: Map<string, string> } {
    const values = new Map<string, string>(initial === undefined ? [] : [[SETTINGS_STORAGE_KEY, initial]]);
    return {
      values,
      getItem: (key) => values.get(key) ?? null,
      setItem: (key, value) => void values.set(key, value),
    };
  }

  it("gives the defaults where there is no storage, as during server rendering", () => {
    const store = createSettingsStore({ storage: () => undefined });
    expect(store.get()).toEqual(defaultSettings);
  });

  it("returns the same object until the stored text changes, and tells subscribers of its own writes", () => {
    const storage = memoryStorage(JSON.stringify({ spendingLimits: { daily: "2" } }));
    const store = createSettingsStore({ storage: () => storage });
    const first = store.get();
    expect(first.spendingLimits.daily).toBe("2");
    expect(store.get()).toBe(first);

    const listener = vi.fn();
    const unsubscribe = store.subscribe(listener);
    store.set({ ...first, model: "vendor-1.5-flash" });
    expect(listener).toHaveBeenCalledTimes(1);
    expect(store.get().model).toBe("vendor-1.5-flash");
    expect(JSON.parse(storage.values.get(SETTINGS_STORAGE_KEY) ?? "{}").model).toBe("vendor-1.5-flash");
    unsubscribe();
    store.set(defaultSettings);
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it("stores settings normalised, never what storage could not read back", () => {
    const storage = memoryStorage();
    const store = createSettingsStore({ storage: () => storage });
    store.set(withLimits({ daily: "0.50", weekly: "not money" }));
    expect(store.get().spendingLimits).toEqual({ daily: "0.5", weekly: "5", monthly: "20", perPayment: "0.5" });
  });

  it("follows another tab's change through the storage event", () => {
    const storage = memoryStorage();
    const window = new EventTarget();
    const store = createSettingsStore({ storage: () => storage, events: () => window });
    const listener = vi.fn();
    const unsubscribe = store.subscribe(listener);

    storage.values.set(SETTINGS_STORAGE_KEY, JSON.stringify({ spendingLimits: { daily: "0.25" } }));
    window.dispatchEvent(Object.assign(new Event("storage"), { key: SETTINGS_STORAGE_KEY }));
    expect(listener).toHaveBeenCalledTimes(1);
    expect(store.get().spendingLimits.daily).toBe("0.25");

    window.dispatchEvent(Object.assign(new Event("storage"), { key: "something-else" }));
    expect(listener).toHaveBeenCalledTimes(1);
    unsubscribe();
    window.dispatchEvent(Object.assign(new Event("storage"), { key: SETTINGS_STORAGE_KEY }));
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it("keeps a change for this tab when storage refuses to write or read", () => {
    const store = createSettingsStore({
      storage: () => ({
        getItem: () => {
          throw new Error("SecurityError");
        },
        setItem: () => {
          throw new Error("QuotaExceededError");
        },
      }),
    });
    expect(store.get()).toEqual(defaultSettings);
    store.set(withLimits({ daily: "0.1" }));
    expect(store.get().spendingLimits.daily).toBe("0.1");
  });
});
