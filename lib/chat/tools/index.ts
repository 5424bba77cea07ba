// The seam where the model's tools are registered (docs/contract.md, section 8). Each tool that needs the
// request's context is built here from it; the set grows as the tools arrive.
import type { ToolSet } from "ai";
import type { ToolContext } from "../agent";
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
