// What is signed for a pay-as-you-go channel (x402 `batch-settlement`) on EVM, built by the real
// x402 client pieces (@x402/evm's batch-settlement client): to open one, the payer's wallet signs
// an EIP-3009 `receiveWithAuthorization` of the deposit to the scheme's deposit collector, and the
// channel's key (its `payerAuthorizer`, held by the page, never the server) signs the first
// call's cumulative voucher; every later call is one voucher, signed by that key alone. As for
// `exact` (../exact/prepare.ts), the signers here only capture the EIP-712 typed data: the
// signatures come from the browser, and the payload with them put in is exactly what the x402
// client would have sent. The deposit's signing window is capped as every authorization's is.
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import {
  buildChannelConfig,
  computeChannelId,
  createBatchSettlementEIP3009DepositPayload,
  InMemoryClientChannelStorage,
  signVoucher,
} from "@x402/evm/batch-settlement/client";
import { getAddress, type Hex } from "viem";
import type { TypedDataForWallet } from "@/lib/chain/typed-data";
import { MAX_AUTHORIZATION_SECONDS, type PreparedPayment, type WalletRequest } from "../../rail";
import { UNSIGNED } from "../exact/prepare";

/** A channel's configuration as the scheme names it; its id is the EIP-712 hash of it on its chain. */
export type ChannelConfig = ReturnType<typeof buildChannelConfig>;

type TypedDataAsked = { domain: Record<string, unknown>; types: Record<string, unknown>; primaryType: string; message: Record<string, unknown> };

/** A signer that keeps what it is asked to sign, for the browser to sign, and answers the stand-in. */
function capturingSigner(address: string) {
  const asked: TypedDataAsked[] = [];
  return {
    asked,
    signer: {
      address: getAddress(address),
      async signTypedData(data: TypedDataAsked): Promise<Hex> {
        asked.push(data);
        return UNSIGNED;
      },
      // The deposit's sizing reads the chain only through the scheme class, which this does not use.
      async readContract(): Promise<never> {
        throw new Error("the channel's payload is built without reading the chain");
      },
    },
  };
}

/** The channel this payer and channel key have with the requirement's service: its configuration and id. */
export function channelFor(requirements: PaymentRequirements, { payer, channelKey, salt }: { payer: string; channelKey: string; salt: Hex }): { config: ChannelConfig; channelId: Hex } {
  const { signer } = capturingSigner(payer);
  const config = buildChannelConfig({ signer, storage: new InMemoryClientChannelStorage(), salt, payerAuthorizer: getAddress(channelKey) }, requirements);
  return { config, channelId: computeChannelId(config, requirements.network) };
}

/** What the wallet signs to open a channel (the deposit), then what the channel key signs (the first voucher). */
export type ChannelOpening = PreparedPayment & { channelId: Hex; config: ChannelConfig };

/**
 * Opens a channel: the deposit of `deposit` atomic units, and the first call's voucher of
 * `price` (its cumulative maximum). The exposure is the deposit: it can move once the wallet
 * signs, until the authorization's validBefore; once it has, it stays counted while the channel
 * can be claimed (the ledger's channel, until its close).
 */
export async function prepareChannelOpening({
  requirements,
  payer,
  channelKey,
  salt,
  deposit,
  x402Version = 2,
}: {
  requirements: PaymentRequirements;
  payer: string;
  channelKey: string;
  salt: Hex;
  deposit: bigint;
  x402Version?: number;
}): Promise<ChannelOpening> {
  const price = BigInt(requirements.amount);
  if (deposit < price) throw new Error("a channel's deposit below its first call");
  const wallet = capturingSigner(payer);
  const key = capturingSigner(channelKey);
  const { config, channelId } = channelFor(requirements, { payer, channelKey, salt });
  const capped = { ...requirements, maxTimeoutSeconds: Math.min(Math.max(1, Math.floor(Number(requirements.maxTimeoutSeconds) || MAX_AUTHORIZATION_SECONDS)), MAX_AUTHORIZATION_SECONDS) };
  const quotedAt = Math.floor(Date.now() / 1000);
  const built = await createBatchSettlementEIP3009DepositPayload(wallet.signer, x402Version, capped, config, deposit.toString(), price.toString(), key.signer);
  const [depositTypedData] = wallet.asked;
  const [voucherTypedData] = key.asked;
  if (!depositTypedData || !voucherTypedData) throw new Error("the x402 client built a channel deposit without its typed data");
  const validBefore = Number(depositTypedData.message.validBefore);
  if (!Number.isSafeInteger(validBefore) || validBefore > quotedAt + MAX_AUTHORIZATION_SECONDS || validBefore < quotedAt) {
    throw new Error("the x402 client built a deposit outside the allowed window");
  }
  const unsignedPayload: PaymentPayload = { x402Version: built.x402Version, payload: built.payload, accepted: requirements, ...("extensions" in built && built.extensions ? { extensions: built.extensions } : {}) };
  return {
    channelId,
    config,
    exposure: { amount: deposit, instrument: String(depositTypedData.message.nonce), until: validBefore },
    toSign: [
      { kind: "typed-data", typedData: forWallet(depositTypedData), purpose: "the deposit", answeredAs: "signature" },
      { kind: "typed-data", typedData: forWallet(voucherTypedData), purpose: "the first call's voucher", signer: "channel-key", answeredAs: "voucherSignature" },
    ],
    unsignedPayload,
  };
}

/** One call on an open channel: the voucher of cumulative `cumulative`, signed by the channel key alone. */
export async function prepareVoucher({
  requirements,
  config,
  cumulative,
  x402Version = 2,
}: {
  requirements: PaymentRequirements;
  config: ChannelConfig;
  cumulative: bigint;
  x402Version?: number;
}): Promise<{ toSign: [WalletRequest]; unsignedPayload: PaymentPayload }> {
  const key = capturingSigner(config.payerAuthorizer);
  const channelId = computeChannelId(config, requirements.network);
  const voucher = await signVoucher(key.signer, channelId, cumulative.toString(), requirements.network);
  const [typedData] = key.asked;
  if (!typedData) throw new Error("the x402 client built a voucher without its typed data");
  return {
    toSign: [{ kind: "typed-data", typedData: forWallet(typedData), purpose: "this call's voucher", signer: "channel-key", answeredAs: "voucherSignature" }],
    unsignedPayload: { x402Version, payload: { type: "voucher", channelConfig: config, voucher }, accepted: requirements },
  };
}

/** The payload with the signatures in place of the stand-ins: a deposit's (the wallet's, then the channel key's), or a voucher's (the key's). */
export function completeChannelPayload(unsigned: PaymentPayload, signed: readonly (string | undefined)[]): PaymentPayload {
  const payload = unsigned.payload as Record<string, unknown> & { voucher: Record<string, unknown>; deposit?: { amount: string; authorization: { erc3009Authorization: Record<string, unknown> } } };
  const [first, second] = signed;
  if (payload.deposit) {
    if (first === undefined || second === undefined) throw new Error("a channel's deposit without both its signatures");
    const { deposit } = payload;
    return {
      ...unsigned,
      payload: {
        ...payload,
        deposit: { ...deposit, authorization: { erc3009Authorization: { ...deposit.authorization.erc3009Authorization, signature: first } } },
        voucher: { ...payload.voucher, signature: second },
      },
    };
  }
  if (first === undefined) throw new Error("a voucher without its signature");
  return { ...unsigned, payload: { ...payload, voucher: { ...payload.voucher, signature: first } } };
}

function forWallet(data: TypedDataAsked): TypedDataForWallet {
  const message = Object.fromEntries(Object.entries(data.message).map(([name, value]) => [name, typeof value === "bigint" ? value.toString() : String(value)]));
  return { domain: data.domain as TypedDataForWallet["domain"], types: data.types as TypedDataForWallet["types"], primaryType: data.primaryType, message };
}

/**
 * Closing a channel by a cooperative refund: a voucher of exactly what was charged (`charged`,
 * the ledger's figure), signed by the channel key, which the service's authorizer countersigns
 * and its facilitator submits; what the deposit holds past it comes back to the payer.
 */
export async function prepareRefund({
  requirements,
  config,
  charged,
}: {
  requirements: PaymentRequirements;
  config: ChannelConfig;
  charged: bigint;
}): Promise<{ toSign: [WalletRequest]; unsignedPayload: PaymentPayload }> {
  const key = capturingSigner(config.payerAuthorizer);
  const channelId = computeChannelId(config, requirements.network);
  const voucher = await signVoucher(key.signer, channelId, charged.toString(), requirements.network);
  const [typedData] = key.asked;
  if (!typedData) throw new Error("the x402 client built a refund without its typed data");
  return {
    toSign: [{ kind: "typed-data", typedData: forWallet(typedData), purpose: "closing the channel", signer: "channel-key", answeredAs: "voucherSignature" }],
    unsignedPayload: { x402Version: 2, payload: { type: "refund", channelConfig: config, voucher }, accepted: requirements },
  };
}
