/**
 * The local x402 facilitator: @x402/core's x402Facilitator with @x402/evm's exact, upto and
 * batch-settlement schemes over plain node:http (`GET /supported`, `POST /verify`, `POST /settle`).
 * An anvil dev account submits the transfers and pays the gas. A nonce cache refuses a second use of one
 * authorization before the chain has to, and stops two concurrent settles of the same
 * signature from both being sent. Channels (`batch-settlement`) are settled by @x402/evm's own
 * facilitator scheme against the sandbox's channel contract (batch-settlement.ts): deposits,
 * the receiver side's claims and sweeps, and cooperative refunds. It advertises no
 * `receiverAuthorizer` of its own (it has no way to tell which service asks for a refund, and the
 * scheme forbids advertising one then), so each channel service signs its claims and refunds itself. Smart accounts pay too: deployed ones by ERC-1271, and
 * counterfactual ones (ERC-6492) whose factory it is given, which it deploys on settlement.
 * Given the local Solana, it settles there too, with @x402/svm's exact scheme: it checks the
 * payer's partly signed transfer, signs it as the fee payer, sends it and waits for it.
 */
import { x402Facilitator } from "@x402/core/facilitator";
import { PaymentPayloadSchema, PaymentRequirementsSchema } from "@x402/core/schemas";
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from "@x402/core/types";
import { BATCH_SETTLEMENT_SCHEME, toFacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { UptoEvmScheme } from "@x402/evm/upto/facilitator";
import { BatchSettlementEvmScheme } from "@x402/evm/batch-settlement/facilitator";
import { EIP2612_GAS_SPONSORING } from "@x402/extensions";
import { toFacilitatorSvmSigner } from "@x402/svm";
import { ExactSvmScheme } from "@x402/svm/exact/facilitator";
import { createKeyPairSignerFromBytes, createSolanaRpc, devnet, getBase58Encoder } from "@solana/kit";
import type { ServerResponse } from "node:http";
import { createWalletClient, http, publicActions, type Hex } from "viem";
import { createNonceManager, jsonRpc } from "viem/nonce";
import { privateKeyToAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { z } from "zod";
import type { DevAccount } from "./accounts";
import type { SolanaKey } from "./solana";
import { SANDBOX_NETWORK } from "./chain";
import { HttpError, listen, readJson, requestUrl, sendJson, type RunningServer } from "./http";

export const NONCE_ALREADY_USED = "nonce_already_used";

const requestSchema = z.object({
  x402Version: z.number().int(),
  paymentPayload: z.unknown(),
  paymentRequirements: z.unknown(),
});

const eip3009PayloadSchema = z.object({
  authorization: z.object({ from: z.string(), nonce: z.string() }),
});

const channelDepositSchema = z.object({
  type: z.literal("deposit"),
  deposit: z.object({ authorization: z.record(z.string(), z.object({ signature: z.string() })) }),
});

/**
 * One key per authorization: token, payer and EIP-3009 nonce (what the token itself marks as
 * used). Payloads of another shape fall back to their whole signed content. A channel's deposit is
 * keyed by its signed authorization; its claims, sweeps and refunds by nothing (undefined): the
 * same claim or sweep is rightly sent again (a sweep of a receiver is the same payload every
 * time), and the channel contract itself makes a replay change nothing (cumulative claim totals,
 * refund nonces).
 */
function authorizationKey(payload: PaymentPayload, requirements: PaymentRequirements): string | undefined {
  if (requirements.scheme === BATCH_SETTLEMENT_SCHEME) {
    const deposit = channelDepositSchema.safeParse(payload.payload);
    if (!deposit.success) return undefined;
    const signatures = Object.values(deposit.data.deposit.authorization).map((authorization) => authorization.signature);
    return `${requirements.network}:${requirements.asset}:deposit:${signatures.join(":")}`.toLowerCase();
  }
  const eip3009 = eip3009PayloadSchema.safeParse(payload.payload);
  if (eip3009.success) {
    const { from, nonce } = eip3009.data.authorization;
    return `${requirements.network}:${requirements.asset}:${from}:${nonce}`.toLowerCase();
  }
  return JSON.stringify(payload.payload);
}

const channelOperationSchema = z.object({ scheme: z.literal(BATCH_SETTLEMENT_SCHEME), maxTimeoutSeconds: z.literal(0) }).passthrough();

function parseRequest(body: unknown): { payload: PaymentPayload; requirements: PaymentRequirements } {
  const request = requestSchema.safeParse(body);
  if (!request.success) throw new HttpError(400, "expected { x402Version, paymentPayload, paymentRequirements }");
  // @x402/evm's channel manager sends a service's claims, sweeps and refunds with requirements
  // whose `maxTimeoutSeconds` is 0 (operations, with no payment window), which @x402/core's
  // schema refuses: they are checked as if they named a window, and passed on with their 0.
  const operation = channelOperationSchema.safeParse(request.data.paymentRequirements).success;
  const windowed = (value: unknown) => (operation && typeof value === "object" && value !== null ? { ...value, maxTimeoutSeconds: 1 } : value);
  const rawPayload = request.data.paymentPayload;
  const payload = PaymentPayloadSchema.safeParse(
    operation && typeof rawPayload === "object" && rawPayload !== null && "accepted" in rawPayload ? { ...rawPayload, accepted: windowed(rawPayload.accepted) } : rawPayload,
  );
  if (!payload.success) throw new HttpError(400, "paymentPayload is not a valid x402 payment payload");
  const requirements = PaymentRequirementsSchema.safeParse(windowed(request.data.paymentRequirements));
  if (!requirements.success) throw new HttpError(400, "paymentRequirements are not valid x402 payment requirements");
  const restored = <T extends { maxTimeoutSeconds: number }>(value: T): T => (operation ? { ...value, maxTimeoutSeconds: 0 } : value);
  const parsed = payload.data as PaymentPayload;
  return {
    payload: { ...parsed, accepted: restored(parsed.accepted) },
    requirements: restored(requirements.data as PaymentRequirements),
  };
}

export type Facilitator = RunningServer & { address: Hex };

export async function startFacilitator({
  port,
  rpcUrl,
  account,
  eip6492AllowedFactories = [],
  solana,
  onSettled,
}: {
  port: number;
  rpcUrl: string;
  account: DevAccount;
  /** Factories whose counterfactual accounts it deploys on settlement (ERC-6492); none by default. */
  eip6492AllowedFactories?: Hex[];
  /** The local Solana it also settles on, and its fee payer's key there. */
  solana?: { rpcUrl: string; network: string; feePayer: SolanaKey };
  /** Told of each payment it settled: the resource paid for (v2 payloads name it) and the payer. */
  onSettled?: (call: { resource: string; payer: string | undefined }) => void;
}): Promise<Facilitator> {
  // Concurrent settlements send from one account: a nonce manager gives each its own nonce
  // instead of all reading the same pending count from the node. One per facilitator: viem's
  // shared one remembers nonces per address and chain id for the whole process, so a second
  // sandbox in the same process (a fresh chain, same account, same chain id) would be sent
  // nonces its chain has never seen, and its settlements would never be mined.
  const viemAccount = privateKeyToAccount(account.privateKey, { nonceManager: createNonceManager({ source: jsonRpc() }) });
  // A settlement waits for its receipt. When the receipt is not there at the first look (several
  // settlements in flight), viem polls for blocks every `pollingInterval`, by default 4 s on a
  // chain that states no block time, as anvil's does: one settlement in twenty or so then took
  // over 4 s under load (bench/payments-per-second.ts). Anvil mines each transaction at once.
  const client = createWalletClient({ account: viemAccount, chain: foundry, transport: http(rpcUrl), pollingInterval: 50 }).extend(
    publicActions,
  );
  const signer = toFacilitatorEvmSigner(
    {
      address: viemAccount.address,
      readContract: (args) => client.readContract({ ...args, abi: [...args.abi] } as Parameters<typeof client.readContract>[0]),
      verifyTypedData: (args) => client.verifyTypedData(args as Parameters<typeof client.verifyTypedData>[0]),
      writeContract: (args) =>
        client.writeContract({ ...args, abi: [...args.abi] } as Parameters<typeof client.writeContract>[0]),
      sendTransaction: (args) => client.sendTransaction(args),
      waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
      getCode: (args) => client.getCode(args),
    },
    { confirmationTimeoutMs: 30_000 },
  );
  // `upto` settles through Permit2 and the upto proxy (sandbox/permit2.ts), with the payer's
  // EIP-2612 permit when the payload carries one (the `eip2612GasSponsoring` extension).
  const facilitator = new x402Facilitator()
    .register(SANDBOX_NETWORK, new ExactEvmScheme(signer, { eip6492AllowedFactories }))
    .register(SANDBOX_NETWORK, new UptoEvmScheme(signer))
    // No authorizer signer: see the header.
    .register(SANDBOX_NETWORK, new BatchSettlementEvmScheme(signer, undefined, { eip6492AllowedFactories }))
    .registerExtension(EIP2612_GAS_SPONSORING);
  if (solana) {
    const feePayer = await createKeyPairSignerFromBytes(new Uint8Array(getBase58Encoder().encode(solana.feePayer.secretKey)));
    // Per network: the signer's own default would be the public devnet.
    const svmSigner = toFacilitatorSvmSigner(feePayer, { [solana.network]: createSolanaRpc(devnet(solana.rpcUrl)) });
    facilitator.register(solana.network as `${string}:${string}`, new ExactSvmScheme(svmSigner));
  }

  /** "settling" while a settle is in flight, "settled" once it succeeded on chain. */
  const authorizations = new Map<string, "settling" | "settled">();

  const verify = async (payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse> => {
    const key = authorizationKey(payload, requirements);
    if (key !== undefined && authorizations.has(key)) {
      return { isValid: false, invalidReason: NONCE_ALREADY_USED, invalidMessage: "this payment authorization was already used" };
    }
    return facilitator.verify(payload, requirements);
  };

  const settle = async (payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse> => {
    const key = authorizationKey(payload, requirements);
    if (key === undefined) return facilitator.settle(payload, requirements);
    if (authorizations.has(key)) {
      return {
        success: false,
        errorReason: NONCE_ALREADY_USED,
        errorMessage: "this payment authorization was already used",
        transaction: "",
        network: requirements.network,
      };
    }
    // Claimed before any await, so a concurrent settle of the same signature is refused.
    authorizations.set(key, "settling");
    try {
      const result = await facilitator.settle(payload, requirements);
      if (result.success) {
        authorizations.set(key, "settled");
        const resource = (payload as { resource?: { url?: unknown } }).resource?.url;
        if (typeof resource === "string") onSettled?.({ resource, payer: result.payer });
      } else authorizations.delete(key);
      return result;
    } catch (error) {
      authorizations.delete(key);
      throw error;
    }
  };

  const answer = (response: ServerResponse, body: unknown) => sendJson(response, 200, body);

  const server = await listen(port, async (request, response) => {
    const { pathname } = requestUrl(request);
    if (request.method === "GET" && pathname === "/supported") return answer(response, facilitator.getSupported());
    if (request.method === "GET" && pathname === "/health") return answer(response, { ok: true });
    if (request.method === "POST" && (pathname === "/verify" || pathname === "/settle")) {
      const { payload, requirements } = parseRequest(await readJson(request));
      if (pathname === "/verify") return answer(response, await verify(payload, requirements));
      return answer(response, await settle(payload, requirements));
    }
    throw new HttpError(404, "not found");
  });
  return { ...server, address: viemAccount.address };
}
