// The body of `POST /api/chat` (docs/contract.md, section 2): read within a size limit, parsed as JSON,
// validated with one zod schema, and checked for pasted secrets, before any other work.
import { readRequestText, requireJsonMediaType } from "@/lib/net/request-body";
import { z } from "zod";
import { sameAddress } from "@/lib/address";
import { evmAddressSchema, solanaAddressSchema, walletsSchema } from "@/lib/chain/addresses";
import { NETWORK_ID_EXAMPLE, NETWORK_ID_PATTERN } from "@/lib/chain/configuration";
import { agentBudgetSchema } from "@/lib/chain/delegation-schema";
import { AppError } from "@/lib/errors";
import { answerProblem, answerShape } from "@/lib/payments/answers";
import { MAX_APPROVAL_TOKEN_CHARS } from "@/lib/payments/approval-token";
import { parseUsd } from "@/lib/money";
import { mayHoldSecret } from "./secret-screen";
import { defaultModelTier, modelTiers } from "./models";

export const MAX_BODY_BYTES = 256 * 1024;
/** How a 400's `details.fields` names the body as a whole. */
const BODY_PATH = "(body)";
const MAX_USD = parseUsd("1000000") ?? 0n;

/** A USD amount as a JSON number or decimal string, 0..1,000,000, at most 6 decimals; kept as micro-dollars. */
const usdAmount = z
  .union([z.number(), z.string()])
  .transform((value, ctx) => {
    const micros = parseUsd(value);
    if (micros === undefined || micros > MAX_USD) {
      ctx.addIssue({ code: "custom", message: "must be a USD amount from 0 to 1000000 with at most 6 decimals" });
      return z.NEVER;
    }
    return micros;
  });

export const networkIdSchema = z.string().regex(NETWORK_ID_PATTERN, `must be a CAIP-2 network id such as ${NETWORK_ID_EXAMPLE}`);

const messageSchema = z.strictObject({
  role: z.enum(["user", "assistant", "system"]),
  content: z.string().min(1).max(16_000),
});

export const spendingLimitsSchema = z.strictObject({
  daily: usdAmount.optional(),
  weekly: usdAmount.optional(),
  monthly: usdAmount.optional(),
  perPayment: usdAmount.optional(),
});

export const preferencesSchema = z.strictObject({
  defaultChain: networkIdSchema.optional(),
  priority: z.enum(["cost", "speed"]).optional(),
  confirmationThreshold: usdAmount.optional(),
});

/**
 * The wallet's answers to a quote, for the payment's rail and scheme to check: `signed`, one per
 * request of the quote's `approval.toSign`, in its order (lib/payments/answers.ts, which also
 * takes the single fields clients sent before, for one release).
 */
export const paymentApprovalSchema = z
  .strictObject({
    paymentId: z.string().min(1).max(100),
    token: z.string().min(1).max(MAX_APPROVAL_TOKEN_CHARS),
    ...answerShape,
  })
  .superRefine((approval, ctx) => {
    const problem = answerProblem(approval);
    if (problem) ctx.addIssue({ code: "custom", message: problem.message, path: [problem.path] });
  });

export const chatRequestSchema = z
  .strictObject({
    messages: z.array(messageSchema).min(1).max(100),
    walletAddress: evmAddressSchema.optional(),
    solanaAddress: solanaAddressSchema.optional(),
    /** The general form of the two above: the person's wallets by the CAIP-2 namespace each pays in. */
    wallets: walletsSchema.optional(),
    spendingLimits: spendingLimitsSchema.optional(),
    preferences: preferencesSchema.optional(),
    model: z.enum(modelTiers).default(defaultModelTier),
    temperature: z.number().min(0).max(1).default(0.5),
    maxTokens: z.number().int().min(1).max(8000).default(4000),
    payment: paymentApprovalSchema.optional(),
    agentBudget: agentBudgetSchema.optional(),
    /**
     * The page's channel keys, by CAIP-2 namespace: the address of the key that signs a
     * pay-as-you-go channel's vouchers in this browser (docs/contract.md, section 15).
     */
    channelKeys: z.strictObject({ eip155: evmAddressSchema.optional() }).optional(),
  })
  .superRefine((body, ctx) => {
    for (const [field, namespace, address] of [["walletAddress", "eip155", body.walletAddress], ["solanaAddress", "solana", body.solanaAddress]] as const) {
      const named = body.wallets?.[namespace];
      if (address && named && !sameAddress(address, named)) {
        ctx.addIssue({ code: "custom", path: ["wallets", namespace], message: `names another wallet than ${field}` });
      }
    }
    if (!body.payment && body.messages.at(-1)?.role !== "user") {
      ctx.addIssue({
        code: "custom",
        path: ["messages", body.messages.length - 1, "role"],
        message: "the last message must be from the user",
      });
    }
  });

export type ChatRequest = z.infer<typeof chatRequestSchema>;
export type ChatMessage = ChatRequest["messages"][number];
export type SpendingLimitsInput = z.infer<typeof spendingLimitsSchema>;
export type Preferences = z.infer<typeof preferencesSchema>;
export type PaymentApprovalInput = z.infer<typeof paymentApprovalSchema>;

export type ReadChatRequestOptions = {
  /**
   * Which of these transaction hashes (`0x` + lowercase) the ledger holds. Asked only about
   * 64-hex values that nothing in the conversation marks as transactions; without it, such a
   * value is refused as a private key.
   */
  knownTxHashes?: (hashes: readonly string[]) => Promise<ReadonlySet<string>>;
};

/** Reads, parses and validates a chat request; throws AppError with the status and code of docs/contract.md, section 2. */
export async function readChatRequest(request: Request, options: ReadChatRequestOptions = {}): Promise<ChatRequest> {
  requireJsonMediaType(request, "Send the request as application/json.");
  const text = await readRequestText(request, MAX_BODY_BYTES);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AppError("bad-request", "The request body is not valid JSON.", {
      details: { fields: [{ path: BODY_PATH, message: "is not valid JSON" }] },
    });
  }
  const parsed = chatRequestSchema.safeParse(json);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((issue) => ({
      path: issue.path.map(String).join(".") || BODY_PATH,
      message: issue.code === "unrecognized_keys" ? `unknown field(s): ${issue.keys.join(", ")}` : issue.message,
    }));
    const named = [...new Set(fields.map((field) => field.path))].join(", ");
    throw new AppError("bad-request", `The request is not valid: ${named}.`, { details: { fields } });
  }
  await assertNoSecrets(parsed.data, options.knownTxHashes);
  return parsed.data;
}

/**
 * Refuses a user or system message that holds a private key or seed phrase, without echoing
 * any of it. A 64-hex value the conversation does not explain is looked up in the ledger first:
 * a transaction hash pasted bare is not a key.
 */
export async function assertNoSecrets(
  { messages, ...named }: Pick<ChatRequest, "messages"> & Partial<Pick<ChatRequest, "walletAddress" | "wallets">>,
  knownTxHashes?: ReadChatRequestOptions["knownTxHashes"],
): Promise<void> {
  // Only a person's own messages can hold their secret; the scanner is loaded for one that may.
  if (!messages.some((message) => message.role !== "assistant" && mayHoldSecret(message.content))) return;
  const { firstSecret, scanForSecrets } = await import("./secrets");
  const scan = scanForSecrets(messages, { walletAddress: named.wallets?.eip155 ?? named.walletAddress });
  const unknown = [...scan.unknownHashes.keys()];
  const known = unknown.length > 0 && knownTxHashes ? await knownTxHashes(unknown) : new Set<string>();
  const finding = firstSecret(scan, known);
  if (!finding) return;
  const what = finding.kind === "private-key" ? "a private key" : "a wallet seed phrase";
  throw new AppError(
    "secret-in-message",
    `Message ${finding.message + 1} looks like it contains ${what}. It was not sent anywhere. Never share your keys or recovery phrase: this agent never needs them.`,
    {
      details: {
        message: finding.message,
        kind: finding.kind,
        // Names the field like every other 400; the message says what was found, never the text.
        fields: [{ path: `messages.${finding.message}.content`, message: `looks like it contains ${what}` }],
      },
    },
  );
}

/**
 * The wallets a request names, by the CAIP-2 namespace of the rail each pays on, in the form the
 * payment core takes them: `wallets`, with the fields clients sent before it for their namespace.
 */
export function walletsOf({ walletAddress, solanaAddress, wallets = {} }: Pick<ChatRequest, "walletAddress" | "solanaAddress" | "wallets">): Record<string, string> {
  const named: Record<string, string> = { ...(walletAddress ? { eip155: walletAddress } : {}), ...(solanaAddress ? { solana: solanaAddress } : {}) };
  for (const [namespace, address] of Object.entries(wallets)) if (address) named[namespace] = address;
  return named;
}
