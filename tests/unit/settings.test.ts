// The browser's settings: what is read back from storage, what a request carries, and how the
// model's proposals are sorted: lowering applies at once, raising waits for the person.
import { describe, expect, it } from "vitest";
import { chatRequestSchema } from "@/lib/chat/request";
import {
  applyChanges,
  classifyProposal,
  defaultSettings,
  limitWarnings,
  readSettings,
  toRequestExtras,
  usdError,
} from "@/lib/client/settings";

describe("stored settings", () => {
  it("falls back to the defaults for nothing, garbage or a wrong shape", () => {
    expect(readSettings(undefined)).toEqual(defaultSettings);
    expect(readSettings("oops")).toEqual(defaultSettings);
    expect(readSettings([1, 2])).toEqual(defaultSettings);
  });

  it("keeps the valid fields and replaces each broken one by its default", () => {
    const settings = readSettings({
      spendingLimits: { daily: "2.5", weekly: -1, monthly: "1e3", perPayment: 0.25 },
      preferences: { priority: "speed", confirmationThreshold: "0.0000001", defaultChain: "base" },
      model: "gpt-4",
    });
    expect(settings.spendingLimits).toEqual({ daily: "2.5", weekly: "5", monthly: "20", perPayment: "0.25" });
    expect(settings.preferences).toEqual({ priority: "speed", confirmationThreshold: "0" });
    expect(settings.model).toBe(defaultSettings.model);
  });

  it("refuses amounts above 1,000,000 USD or with more than 6 decimals", () => {
    expect(usdError("1000000")).toBeUndefined();
    expect(usdError("1000000.000001")).toBe("At most 1,000,000 USD.");
    expect(usdError("0.1234567")).toMatch(/at most 6 decimals/);
    expect(usdError("")).toBe("Enter an amount in USD.");
    expect(usdError("-1")).toMatch(/number such as/);
  });

  it("warns when limits do not nest, without refusing them", () => {
    expect(limitWarnings({ daily: "10", weekly: "5", monthly: "20", perPayment: "0.5" })).toEqual([
      "The daily limit is above the weekly one, so the weekly limit decides.",
    ]);
    expect(limitWarnings(defaultSettings.spendingLimits)).toEqual([]);
  });

  it("makes the part of a chat request that the server accepts", () => {
    const extras = toRequestExtras({ ...defaultSettings, preferences: { ...defaultSettings.preferences, defaultChain: "eip155:84532" } });
    const parsed = chatRequestSchema.safeParse({ messages: [{ role: "user", content: "hi" }], ...extras });
    expect(parsed.success).toBe(true);
  });
});

describe("the model's proposals", () => {
  it("applies a lowered limit at once", () => {
    const result = classifyProposal(defaultSettings, { spendingLimits: { daily: "0.5" } });
    expect(result.apply.spendingLimits.daily).toBe("0.5");
    expect(result.applied).toEqual([{ field: "daily", from: "1", to: "0.5" }]);
    expect(result.confirm).toEqual([]);
  });

  it("holds a raised limit for the person's confirmation and changes nothing yet", () => {
    const result = classifyProposal(defaultSettings, { spendingLimits: { daily: "3", weekly: "5.000" } });
    expect(result.apply.spendingLimits).toEqual(defaultSettings.spendingLimits);
    expect(result.confirm).toEqual([{ field: "daily", from: "1", to: "3" }]);
    expect(applyChanges(result.apply, result.confirm).spendingLimits.daily).toBe("3");
  });

  it("treats a raised confirmation threshold as a raise, and applies other preferences", () => {
    const result = classifyProposal(defaultSettings, {
      preferences: { confirmationThreshold: "0.05", priority: "speed", defaultChain: "eip155:8453" },
    });
    expect(result.confirm).toEqual([{ field: "confirmationThreshold", from: "0", to: "0.05" }]);
    expect(result.apply.preferences).toEqual({ priority: "speed", defaultChain: "eip155:8453", confirmationThreshold: "0" });
  });

  it("ignores what is not valid", () => {
    const result = classifyProposal(defaultSettings, {
      spendingLimits: { daily: "lots", hourly: "1" },
      preferences: { priority: "cheap", defaultChain: "base" },
    });
    expect(result.apply).toEqual(defaultSettings);
    expect(result.ignored.sort()).toEqual(["daily", "defaultChain", "hourly", "priority"]);
  });
});
