/**
 * Searches a small local library of x402 notes: a usage-priced (x402 `upto`) service that can
 * charge nothing. The payer signs for at most 0.015 USDC; a request is charged 0.003 USDC for
 * each note found (at most five), so a search that finds nothing costs nothing and settles
 * nothing on chain.
 */
import { latencyTag, requiredParam, type ServiceDefinition } from "./definition";

const PER_RESULT = 3_000n;
const MAX_RESULTS = 5;

const NOTES = [
  { title: "Facilitators", text: "A facilitator verifies a signed payment and settles it on chain, paying the gas." },
  { title: "The exact scheme", text: "In exact, the payer signs a transfer of the price itself, with EIP-3009." },
  { title: "The upto scheme", text: "In upto, the payer signs a Permit2 transfer of at most a maximum, and the service settles what it used." },
  { title: "Permit2", text: "Permit2 moves tokens with signatures; its nonces are a bitmap, each used at most once." },
  { title: "Receipts", text: "A receipt names the transaction that settled a payment, signed by the service." },
  { title: "Discovery", text: "A registry lists services with what they accept, so an agent can compare prices." },
  { title: "Allowances", text: "Permit2 needs the payer's token allowance; USDC grants it by an EIP-2612 permit signature." },
];

type SearchAnswer = { query: string; results: { title: string; text: string }[] };

function isSearchAnswer(answer: unknown): answer is SearchAnswer {
  return typeof answer === "object" && answer !== null && Array.isArray((answer as { results?: unknown }).results);
}

export const docSearch: ServiceDefinition = {
  name: "doc-search",
  serviceName: "NoteFinder",
  description: "Searches a library of notes on x402 payments (facilitators, schemes, Permit2, receipts, allowances). Priced by use: 0.003 USDC per note found, at most 0.015 USDC; a search that finds nothing is free.",
  method: "GET",
  path: "/search",
  price: PER_RESULT * BigInt(MAX_RESULTS), // at most 0.015 USDC
  upto: {
    charge: (_request, answer) => (isSearchAnswer(answer) ? PER_RESULT * BigInt(answer.results.length) : 0n),
    typical: 6_000n, // two notes
  },
  latencyMs: 150,
  tags: ["search", "documentation", "usage-priced", latencyTag(150)],
  discovery: {
    input: { q: "permit2" },
    inputSchema: { properties: { q: { type: "string", description: "Words to look for; 0.003 USDC per note found, nothing if none" } }, required: ["q"] },
    output: {
      example: { query: "permit2", results: [NOTES[3]] },
      schema: {
        properties: { query: { type: "string" }, results: { type: "array", items: { type: "object" } } },
        required: ["query", "results"],
      },
    },
  },
  async handle({ query }) {
    const q = requiredParam(query, "q").toLowerCase();
    const words = q.split(/\s+/).filter(Boolean);
    const results = NOTES.filter((note) => words.every((word) => `${note.title} ${note.text}`.toLowerCase().includes(word))).slice(0, MAX_RESULTS);
    return { query: q, results } satisfies SearchAnswer;
  },
};
