// The real @ai-sdk/google provider against a fake Gemini HTTP server: what a deployment with a
// key does, down to the HTTP requests, without the hosted model.
import { tool } from "ai";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { z } from "zod";
import type { ToolFactory } from "@/lib/chat/agent";
import { isFinishLine } from "@/lib/protocol/lines";
import { startFakeGemini, type FakeGemini } from "@/tests/fixtures/fake-gemini";
import { collectLines, createTestChat, textOf, userSays } from "@/tests/helpers/chat";

let gemini: FakeGemini;
beforeAll(async () => {
  gemini = await startFakeGemini();
});
afterAll(async () => {
  await gemini.close();
});

const geminiEnv = () => ({
  MODEL_PROVIDER: "google",
  GOOGLE_GENERATIVE_AI_API_KEY: "test-key-123",
  GOOGLE_GENERATIVE_AI_BASE_URL: gemini.baseUrl,
  GEMINI_MODEL_PRO: "gemini-pro-for-test",
});

describe("Gemini through @ai-sdk/google", () => {
  test("streams a text reply from the configured model id, with the key and the fixed system prompt", async () => {
    gemini.script([{ text: ["Hello", " from", " Gemini"] }]);
    const before = gemini.requests.length;
    const chat = await createTestChat({ env: geminiEnv() });
    const response = await chat.post({ ...userSays("Hi"), model: "vendor-1.5-pro" });
    const lines = await collectLines(response);
    await chat.close();

    expect(textOf(lines)).toBe("Hello from Gemini");
    expect(lines.at(-1)).toEqual({
      type: "data",
      data: { finishReason: "stop", model: "gemini-pro-for-test", usage: { inputTokens: 20, outputTokens: 5 } },
    });
    const request = gemini.requests[before];
    expect(request?.model).toBe("gemini-pro-for-test");
    expect(request?.apiKey).toBe("test-key-123");
    expect(JSON.stringify(request?.body.systemInstruction)).toContain("autonomous payment agent");
  });

  test("a function call runs the tool, and the tool's result goes back to Gemini for the answer", async () => {
    gemini.script([{ functionCall: { name: "lookUp", args: { city: "Lisbon" } } }, { text: ["It is 21 °C in Lisbon."] }]);
    const before = gemini.requests.length;
    const inputs: unknown[] = [];
    const tools: ToolFactory = () => ({
      lookUp: tool({
        description: "Weather by city",
        inputSchema: z.object({ city: z.string() }),
        execute: async (input) => {
          inputs.push(input);
          return { city: input.city, temperatureC: 21 };
        },
      }),
    });
    const chat = await createTestChat({ env: geminiEnv(), tools });
    const lines = await collectLines(await chat.post(userSays("Weather in Lisbon?")));
    await chat.close();

    expect(inputs).toEqual([{ city: "Lisbon" }]);
    expect(textOf(lines)).toBe("It is 21 °C in Lisbon.");
    expect(lines.filter(isFinishLine)).toHaveLength(1);
    const [first, second] = gemini.requests.slice(before);
    expect(first?.body.tools?.[0]?.functionDeclarations?.map((declaration) => declaration.name)).toEqual(["lookUp"]);
    expect(JSON.stringify(second?.body.contents)).toContain("functionResponse");
    expect(JSON.stringify(second?.body.contents)).toContain("temperatureC");
    // The call goes back with Gemini's thought signature: thinking models refuse a function call without it.
    const modelTurn = second?.body.contents?.find((content) => content.role === "model");
    expect(modelTurn?.parts).toEqual([
      { functionCall: expect.objectContaining({ name: "lookUp", args: { city: "Lisbon" } }), thoughtSignature: "fake-thought-signature" },
    ]);
    // Two model calls in all, and the usage of both is counted.
    expect(gemini.requests.length - before).toBe(2);
    expect(lines.at(-1)).toMatchObject({ data: { usage: { inputTokens: 40, outputTokens: 10 } } });
  });

  test("a passing outage (503) is tried once more, and the answer arrives", async () => {
    gemini.script([{ status: 503, error: "overloaded" }, { text: ["Back again."] }]);
    const before = gemini.requests.length;
    const chat = await createTestChat({ env: geminiEnv() });
    const lines = await collectLines(await chat.post(userSays("Hi")));
    await chat.close();
    expect(gemini.requests.length - before).toBe(2);
    expect(textOf(lines)).toBe("Back again.");
    expect(lines.filter((line) => line.type === "error")).toEqual([]);
  });

  test("a Gemini outage becomes a model-error line, not a broken stream", async () => {
    gemini.script([{ status: 500, error: "backend exploded: secret-internal-detail" }]);
    const chat = await createTestChat({ env: geminiEnv() });
    const lines = await collectLines(await chat.post(userSays("Hi")));
    await chat.close();
    expect(lines.find((line) => line.type === "error")).toMatchObject({ error: { code: "model-error" } });
    expect(JSON.stringify(lines)).not.toContain("secret-internal-detail");
    expect(lines.at(-1)).toMatchObject({ type: "data", data: { finishReason: "stop" } });
  });
});
