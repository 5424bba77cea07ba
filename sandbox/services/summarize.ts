/**
 * Summarizes English text by its leading sentences, and counts its words: a usage-priced (x402
 * `upto`) service. The payer signs for at most 0.02 USDC; a request is charged by the size of
 * the text sent, 5 atomic units (0.000005 USDC) a character, so any text it accepts costs less
 * than the maximum.
 */
import { z } from "zod";
import { latencyTag, ServiceInputError, type ServiceDefinition } from "./definition";

const MAX_CHARACTERS = 3_000;
const PER_CHARACTER = 5n;

const bodySchema = z.object({
  text: z.string().min(1).max(MAX_CHARACTERS),
  sentences: z.number().int().min(1).max(5).optional(),
});

export const summarize: ServiceDefinition = {
  name: "summarize",
  serviceName: "TextDigest",
  description: `Summarizes English text (up to ${MAX_CHARACTERS} characters) by its leading sentences and counts its words. Priced by use: 0.000005 USDC a character sent, at most 0.02 USDC a request.`,
  method: "POST",
  path: "/summarize",
  price: 20_000n, // at most 0.02 USDC
  upto: {
    charge: (request) => {
      const parsed = bodySchema.safeParse(request.body);
      return parsed.success ? BigInt(parsed.data.text.length) * PER_CHARACTER : 0n;
    },
    typical: 2_500n, // 500 characters
  },
  latencyMs: 200,
  tags: ["summary", "text", "usage-priced", latencyTag(200)],
  discovery: {
    bodyType: "json",
    input: { text: "The ledger was balanced. Every payment matched its invoice. Nobody was surprised.", sentences: 1 },
    inputSchema: {
      properties: {
        text: { type: "string", maxLength: MAX_CHARACTERS, description: "English text; the charge is 0.000005 USDC a character" },
        sentences: { type: "integer", minimum: 1, maximum: 5, description: "How many sentences to keep (default 2)" },
      },
      required: ["text"],
    },
    output: {
      example: { summary: "The ledger was balanced.", words: 12, characters: 81 },
      schema: {
        properties: { summary: { type: "string" }, words: { type: "integer" }, characters: { type: "integer" } },
        required: ["summary", "words", "characters"],
      },
    },
  },
  async handle({ body }) {
    const parsed = bodySchema.safeParse(body);
    if (!parsed.success) throw new ServiceInputError(`expected JSON { text (1..${MAX_CHARACTERS} characters), sentences? 1..5 }`);
    const { text, sentences = 2 } = parsed.data;
    const all = text.match(/[^.!?]+[.!?]*/g)?.map((sentence) => sentence.trim()).filter(Boolean) ?? [];
    return {
      summary: all.slice(0, sentences).join(" "),
      words: text.split(/\s+/).filter(Boolean).length,
      characters: text.length,
    };
  },
};
