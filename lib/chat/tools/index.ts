// The chat's tools as the AI SDK takes them (docs/contract.md, section 8), built for each request
// from its context and from the door-free definitions beside this folder (lib/tools/*.ts).
import type { ToolSet } from "ai";
import type { ToolContext } from "@/lib/chat/agent";
import { createAccountTools } from "./account-tools";
import { createDiscoveryTools } from "./discovery-tools";
import { createPaymentTool } from "./payment-tool";

export function createChatTools(context: ToolContext): ToolSet {
  return {
    ...createDiscoveryTools(context),
    payForService: createPaymentTool(context),
    ...createAccountTools(context),
  };
}
