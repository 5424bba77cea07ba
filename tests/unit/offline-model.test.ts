// The offline model decides from the conversation alone: these are the request kinds of docs/contract.md,
// section 1 as a person would phrase them, and what it does with each.
import { describe, expect, test } from "vitest";
import { decideOfflineTurn, OFFLINE_NOTICE, type OfflineToolResult } from "@/lib/chat/offline-turns";

const allTools = new Set(["discoverServices", "comparePrices", "payForService", "getSpending", "updatePreferences"]);
const decide = (userText: string, toolResults: OfflineToolResult[] = [], availableTools = allTools) =>
  decideOfflineTurn({ userText, earlierUserTexts: [], toolResults, availableTools });

describe("offline model", () => {
  test.each([
    ["List the available services", "discoverServices", {}],
    ["Which services are available for weather?", "discoverServices", { query: "weather" }],
    ["Compare prices for weather", "comparePrices", { query: "weather" }],
    ["How much have I spent this week?", "getSpending", { period: "week" }],
    ["What's my remaining budget today?", "getSpending", { period: "day" }],
    ["Set my daily limit to 2.5 and my monthly limit to 30", "updatePreferences", { spendingLimits: { daily: "2.5", monthly: "30" } }],
    ["I prefer the cheapest option", "updatePreferences", { priority: "cost" }],
    ["Make base sepolia my default chain", "updatePreferences", { defaultChain: "eip155:84532" }],
    ["Set the confirmation threshold to $0.10", "updatePreferences", { confirmationThreshold: "0.10" }],
    ["What's the weather in Lisbon?", "comparePrices", { query: "weather" }],
    ["A quotation on money, please", "comparePrices", { query: "quotation" }],
  ])("%s → %s", (text, toolName, input) => {
    expect(decide(text)).toEqual({ kind: "tool", toolName, input });
  });

  test("a direct request goes on from the comparison to paying the best service, with the city", () => {
    const compared: OfflineToolResult = {
      toolName: "comparePrices",
      input: { query: "weather" },
      output: { services: [{ protocol: "x402", protocolLabel: "x402", name: "Cheap Weather", url: "http://127.0.0.1:4101/weather", method: "GET", priceUsd: "0.001" }] },
      isError: false,
    };
    expect(decide("What's the weather in Lisbon?", [compared])).toEqual({
      kind: "tool",
      toolName: "payForService",
      input: { url: "http://127.0.0.1:4101/weather", method: "GET", query: { city: "Lisbon" } },
    });
  });

  test("a quotation request pays the best match with its topic, and a listing paid over MPP says so", () => {
    const compared: OfflineToolResult = {
      toolName: "comparePrices",
      input: { query: "quotation" },
      output: { services: [{ name: "Maxim Machine", protocol: "mpp", protocolLabel: "MPP", url: "http://127.0.0.1:4112/maxim", method: "GET", priceUsd: "0.0008", chain: "Sandbox" }] },
      isError: false,
    };
    expect(decide("A quotation on money, please", [compared])).toEqual({
      kind: "tool",
      toolName: "payForService",
      input: { url: "http://127.0.0.1:4112/maxim", method: "GET", query: { topic: "money" } },
    });
    const listed = decide("Compare prices for quotations", [compared]);
    expect(listed.kind === "text" && listed.text).toContain("| 1 | Maxim Machine | $0.0008 | Sandbox | MPP |");
  });

  test("a POST service gets the request's parameters as its JSON body, not as a query", () => {
    const compared: OfflineToolResult = {
      toolName: "comparePrices",
      input: { query: "translate" },
      output: { services: [{ protocol: "x402", protocolLabel: "x402", name: "PocketTranslate", url: "http://127.0.0.1:4105/translate", method: "POST", priceUsd: "0.02" }] },
      isError: false,
    };
    expect(decide('Translate "hello friend" to es', [compared])).toEqual({
      kind: "tool",
      toolName: "payForService",
      input: { url: "http://127.0.0.1:4105/translate", method: "POST", body: { text: "hello friend", to: "es" } },
    });
  });

  test("answers from a tool's result, saying it is the offline model, and does not pay twice", () => {
    const paid: OfflineToolResult = {
      toolName: "payForService",
      input: {},
      output: { summary: "Paid 0.001 USDC. Lisbon: 21 °C, sunny." },
      isError: false,
    };
    const compared: OfflineToolResult = {
      toolName: "comparePrices",
      input: {},
      output: { services: [{ url: "http://x/weather" }] },
      isError: false,
    };
    const turn = decide("What's the weather in Lisbon?", [compared, paid]);
    expect(turn).toEqual({ kind: "text", text: `${OFFLINE_NOTICE}\n\nPaid 0.001 USDC. Lisbon: 21 °C, sunny.` });
  });

  test("lists services with their prices from a discovery result", () => {
    const turn = decide("List services", [
      {
        toolName: "discoverServices",
        input: {},
        output: {
          services: [
            { protocol: "x402", protocolLabel: "x402", name: "Fast Weather", url: "http://a", priceUsd: "0.01", network: "eip155:31337", latencyMs: 50 },
            { protocol: "x402", protocolLabel: "x402", name: "Slow Weather", url: "http://b", priceUsd: "0.002", network: "eip155:31337" },
          ],
        },
        isError: false,
      },
    ]);
    expect(turn.kind === "text" && turn.text).toContain("| # | Service | Price per call | Speed | Network | Protocol |");
    expect(turn.kind === "text" && turn.text).toContain("| 1 | Fast Weather | $0.01 | 50\u00a0ms | eip155:31337 | x402 |");
    expect(turn.kind === "text" && turn.text).toContain("| 2 | Slow Weather | $0.002 |  | eip155:31337 | x402 |");
  });

  test("explains when the needed tool is not available, and offers help for anything else", () => {
    const missing = decide("List the available services", [], new Set());
    expect(missing.kind === "text" && missing.text).toMatch(/list services, but that tool is not available/);
    const help = decide("hello there");
    expect(help.kind === "text" && help.text.startsWith(OFFLINE_NOTICE)).toBe(true);
    expect(help.kind === "text" && help.text).toContain("weather in Lisbon");
  });
});

describe("offline model, reading plain requests", () => {
  test("a text to summarize is taken from after a colon as well as from quotes", () => {
    const compared: OfflineToolResult = {
      toolName: "comparePrices",
      input: { query: "summarize" },
      output: { services: [{ protocol: "x402", name: "TextDigest", url: "http://127.0.0.1:4105/summarize", method: "POST", priceUsd: "0.02" }] },
      isError: false,
    };
    const text = "The ledger keeps every payment. Limits are checked before a signature is asked for.";
    expect(decide(`Summarize this text: ${text}`)).toEqual({ kind: "tool", toolName: "comparePrices", input: { query: "summarize" } });
    expect(decide(`Summarize this text: ${text}`, [compared])).toEqual({ kind: "tool", toolName: "payForService", input: { url: "http://127.0.0.1:4105/summarize", method: "POST", body: { text } } });
    expect(decide(`Please summarise "${text}"`, [compared])).toMatchObject({ input: { body: { text } } });
  });

  test("a request for something no topic covers is looked for, and the answer says nothing was found for it", () => {
    expect(decide("Book me a flight to Rome")).toEqual({ kind: "tool", toolName: "discoverServices", input: { query: "flight rome" } });
    const none = decide("Book me a flight to Rome", [{ toolName: "discoverServices", input: { query: "flight rome" }, output: { count: 0, services: [] }, isError: false }]);
    expect(none.kind === "text" && none.text).toContain('No paid service for "flight rome" was found');
    expect(decide("zxqv blorp")).toEqual({ kind: "tool", toolName: "discoverServices", input: { query: "zxqv blorp" } });
  });

  test("when a registry was too slow to answer, an empty search says it could not search everywhere, never that nothing exists", () => {
    const slow = "The registry at registry.example is slow: it did not answer within 5 s, so the services it lists could not be searched (that is not the same as there being none); ask again in a moment.";
    const answer = decide("Book me a flight to Rome", [{ toolName: "discoverServices", input: { query: "flight rome" }, output: { count: 0, services: [], searchNotes: [slow], incomplete: true }, isError: false }]);
    const words = answer.kind === "text" ? answer.text : "";
    expect(words).toContain('I could not search everywhere for "flight rome"');
    expect(words).toContain("registry.example is slow");
    expect(words).not.toContain("No paid service");
  });

  test("'What can you do?' names every kind of service, the usage-priced, the channel's and MPP's among them", () => {
    const help = decide("What can you do?");
    expect(help.kind).toBe("text");
    const words = help.kind === "text" ? help.text : "";
    for (const kind of ["summary of a text", "search of the x402 notes", "market ticks paid from a deposit", "MPP", "weather", "stock prices"]) expect(words).toContain(kind);
    expect(decide("hello there")).toMatchObject({ kind: "text" });
  });

  test("the weather on Mars asks the weather service about Mars, rather than saying no city was given", () => {
    const compared: OfflineToolResult = {
      toolName: "comparePrices",
      input: { query: "weather" },
      output: { services: [{ protocol: "x402", name: "Budget Weather", url: "http://127.0.0.1:4101/weather", method: "GET", priceUsd: "0.001" }] },
      isError: false,
    };
    expect(decide("What's the weather on Mars?", [compared])).toMatchObject({ input: { query: { city: "Mars" } } });
  });
});

describe("offline model, in a person's words", () => {
  const weather = {
    city: "Lisbon",
    country: "PT",
    observedAt: "2026-11-24T01:00:00Z",
    temperatureC: 11.9,
    conditions: "partly cloudy",
    humidityPercent: 70,
    windKph: 24,
    provider: "Budget Weather",
  };
  const delivered = (data: unknown): OfflineToolResult => ({
    toolName: "payForService",
    input: {},
    output: { status: "delivered", service: "Budget Weather", paidUsd: "0.002", network: "Sandbox", data, summary: "Paid … The service answered: city: Lisbon, …" },
    isError: false,
  });

  test("a paid answer is a sentence and a small table, its fields in words with their units, not the service's field names", () => {
    const turn = decide("What's the weather in Lisbon?", [delivered(weather)]);
    const text = turn.kind === "text" ? turn.text : "";
    expect(text).toContain("Paid $0.002 to Budget Weather on Sandbox. Its answer:");
    expect(text).toContain("| Temperature | 11.9 °C |");
    expect(text).toContain("| Humidity | 70 % |");
    expect(text).toContain("| Wind | 24 km/h |");
    expect(text).toContain("| Observed | 24 Nov 2026, 01:00 UTC |");
    // The data as it came is there too, in a block the page shows behind a disclosure.
    const [words, raw] = text.split("```raw-data");
    expect(words).not.toMatch(/temperatureC|humidityPercent|observedAt/);
    expect(raw).toContain('"temperatureC": 11.9');
  });

  test("a call paid through a channel says it came from the deposit, and what is left in it", () => {
    const opening = decide("NVDA stock price", [{ ...delivered({ price: "120.1" }), output: { status: "delivered", service: "TickStream", paidUsd: "0.001", depositUsd: "0.05", leftInDepositUsd: "0.049", network: "Sandbox", data: { price: "120.1" }, summary: "…" } }]);
    expect(opening.kind === "text" && opening.text).toContain("Paid $0.001 to TickStream on Sandbox from your deposit of $0.05 ($0.049 left in it). Its answer:");
  });

  test("a usage-priced answer says what was charged of the maximum; one that charged nothing yet says the maximum is held, never 'Paid $0.00'", () => {
    const charged = decide("Count the words", [{ ...delivered({ words: 12 }), output: { status: "delivered", service: "WordCount", paidUsd: "0.004", maxUsd: "0.01", network: "Sandbox", data: { words: 12 }, summary: "…" } }]);
    expect(charged.kind === "text" && charged.text).toContain("Charged $0.004 of the up to $0.01 approved, by WordCount on Sandbox. Its answer:");
    const held = decide("Search the notes for unicorns", [
      {
        ...delivered({ query: "unicorns" }),
        output: { status: "delivered", service: "NoteFinder", paidUsd: "0", maxUsd: "0.015", heldUsd: "0.015", heldUntil: "2026-11-27T23:17:00.000Z", network: "Sandbox", data: { query: "unicorns" }, summary: "…" },
      },
    ]);
    const text = held.kind === "text" ? held.text : "";
    expect(text).toContain("NoteFinder on Sandbox charged nothing so far: its maximum of $0.015 stays held against your limits until 23:17 UTC unless it collects it. Its answer:");
    expect(text).not.toContain("Paid $0.00");
  });

  test("a list in the answer is a bulleted list of its titles", () => {
    const turn = decide("Technology news", [delivered({ topic: "technology", headlines: [{ title: "Chips get faster", source: "Wire" }, { title: "Batteries last longer", source: "Daily" }] })]);
    const text = turn.kind === "text" ? turn.text : "";
    expect(text).toContain("Headlines:\n- Chips get faster · Wire\n- Batteries last longer · Daily");
  });

  test("the offline notice comes once, with the conversation's first answer", () => {
    const first = decideOfflineTurn({ userText: "hello", earlierUserTexts: [], toolResults: [], availableTools: allTools });
    const later = decideOfflineTurn({ userText: "hello again", earlierUserTexts: ["hello"], toolResults: [], availableTools: allTools });
    expect(first.kind === "text" && first.text.startsWith(OFFLINE_NOTICE)).toBe(true);
    expect(later.kind === "text" && later.text.includes(OFFLINE_NOTICE)).toBe(false);
  });
});

test("a service listed on two networks at one price is one row naming both networks by name", () => {
  const turn = decideOfflineTurn({
    userText: "List services",
    earlierUserTexts: ["hello"],
    toolResults: [
      {
        toolName: "discoverServices",
        input: {},
        output: {
          services: [
            { protocol: "x402", protocolLabel: "x402", name: "Daily Wire", url: "http://n/headlines", priceUsd: "0.003", network: "eip155:31337", chain: "Sandbox" },
            { protocol: "x402", protocolLabel: "x402", name: "Daily Wire", url: "http://n/headlines", priceUsd: "0.003", network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", chain: "Solana Devnet" },
            { protocol: "x402", protocolLabel: "x402", name: "Busy Weather", url: "http://w/weather", priceUsd: "0.002", network: "eip155:31337", chain: "Sandbox", lastThirtyDays: { paidCalls: 12, uniquePayers: 5 } },
          ],
        },
        isError: false,
      },
    ],
    availableTools: allTools,
  });
  const text = turn.kind === "text" ? turn.text : "";
  expect(text).toContain("| 1 | Daily Wire | $0.003 | Sandbox or Solana Devnet | x402 | none |");
  expect(text).toContain("| 2 | Busy Weather | $0.002 | Sandbox | x402 | 12 paid calls by 5 payers |");
  expect(text).not.toContain("solana:EtWT");
});

test("a comparison is one table: what each service says of itself in its row, what they all say once under it", () => {
  const cities = "Cities: Lisbon, London, Paris, Reykjavik.";
  const what = "Current weather for a city: temperature, conditions, humidity, wind.";
  const turn = decideOfflineTurn({
    userText: "Compare prices for weather",
    earlierUserTexts: ["hello"],
    toolResults: [
      {
        toolName: "comparePrices",
        input: { query: "weather" },
        output: {
          services: [
            { protocol: "x402", protocolLabel: "x402", name: "Budget Weather", url: "http://b/weather", priceUsd: "0.002", chain: "Sandbox", latencyMs: 3000, description: `${what} Cheap but slow (answers in about 3 s). ${cities}` },
            { name: "Meteo Machine", protocol: "mpp", protocolLabel: "MPP", url: "http://m/weather", priceUsd: "0.005", chain: "Sandbox", latencyMs: 400, description: `${what} Paid over MPP (answers in about 400 ms). ${cities}` },
            { protocol: "x402", protocolLabel: "x402", name: "Pipe | Weather", url: "http://q/weather", priceUsd: "1", chain: "Sandbox", latencyMs: 150, description: `${what} Fast, e.g. Lisbon in 150 ms. ${cities}` },
          ],
        },
        isError: false,
      },
    ],
    availableTools: allTools,
  });
  const text = turn.kind === "text" ? turn.text : "";
  expect(text).toBe(
    [
      "Here is how they compare, best first:",
      [
        "| # | Service | Price per call | Speed | Network | Protocol | About |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        "| 1 | Budget Weather | $0.002 | 3\u00a0s | Sandbox | x402 | Cheap but slow (answers in about 3 s). |",
        "| 2 | Meteo Machine | $0.005 | 400\u00a0ms | Sandbox | MPP | Paid over MPP (answers in about 400 ms). |",
        "| 3 | Pipe \\| Weather | $1.00 | 150\u00a0ms | Sandbox | x402 | Fast, e.g. Lisbon in 150 ms. |",
      ].join("\n"),
      `All three: ${what} ${cities}`,
    ].join("\n\n"),
  );
});
