// The agent budget's grant (./delegation.ts) as a request carries it: the wallet's signed
// delegation to a session key in the page, checked by the same schema at every door that receives
// it (the chat's body, the MCP door's check-in). The server keeps no grant: the wallet's signature
// is checked whenever one would be used. Server-side: the page builds grants, it never parses one.
import { z } from "zod";
import { evmAddressSchema } from "./addresses";
import { parseUsd } from "@/lib/money";

const MAX_USD = parseUsd("1000000") ?? 0n;

/** Networks an agent budget may name: EVM only (its delegation is an EIP-712 signature). */
const evmNetworkIdSchema = z.string().regex(/^eip155:\d{1,12}$/, "must be a CAIP-2 network id such as eip155:8453");

export const agentBudgetSchema = z.strictObject({
  wallet: evmAddressSchema,
  session: evmAddressSchema,
  // Atomic USDC units, as signed: at most the 1,000,000 USD any amount here may be.
  maxAmount: z
    .string()
    // abort: the size check must not run on something that is not a whole number.
    .regex(/^(0|[1-9]\d{0,12})$/, { message: "must be a whole number of atomic USDC units, at most 1000000 USD", abort: true })
    .refine((value) => BigInt(value) <= MAX_USD, "must be at most 1000000 USD"),
  validUntil: z.number().int().min(0).max(2 ** 40),
  networks: z.array(evmNetworkIdSchema).min(1).max(16),
  signature: z
    .string()
    .regex(/^0x[0-9a-fA-F]{130,}$/, "must be a hex signature")
    .max(16_384)
    .transform((value) => value as `0x${string}`),
});

export type AgentBudgetInput = z.infer<typeof agentBudgetSchema>;
