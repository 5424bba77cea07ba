// discoverServices and comparePrices as the chat's tools: the answers are door-free
// (lib/tools/discovery.ts); the chat ranks them by the preferences its request carries.
import { tool, zodSchema } from "ai";
import { comparePrices, comparePricesTool, discoverServices, discoverServicesTool } from "@/lib/tools/discovery";
import type { ToolContext } from "@/lib/chat/agent";

// The inputs, wrapped once per process: the SDK converts a schema to the JSON schema the model
// is sent on first use and keeps it, where a schema made per request was converted per request.
const discoverServicesInput = zodSchema(discoverServicesTool.input);
const comparePricesInput = zodSchema(comparePricesTool.input);

export function createDiscoveryTools(context: ToolContext) {
  return {
    discoverServices: tool({
      description: discoverServicesTool.description,
      inputSchema: discoverServicesInput,
      execute: (input) => discoverServices(context.env, context.preferences, input),
    }),
    comparePrices: tool({
      description: comparePricesTool.description,
      inputSchema: comparePricesInput,
      execute: (input) => comparePrices(context.env, context.preferences, input),
    }),
  };
}
