// payForService's input (docs/contract.md, sections 8 and 11), door-free: the service call the
// chat's model and an MCP client ask for, and the call the payment core makes of it.
import { z } from "zod";
import type { ServiceCall } from "@/lib/x402/service-call";

export const payForServiceInput = z.object({
  url: z.url({ protocol: /^https?$/ }).describe("The service URL, as listed by discoverServices"),
  method: z.enum(["GET", "POST"]).optional(),
  query: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
    .optional()
    .describe("Query parameters the service takes, e.g. { city: 'Lisbon' }"),
  body: z.record(z.string(), z.unknown()).optional().describe("JSON body for POST services, at most 64 KB"),
});

export type PayForServiceInput = z.infer<typeof payForServiceInput>;

export function serviceCallOf(input: PayForServiceInput): ServiceCall {
  return {
    url: input.url,
    method: input.method ?? "GET",
    ...(input.query ? { query: Object.fromEntries(Object.entries(input.query).map(([key, value]) => [key, String(value)])) } : {}),
    ...(input.body ? { body: input.body } : {}),
  };
}
