// The chat tools' input schemas are made once per process: the JSON schema the model is sent
// is converted once and reused by every request, not converted again for each one.
import { asSchema } from "ai";
import { describe, expect, test } from "vitest";
import type { ToolContext } from "@/lib/chat/agent";
import { createChatTools } from "@/lib/chat/tools";
import { parseServerEnv } from "@/lib/env";

function context(): ToolContext {
  return {
    env: parseServerEnv({}),
    db: {} as ToolContext["db"],
    payments: {} as ToolContext["payments"],
    wallets: {},
    limits: { daily: 1n, weekly: 1n, monthly: 1n, perPayment: 1n },
    preferences: {},
    approval: undefined,
    agentBudget: undefined,
    provenWallets: [],
    silentPayments: { left: 1 },
    conversation: "digest",
    writer: { text() {}, payment() {}, data() {}, error() {}, closed: false },
    setOutcome() {},
    signal: new AbortController().signal,
  };
}

describe("chat tools", () => {
  test("two requests' tools share each input's JSON schema, converted once", () => {
    const first = createChatTools(context());
    const second = createChatTools(context());
    expect(Object.keys(first).sort()).toEqual(["comparePrices", "discoverServices", "getSpending", "payForService", "updatePreferences"]);
    for (const name of Object.keys(first)) {
      const a = asSchema(first[name]?.inputSchema);
      const b = asSchema(second[name]?.inputSchema);
      expect(b.jsonSchema, name).toBe(a.jsonSchema);
      expect(a.jsonSchema, name).toMatchObject({ type: "object" });
    }
  });
});
