import { describe, expect, test } from "vitest";
import { geminiModelId, modelTiers, selectChatModel } from "@/lib/chat/models";
import { parseServerEnv } from "@/lib/env";

describe("model catalog", () => {
  const env = parseServerEnv({
    GOOGLE_GENERATIVE_AI_API_KEY: "test-key",
    GEMINI_MODEL_FAST: "gemini-fast-x",
    GEMINI_MODEL_PRO: "gemini-pro-x",
    GEMINI_MODEL_BALANCED: "gemini-balanced-x",
  });

  test("maps each tier name to its configured Gemini id", () => {
    expect(modelTiers.map((tier) => geminiModelId(tier, env))).toEqual(["gemini-fast-x", "gemini-pro-x", "gemini-balanced-x"]);
    const selected = selectChatModel("vendor-1.5-pro", env);
    expect(selected.id).toBe("gemini-pro-x");
    expect(typeof selected.model === "object" && selected.model.provider).toMatch(/google/);
  });

  test("defaults to current Gemini ids, not retired ones", () => {
    const defaults = parseServerEnv({ GOOGLE_GENERATIVE_AI_API_KEY: "k" });
    for (const tier of modelTiers) expect(geminiModelId(tier, defaults)).not.toMatch(/gemini-(1\.5|2\.0)/);
  });

  test("uses the offline model without a key, and says so in its id", () => {
    const offline = parseServerEnv({});
    expect(offline.modelProvider).toBe("offline");
    expect(selectChatModel("vendor-2.0-flash-exp", offline).id).toBe("offline");
    expect(parseServerEnv({ GOOGLE_GENERATIVE_AI_API_KEY: "k", MODEL_PROVIDER: "offline" }).modelProvider).toBe("offline");
  });
});
