/**
 * Serves one sandbox service over node:http as an x402 v2 resource: 402 with PAYMENT-REQUIRED
 * until paid; then verify, run the handler, and settle only after the handler succeeded.
 * A handler failure answers 5xx and nothing settles. A channel service (`batch-settlement`) is
 * paid per call by vouchers against a deposit and claims them in batches once its answers have
 * gone (channel.ts); a cooperative refund request is answered without running the handler. The
 * service can be switched offline (503 `service-unavailable`), made to fail after verification,
 * made to misbehave after taking the payment (settle, then fail, hang or break off), or, when it
 * signs receipts, made to hand out a forged one, for tests.
 */
import { HTTPFacilitatorClient, x402HTTPResourceServer, x402ResourceServer } from "@x402/core/server";
import type { HTTPAdapter, HTTPRequestContext, HTTPResponseInstructions, RouteConfig } from "@x402/core/server";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { UptoEvmScheme } from "@x402/evm/upto/server";
import type { BatchSettlementEvmScheme } from "@x402/evm/batch-settlement/server";
import { declareEip2612GasSponsoringExtension } from "@x402/extensions";
import { ExactSvmScheme } from "@x402/svm/exact/server";
import { bazaarResourceServerExtension, declareDiscoveryExtension } from "@x402/extensions/bazaar";
import {
  declarePaymentIdentifierExtension,
  extractPaymentIdentifier,
  PAYMENT_IDENTIFIER,
  paymentIdentifierResourceServerExtension,
} from "@x402/extensions/payment-identifier";
import { decodePaymentResponseHeader, encodePaymentResponseHeader } from "@x402/core/http";
import { BATCH_SETTLEMENT_SCHEME } from "@x402/evm";
import type { PaymentPayload } from "@x402/core/types";
import {
  createEIP712OfferReceiptIssuer,
  createOfferReceiptExtension,
  createReceiptEIP712,
  declareOfferReceiptExtension,
  OFFER_RECEIPT,
  type SignTypedDataFn,
  type SignedReceipt,
} from "@x402/extensions/offer-receipt";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { SANDBOX_NETWORK } from "../chain";
import { CORS_HEADERS, HttpError, listen, readJson, requestUrl, sendJson, type RunningServer } from "../http";
import { formatUnits } from "../units";
import { USDC_DECIMALS, USDC_NAME, USDC_VERSION } from "../usdc";
import { createChannelKeeper, type ChannelActivity } from "./channel";
import { schemesOf, ServiceInputError, type ServiceDefinition, type ServiceRequest } from "./definition";

/** A paid request with `?__fail=1` passes verification, then its handler fails: for tests. */
export const FAIL_QUERY_FLAG = "__fail";

/** Long enough for a person to read the quote and approve it in the wallet. */
const MAX_TIMEOUT_SECONDS = 300;

/**
 * What a paid request does after the payment settled on chain, for tests of what the payer
 * is told: answer 500 without the settlement, never answer, or break off mid-answer.
 */
export type AfterSettlement = "fail" | "hang" | "break";

/** Runs after the settlement landed and before the service misbehaves: what a test makes happen meanwhile. */
export type Meanwhile = () => Promise<void>;

/**
 * A settlement a lying service claims without settling anything: it takes the signed payment,
 * answers 200 with its data and a PAYMENT-RESPONSE saying `success` with this `transaction`
 * (any JSON value), and keeps the authorization to collect later, or never.
 */
export type ClaimedSettlement = { transaction: unknown };

/**
 * A forged receipt a service that signs receipts hands out instead of its true one, after a real
 * settlement: `altered`, its content changed after it was signed (the payer); `other-payer`,
 * signed with the service's own key but naming another payer; `other-key`, true in what it says
 * but signed by a key that is not the service's.
 */
export type ReceiptForgery = "altered" | "other-payer" | "other-key";

/** The payer a forged receipt names instead of the real one: the burn address, which no sandbox account owns. */
export const FORGED_RECEIPT_PAYER = "0x000000000000000000000000000000000000dEaD";

/** Where a service takes payment on the local Solana: the network, USDC's mint, and the owner paid (its token account must exist). */
export type SolanaPayee = { network: string; mint: string; payTo: string };

export type RunningService = RunningServer & {
  definition: ServiceDefinition;
  /** The paid resource's own URL (server origin + path). */
  resourceUrl: string;
  payTo: Hex;
  /** Its Solana payee, if it takes payment there. */
  solanaPayTo: string | undefined;
  isOnline(): boolean;
  setOnline(online: boolean): void;
  /** While true, every paid request fails after verification (answers 500, settles nothing). */
  setFailing(failing: boolean): void;
  /** While set, every paid request settles on chain and then misbehaves that way (after `meanwhile`, when given). */
  setAfterSettlement(mode: AfterSettlement | undefined, meanwhile?: Meanwhile): void;
  /** While set, every paid request is verified, not settled, and answered as if it were (ClaimedSettlement). */
  setClaimedSettlement(claim: ClaimedSettlement | undefined): void;
  /** While set, a service that signs receipts settles each paid request and hands out a forged receipt. */
  setReceiptForgery(forgery: ReceiptForgery | undefined): void;
  /** The `payment-identifier` of each payment it settled, in order (the service declares the extension). */
  paymentIdentifiers(): readonly string[];
  /** A channel service's claims and sweeps so far, once those under way are done; none for any other. */
  channelActivity(): Promise<ChannelActivity>;
};

/** What a service that keeps no channels answers to `channelActivity()`. */
export const NO_CHANNEL_ACTIVITY: () => Promise<ChannelActivity> = async () => ({ claims: [], sweeps: [], failures: [] });

/** What a service switched off answers to every request. */
export function answerOffline(response: ServerResponse, definition: ServiceDefinition): void {
  sendJson(response, 503, { error: "service-unavailable", message: `${definition.serviceName} is offline` }, { "Retry-After": "30" });
}

/** Signs EIP-712 typed data with a sandbox key, in the form the offer-receipt issuer asks for. */
function typedDataSigner(key: Hex): SignTypedDataFn {
  const account = privateKeyToAccount(key);
  return (data) => account.signTypedData(data as Parameters<typeof account.signTypedData>[0]);
}

/**
 * The x402 resource server every sandbox service uses: EVM `exact` and `upto`, Solana `exact`, the Bazaar and
 * payment-identifier extensions, and a record of the payment identifiers it settled. Given a
 * `receiptKey`, also `offer-receipt`: offers and receipts signed with that key (EIP-712), for
 * the routes that declare it.
 */
export function sandboxResourceServer({
  facilitatorUrl,
  solana,
  receiptKey,
  channel,
}: {
  facilitatorUrl: string;
  solana?: SolanaPayee | undefined;
  receiptKey?: Hex | undefined;
  /** A channel service's `batch-settlement` scheme, which holds its channels (channel.ts). */
  channel?: BatchSettlementEvmScheme | undefined;
}) {
  const identifiers: string[] = [];
  const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitatorUrl }))
    .register(SANDBOX_NETWORK, new ExactEvmScheme())
    .register(SANDBOX_NETWORK, new UptoEvmScheme())
    .register((solana?.network ?? "solana:*") as `${string}:${string}`, new ExactSvmScheme())
    .registerExtension(bazaarResourceServerExtension)
    .registerExtension(paymentIdentifierResourceServerExtension)
    .onAfterSettle(async ({ paymentPayload }) => {
      const id = extractPaymentIdentifier(paymentPayload as PaymentPayload, false);
      if (id) identifiers.push(id);
    });
  if (channel) resourceServer.register(SANDBOX_NETWORK, channel);
  if (receiptKey) {
    const kid = `did:pkh:eip155:1:${privateKeyToAccount(receiptKey).address}`;
    const offerReceipt = createOfferReceiptExtension(createEIP712OfferReceiptIssuer(kid, typedDataSigner(receiptKey)));
    resourceServer.registerExtension({
      ...offerReceipt,
      // The HTTP resource server hands this hook the route's extensions as its 402 carried them
      // (the signed offers) rather than as the route declared them, so a declared
      // `includeTxHash` never reaches it. The sandbox's receipts name their transaction, as
      // declared: a receipt can then be checked against the chain.
      enrichSettlementResponse: (_declaration, context) => offerReceipt.enrichSettlementResponse?.({ includeTxHash: true }, context) ?? Promise.resolve(undefined),
    });
  }
  return { resourceServer, paymentIdentifiers: () => [...identifiers] };
}

/**
 * The settlement's headers with its receipt replaced by a forged one (ReceiptForgery); as they
 * were when the settlement carries no EIP-712 receipt.
 */
async function withForgedReceipt(headers: Record<string, string>, forgery: ReceiptForgery, receiptKey: Hex): Promise<Record<string, string>> {
  const encoded = headers["PAYMENT-RESPONSE"];
  if (!encoded) return headers;
  const settled = decodePaymentResponseHeader(encoded);
  const extension = settled.extensions?.[OFFER_RECEIPT] as { info?: { receipt?: SignedReceipt } } | undefined;
  const receipt = extension?.info?.receipt;
  if (!extension?.info || receipt?.format !== "eip712") return headers;
  const { resourceUrl, network, payer, transaction } = receipt.payload;
  const forged: SignedReceipt =
    forgery === "altered"
      ? { ...receipt, payload: { ...receipt.payload, payer: FORGED_RECEIPT_PAYER } }
      : forgery === "other-payer"
        ? await createReceiptEIP712({ resourceUrl, network, payer: FORGED_RECEIPT_PAYER, transaction }, typedDataSigner(receiptKey))
        : await createReceiptEIP712({ resourceUrl, network, payer, transaction }, typedDataSigner(generatePrivateKey()));
  const extensions = { ...settled.extensions, [OFFER_RECEIPT]: { ...extension, info: { ...extension.info, receipt: forged } } };
  return { ...headers, "PAYMENT-RESPONSE": encodePaymentResponseHeader({ ...settled, extensions }) };
}

export type StartServiceParameters = {
  definition: ServiceDefinition;
  port: number;
  facilitatorUrl: string;
  usdcAddress: Hex;
  payTo: Hex;
  /** Needed when the definition takes payment on Solana. */
  solana?: SolanaPayee;
  /** The payee's own key: a definition that signs receipts signs its offers and receipts with it. */
  payToKey?: Hex;
  log?: (line: string) => void;
};

function adapterHeader(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

function adapterFor(request: IncomingMessage, url: URL, body: unknown): HTTPAdapter {
  return {
    getHeader: (name) => adapterHeader(request, name),
    getMethod: () => request.method ?? "GET",
    getPath: () => url.pathname,
    getUrl: () => url.toString(),
    getAcceptHeader: () => request.headers.accept ?? "",
    getUserAgent: () => request.headers["user-agent"] ?? "",
    getQueryParams: () => Object.fromEntries(url.searchParams.entries()),
    getQueryParam: (name) => url.searchParams.get(name) ?? undefined,
    getBody: () => body,
  };
}

function writeInstructions(response: ServerResponse, instructions: HTTPResponseInstructions): void {
  const body = instructions.body === undefined ? {} : instructions.body;
  if (instructions.isHtml && typeof body === "string") {
    response.writeHead(instructions.status, { ...CORS_HEADERS, ...instructions.headers, "Content-Type": "text/html" });
    response.end(body);
    return;
  }
  sendJson(response, instructions.status, body, instructions.headers);
}

export function routeConfigFor(
  definition: ServiceDefinition,
  { resourceUrl, usdcAddress, payTo, solana }: { resourceUrl: string; usdcAddress: Hex; payTo: Hex; solana?: SolanaPayee | undefined },
): RouteConfig {
  const rails = definition.rails ?? ["evm"];
  const maxTimeoutSeconds = definition.maxTimeoutSeconds ?? MAX_TIMEOUT_SECONDS;
  if ((definition.upto || definition.channel) && rails.includes("solana")) throw new Error(`${definition.name}: upto and channels are taken on EVM only`);
  // One EVM option per scheme, in the order the service prefers them. A channel option's price is
  // per call; its `minDeposit` is the deposit the service suggests.
  const evm = schemesOf(definition).map((scheme) => ({
    scheme,
    network: SANDBOX_NETWORK,
    payTo,
    price: {
      asset: usdcAddress,
      amount: definition.price.toString(),
      extra: {
        name: USDC_NAME,
        version: USDC_VERSION,
        ...(scheme === "batch-settlement" && definition.channel ? { minDeposit: definition.channel.deposit.toString() } : {}),
      },
    },
    maxTimeoutSeconds,
  }));
  if (rails.includes("solana") && !solana) throw new Error(`${definition.name} takes Solana payments, and no Solana payee was given`);
  const onSolana = solana
    ? {
        scheme: "exact",
        network: solana.network as `${string}:${string}`,
        payTo: solana.payTo,
        price: { asset: solana.mint, amount: definition.price.toString(), ...(definition.solanaExtra ? { extra: definition.solanaExtra } : {}) },
        // A Solana payment lives as long as its blockhash: about a minute.
        maxTimeoutSeconds: Math.min(maxTimeoutSeconds, 60),
      }
    : undefined;
  const accepts = [...(rails.includes("evm") ? evm : []), ...(onSolana && rails.includes("solana") ? [onSolana] : [])];
  return {
    accepts,
    resource: resourceUrl,
    description: definition.description,
    mimeType: "application/json",
    serviceName: definition.serviceName,
    // A usage-priced service says what a usual request costs, as its listing will.
    tags: definition.upto ? [...definition.tags, `typical-usd:${formatUnits(definition.upto.typical, USDC_DECIMALS)}`] : definition.tags,
    extensions: {
      ...declareDiscoveryExtension(definition.discovery),
      [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(),
      // Receipts name their transaction: a receipt is then checkable against the chain.
      ...(definition.signsReceipts ? declareOfferReceiptExtension({ includeTxHash: true }) : {}),
      // Permit2 needs the payer's USDC allowance: a payer without one signs an EIP-2612 permit,
      // which the facilitator submits with the settlement (the payer pays no gas).
      ...(definition.upto ? declareEip2612GasSponsoringExtension() : {}),
    },
  };
}

export async function startService({
  definition,
  port,
  facilitatorUrl,
  usdcAddress,
  payTo,
  solana,
  payToKey,
  log = () => undefined,
}: StartServiceParameters): Promise<RunningService> {
  let online = true;
  let failing = false;
  let afterSettlement: AfterSettlement | undefined;
  let meanwhileSettled: Meanwhile | undefined;
  let claimedSettlement: ClaimedSettlement | undefined;
  let receiptForgery: ReceiptForgery | undefined;
  const receiptKey = receiptKeyOf(definition, payToKey);
  // The resource URL is fixed before listening so the 402 always names the same URL.
  let resourceUrl = "";

  const channels = definition.channel
    ? createChannelKeeper({ name: definition.name, terms: definition.channel, payTo, payToKey, facilitatorUrl, usdcAddress, log })
    : undefined;
  const { resourceServer, paymentIdentifiers } = sandboxResourceServer({ facilitatorUrl, solana, receiptKey, channel: channels?.scheme });
  /** A paid call on a channel settled: the service counts it towards its next claim. */
  const countChannelCall = (scheme: string) => {
    if (scheme === BATCH_SETTLEMENT_SCHEME) channels?.paid();
  };

  let httpServer: x402HTTPResourceServer | undefined;

  const handleAdmin = (request: IncomingMessage, response: ServerResponse, pathname: string): boolean => {
    if (request.method === "POST" && (pathname === "/__admin/offline" || pathname === "/__admin/online")) {
      online = pathname === "/__admin/online";
      log(`${definition.name} is now ${online ? "online" : "offline"}`);
      sendJson(response, 200, { name: definition.name, online });
      return true;
    }
    if (request.method === "GET" && pathname === "/__admin/status") {
      sendJson(response, 200, { name: definition.name, online, failing });
      return true;
    }
    return false;
  };

  const server = await listen(port, async (request, response) => {
    const url = requestUrl(request);
    if (handleAdmin(request, response, url.pathname)) return;
    if (!online) {
      answerOffline(response, definition);
      return;
    }
    if (url.pathname !== definition.path) throw new HttpError(404, "not found");
    if (request.method !== definition.method) throw new HttpError(405, `use ${definition.method}`);
    if (!httpServer) throw new HttpError(503, "service is starting");

    // A silent channel service does not answer a payer asking for its deposit back.
    if (channels?.refusesRefund(adapterHeader(request, "payment-signature"))) {
      log(`${definition.name}: does not answer a refund request`);
      sendJson(response, 503, { error: "service-unavailable", message: `${definition.serviceName} does not answer refund requests` }, { "Retry-After": "30" });
      return;
    }

    const body = definition.method === "POST" ? await readJson(request) : undefined;
    const context: HTTPRequestContext = {
      adapter: adapterFor(request, url, body),
      path: url.pathname,
      method: definition.method,
    };
    const result = await httpServer.processHTTPRequest(context);
    if (result.type === "payment-error") {
      writeInstructions(response, result.response);
      // A channel's cooperative refund is answered here, settled and without the handler (200).
      if (channels && result.response.status === 200) {
        log(`${definition.name}: refunded a channel's unclaimed deposit`);
        channels.refunded();
      }
      return;
    }
    if (result.type === "no-payment-required") throw new HttpError(500, "route is not protected");

    if (claimedSettlement) {
      const claim = { success: true, transaction: claimedSettlement.transaction, network: result.paymentRequirements.network };
      log(`${definition.name}: claims a settlement it did not make`);
      response.writeHead(200, {
        ...CORS_HEADERS,
        "PAYMENT-RESPONSE": Buffer.from(JSON.stringify(claim), "utf8").toString("base64"),
        "Content-Type": "application/json; charset=utf-8",
      });
      response.end(JSON.stringify(await definition.handle({ query: url.searchParams, body })));
      return;
    }

    if (afterSettlement) {
      const mode = afterSettlement;
      const request: ServiceRequest = { query: url.searchParams, body };
      const settled = await httpServer.processSettlement(
        result.paymentPayload,
        result.paymentRequirements,
        result.declaredExtensions,
        { request: context, responseBody: Buffer.from("{}") },
        // Not answered, but charged as the answer it would have had.
        usageOf(definition, request, await definition.handle(request).catch(() => undefined)),
      );
      if (!settled.success) {
        return writeInstructions(response, { ...settled.response, headers: { ...settled.response.headers, ...settled.headers } });
      }
      countChannelCall(result.paymentRequirements.scheme);
      log(`${definition.name}: paid, tx ${settled.transaction}, then misbehaving (${mode})`);
      await meanwhileSettled?.();
      if (mode === "fail") {
        sendJson(response, 500, { error: "service-error", message: `${definition.serviceName} failed after taking the payment` });
        return;
      }
      if (mode === "hang") {
        // Never answers; the socket goes when the caller gives up or the server closes.
        await new Promise((resolve) => response.once("close", resolve));
        return;
      }
      response.writeHead(200, { ...CORS_HEADERS, ...settled.headers, "Content-Type": "application/json; charset=utf-8", "Content-Length": "4096" });
      response.write('{"partial": "the answer stops he');
      setTimeout(() => response.destroy(), 20);
      return;
    }

    // Paid and verified: run the handler first; settle only if it succeeded.
    let data: unknown;
    try {
      await new Promise((resolve) => setTimeout(resolve, definition.latencyMs));
      if (failing || url.searchParams.get(FAIL_QUERY_FLAG) === "1") {
        throw new Error(`${definition.name} failed on purpose after verification`);
      }
      data = await definition.handle({ query: url.searchParams, body });
    } catch (error) {
      const isInputError = error instanceof ServiceInputError;
      const status = isInputError ? 400 : 500;
      await result.cancellationDispatcher
        .cancel({ reason: "handler_threw", error, responseStatus: status })
        .catch(() => undefined);
      log(`${definition.name}: handler failed (${status}); payment not settled`);
      sendJson(response, status, {
        error: isInputError ? "bad-request" : "service-error",
        message: isInputError ? error.message : `${definition.serviceName} failed; you were not charged`,
      });
      return;
    }

    const responseBody = Buffer.from(JSON.stringify(data));
    const settlement = await httpServer.processSettlement(
      result.paymentPayload,
      result.paymentRequirements,
      result.declaredExtensions,
      { request: context, responseBody },
      usageOf(definition, { query: url.searchParams, body }, data),
    );
    if (!settlement.success) {
      log(`${definition.name}: settlement failed (${settlement.errorReason})`);
      return writeInstructions(response, {
        ...settlement.response,
        headers: { ...settlement.response.headers, ...settlement.headers },
      });
    }
    if (result.paymentRequirements.scheme === BATCH_SETTLEMENT_SCHEME) {
      log(`${definition.name}: charged ${definition.price} atomic USDC on a channel${settlement.transaction ? `, with its deposit, tx ${settlement.transaction}` : ""}`);
    } else log(`${definition.name}: paid ${settlement.amount ?? definition.price} atomic USDC, tx ${settlement.transaction || "none"}`);
    const forgery = receiptForgery;
    const headers = forgery && receiptKey ? await withForgedReceipt(settlement.headers, forgery, receiptKey) : settlement.headers;
    if (forgery) log(`${definition.name}: hands out a forged receipt (${forgery})`);
    response.writeHead(200, {
      ...CORS_HEADERS,
      ...headers,
      "Content-Type": "application/json; charset=utf-8",
    });
    response.end(responseBody);
    countChannelCall(result.paymentRequirements.scheme);
  });

  resourceUrl = `${server.url}${definition.path}`;
  httpServer = new x402HTTPResourceServer(resourceServer, {
    [`${definition.method} ${definition.path}`]: routeConfigFor(definition, { resourceUrl, usdcAddress, payTo, solana: definition.rails?.includes("solana") ? solana : undefined }),
  });
  try {
    await httpServer.initialize();
  } catch (error) {
    await server.close();
    throw error;
  }

  return {
    ...server,
    definition,
    resourceUrl,
    payTo,
    solanaPayTo: definition.rails?.includes("solana") ? solana?.payTo : undefined,
    isOnline: () => online,
    setOnline: (value) => {
      online = value;
    },
    setFailing: (value) => {
      failing = value;
    },
    setAfterSettlement: (mode, meanwhile) => {
      afterSettlement = mode;
      meanwhileSettled = mode ? meanwhile : undefined;
    },
    setClaimedSettlement: (claim) => {
      claimedSettlement = claim;
    },
    setReceiptForgery: (forgery) => {
      if (forgery && !receiptKey) throw new Error(`${definition.name} signs no receipts`);
      receiptForgery = forgery;
    },
    paymentIdentifiers,
    channelActivity: channels ? channels.activity : NO_CHANNEL_ACTIVITY,
  };
}

/** The key a service signs its offers and receipts with: its payee's, when it signs them at all. */
export function receiptKeyOf(definition: ServiceDefinition, payToKey: Hex | undefined): Hex | undefined {
  if (!definition.signsReceipts) return undefined;
  if (!payToKey) throw new Error(`${definition.name} signs receipts, and no key of its payee was given`);
  return payToKey;
}

/** What an `upto` service settles for a paid request: its charge for what the request used. Nothing for `exact`, which settles its price. */
function usageOf(definition: ServiceDefinition, request: ServiceRequest, answer: unknown): { amount: string } | undefined {
  return definition.upto ? { amount: definition.upto.charge(request, answer).toString() } : undefined;
}
