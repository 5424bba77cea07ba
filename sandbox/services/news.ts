/**
 * Headline news from a local table, newest first, with publication times relative to now so
 * the feed always looks current.
 */
import { latencyTag, ServiceInputError, type ServiceDefinition } from "./definition";

const HEADLINES: Record<string, readonly string[]> = {
  technology: [
    "Open-source wallet adds one-tap stablecoin payments for APIs",
    "Chipmakers report record demand for low-power inference hardware",
    "Browser vendors agree on a common standard for passkeys",
    "Researchers show a 40% cut in data-centre cooling with liquid immersion",
  ],
  markets: [
    "Stablecoin settlement volumes hit a new monthly high",
    "Central banks hold rates steady as inflation cools",
    "Shipping costs fall for the third straight quarter",
    "Tech shares lead a broad rally on strong earnings",
  ],
  science: [
    "Telescope captures the most detailed image yet of a distant exoplanet",
    "New battery chemistry doubles cycle life in lab tests",
    "Deep-sea survey finds dozens of previously unknown species",
  ],
  sports: [
    "Underdogs clinch the title in a dramatic final minute",
    "Marathon record falls on a cool morning in Berlin",
    "Tennis star announces return after a year out with injury",
  ],
  world: [
    "Coastal cities agree on a joint plan for rising sea levels",
    "Record harvest eases food prices across the region",
    "High-speed rail link opens between two capitals",
  ],
};
export const NEWS_TOPICS = Object.keys(HEADLINES);

export const newsHeadlines: ServiceDefinition = {
  name: "news-headlines",
  serviceName: "Daily Wire Headlines",
  description: `Latest news headlines by topic (${NEWS_TOPICS.join(", ")}), newest first.`,
  method: "GET",
  path: "/headlines",
  price: 3_000n, // 0.003 USDC
  latencyMs: 300,
  tags: ["news", "headlines", latencyTag(300)],
  rails: ["evm", "solana"],
  discovery: {
    input: { topic: "technology", limit: "3" },
    inputSchema: {
      properties: {
        topic: { type: "string", enum: NEWS_TOPICS, description: "Topic; all topics when omitted" },
        limit: { type: "string", pattern: "^[0-9]+$", description: "How many headlines, 1 to 10 (default 5)" },
      },
    },
    output: {
      example: {
        topic: "technology",
        headlines: [{ title: "Browser vendors agree on a common standard for passkeys", topic: "technology", publishedAt: "2026-01-01T11:00:00.000Z" }],
      },
      schema: {
        properties: {
          topic: { type: "string" },
          headlines: {
            type: "array",
            items: {
              type: "object",
              properties: { title: { type: "string" }, topic: { type: "string" }, publishedAt: { type: "string" } },
            },
          },
        },
        required: ["headlines"],
      },
    },
  },
  async handle({ query }) {
    const topic = query.get("topic")?.trim().toLowerCase() || undefined;
    if (topic !== undefined && !(topic in HEADLINES)) {
      throw new ServiceInputError(`unknown topic "${topic}"; known: ${NEWS_TOPICS.join(", ")}`);
    }
    const limitText = query.get("limit") ?? "5";
    const limit = /^\d+$/.test(limitText) ? Math.min(10, Math.max(1, Number(limitText))) : 5;
    const topics = topic ? [topic] : NEWS_TOPICS;
    const now = Date.now();
    const all = topics.flatMap((name) =>
      (HEADLINES[name] ?? []).map((title, index) => ({
        title,
        topic: name,
        // Spread over the last hours, newest first within each topic.
        publishedAt: new Date(now - (index * 97 + name.length * 13) * 60_000).toISOString(),
      })),
    );
    all.sort((a, b) => b.publishedAt.localeCompare(a.publishedAt));
    return { topic: topic ?? "all", headlines: all.slice(0, limit) };
  },
};
