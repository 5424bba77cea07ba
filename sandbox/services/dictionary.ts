/**
 * Word definitions from a small local dictionary. It takes payment on Solana only: the sandbox's
 * service that an EVM wallet alone cannot pay.
 */
import { latencyTag, requiredParam, ServiceInputError, type ServiceDefinition } from "./definition";

const ENTRIES: Record<string, { partOfSpeech: string; definition: string }> = {
  ledger: { partOfSpeech: "noun", definition: "A book or record in which accounts and payments are kept." },
  invoice: { partOfSpeech: "noun", definition: "A list of goods or services provided, with the amount owed for them." },
  stablecoin: { partOfSpeech: "noun", definition: "A digital currency whose value is tied to a reference asset such as the US dollar." },
  latency: { partOfSpeech: "noun", definition: "The delay between a request and the start of its answer." },
  facilitator: { partOfSpeech: "noun", definition: "One who makes a process easier; in x402, the party that verifies and settles payments." },
  blockhash: { partOfSpeech: "noun", definition: "The hash of a recent block, which a Solana transaction names to show it is recent." },
  budget: { partOfSpeech: "noun", definition: "An amount of money set aside for a purpose over a period." },
  receipt: { partOfSpeech: "noun", definition: "A written statement that something has been paid for or received." },
};
export const DICTIONARY_WORDS = Object.keys(ENTRIES);

export const dictionary: ServiceDefinition = {
  name: "dictionary",
  serviceName: "Lexicon Definitions",
  description: `Defines an English word (${DICTIONARY_WORDS.join(", ")}). Paid on Solana.`,
  method: "GET",
  path: "/define",
  price: 2_000n, // 0.002 USDC
  latencyMs: 150,
  tags: ["dictionary", "definition", "words", latencyTag(150)],
  rails: ["solana"],
  discovery: {
    input: { word: "ledger" },
    inputSchema: { properties: { word: { type: "string", description: "The word to define", enum: DICTIONARY_WORDS } }, required: ["word"] },
    output: {
      example: { word: "ledger", partOfSpeech: "noun", definition: ENTRIES.ledger?.definition ?? "" },
      schema: {
        properties: { word: { type: "string" }, partOfSpeech: { type: "string" }, definition: { type: "string" } },
        required: ["word", "partOfSpeech", "definition"],
      },
    },
  },
  async handle({ query }) {
    const word = requiredParam(query, "word").toLowerCase();
    const entry = ENTRIES[word];
    if (!entry) throw new ServiceInputError(`no definition for "${word}"; known: ${DICTIONARY_WORDS.join(", ")}`);
    return { word, ...entry };
  },
};
