// x402 `batch-settlement` on EVM, the first scheme with state between payments: a pay-as-you-go
// channel. The wallet signs one EIP-3009 `receiveWithAuthorization` of a deposit into the
// scheme's channel contract; every call then carries a cumulative voucher signed by the channel's
// `payerAuthorizer`, a key the page holds (never the server); the service claims vouchers in
// batches, and what it did not claim comes back (a cooperative refund, or the payer's withdrawal
// after the channel's delay). The payloads come from @x402/evm's batch-settlement client
// (./prepare.ts); the deposit's authorization is asked about on chain as `exact`'s is (the same
// USDC `authorizationState`), and the channel itself through the contract's reads (./chain.ts).
import type { PaymentRequirements } from "@x402/core/types";
import { BATCH_SETTLEMENT_ADDRESS } from "@x402/evm";
import { getAddress, keccak256, recoverTypedDataAddress, toHex, type Hex } from "viem";
import { publicClientFor } from "@/lib/chain/clients";
import { typedDataMessage, type TypedDataForWallet } from "@/lib/chain/typed-data";
import { MAX_AUTHORIZATION_SECONDS, type ApprovalVerdict, type ChannelConfig, type PaymentScheme, type PreparedPayment, type RailEnv, type RequirementVerdict } from "../../rail";
import { evmNetworkConfig, evmPayer, paymentNetworkOf } from "..";
import { createExactEvmScheme } from "../exact";
import { HEX_SIGNATURE, verifyEvmSignature } from "../verify";
import { channelHistory, readChannel, withdrawalCalls } from "./chain";
import { completeChannelPayload, prepareChannelOpening, prepareRefund, prepareVoucher, type ChannelConfig as PackageChannelConfig } from "./prepare";
import { checkChannelRequirement } from "./requirement";

export function createChannelEvmScheme(env: RailEnv): PaymentScheme {
  const configOf = evmNetworkConfig(env);
  // The deposit is an EIP-3009 authorization of the wallet's: the chain is asked about it as about `exact`'s.
  const exact = createExactEvmScheme(env);
  const check = (requirements: PaymentRequirements, x402Version?: number) => checkChannelRequirement(requirements, env, x402Version === undefined ? {} : { x402Version });
  const readerOf = (network: Parameters<typeof configOf>[0]) => publicClientFor(configOf(network));
  return {
    scheme: "batch-settlement",
    check(requirements, x402Version): RequirementVerdict {
      const checked = check(requirements, x402Version);
      if (!checked.payable) return checked;
      return { payable: true, requirements: checked.requirements, network: paymentNetworkOf(checked.network), amount: checked.amount, asset: checked.asset, payTo: checked.payTo };
    },
    channel: {
      terms({ requirements }) {
        const checked = check(requirements, 2);
        if (!checked.payable) throw new Error(`not a channel this scheme pays: ${checked.reason}`);
        return { withdrawDelaySeconds: checked.withdrawDelay, suggestedDeposit: checked.suggestedDeposit };
      },
      async open({ requirement, x402Version, payer, channelKey, deposit }) {
        // A fresh salt per opening: each deposit is a channel of its own, closed once.
        const salt = keccak256(toHex(crypto.getRandomValues(new Uint8Array(32))));
        const opening = await prepareChannelOpening({ requirements: requirement.requirements, payer: evmPayer(payer), channelKey, salt, deposit, x402Version });
        return { ...opening, config: { ...opening.config } as ChannelConfig };
      },
      async call({ requirement, x402Version, config, cumulative }) {
        const voucher = await prepareVoucher({ requirements: requirement.requirements, config: config as PackageChannelConfig, cumulative, x402Version });
        return { ...voucher, exposure: voucherExposure(voucher.unsignedPayload, cumulative) };
      },
      async refund({ requirements, config, charged }) {
        const refund = await prepareRefund({ requirements, config: config as PackageChannelConfig, charged });
        return { ...refund, exposure: voucherExposure(refund.unsignedPayload, charged) };
      },
      async read({ network, channelId }) {
        const reader = readerOf(network);
        const block = await reader.getBlock({ blockTag: "latest" });
        return { ...(await readChannel(reader, channelId as Hex, { blockNumber: block.number })), chainTime: Number(block.timestamp) };
      },
      async returned({ network, channelId, fromBlock }) {
        return (await channelHistory(readerOf(network), channelId as Hex, { fromBlock, rangeBlocks: BigInt(env.CHAIN_LOG_RANGE_BLOCKS) })).returned;
      },
      configOf(payload) {
        return channelConfigOf({ unsignedPayload: payload });
      },
      withdrawal({ config, amount }) {
        return { contract: BATCH_SETTLEMENT_ADDRESS, ...withdrawalCalls(config, amount) };
      },
    },
    prepare() {
      return Promise.reject(new Error("a channel is quoted through its opening or its call, never prepare"));
    },
    async verify({ network, payer, amount, prepared, signed }): Promise<ApprovalVerdict> {
      const config = channelConfigOf(prepared);
      const keyRequest = prepared.toSign.findIndex((request) => request.signer === "channel-key");
      // Every voucher is the channel key's: recovered, it must be the channel's payerAuthorizer.
      const voucher = prepared.toSign[keyRequest];
      const keySigned = signed[keyRequest];
      if (voucher?.kind !== "typed-data" || keySigned === undefined || !HEX_SIGNATURE.test(keySigned)) return { valid: false };
      const typedData = voucher.typedData as TypedDataForWallet;
      const { EIP712Domain: _domain, ...types } = typedData.types;
      const signer = await recoverTypedDataAddress({ domain: typedData.domain, types, primaryType: typedData.primaryType, message: typedDataMessage(typedData), signature: keySigned as Hex }).catch(() => undefined);
      if (!signer || getAddress(signer) !== getAddress(config.payerAuthorizer)) {
        return { valid: false, why: { message: "The voucher is not signed by this channel's key.", field: "is not the channel key's signature of the voucher", request: keyRequest } };
      }
      if (keyRequest === 0) return { valid: true };
      // An opening: the wallet's own signature of the deposit's authorization, of the quoted amount and nonce.
      const deposit = prepared.toSign[0];
      const walletSigned = signed[0];
      if (deposit?.kind !== "typed-data" || walletSigned === undefined || !HEX_SIGNATURE.test(walletSigned)) return { valid: false, why: { message: "The deposit is not signed.", field: "is missing", request: 0 } };
      const depositData = deposit.typedData as TypedDataForWallet;
      const message = typedDataMessage(depositData);
      if (String(message.nonce).toLowerCase() !== prepared.exposure.instrument.toLowerCase() || BigInt(message.value ?? -1) !== amount) return { valid: false, why: { message: "The deposit is not the one quoted.", field: "is not the quoted deposit", request: 0 } };
      const verdict = await verifyEvmSignature({ network: configOf(network), address: evmPayer(payer), typedData: { ...depositData, message }, signature: walletSigned as Hex });
      return verdict.valid ? { valid: true } : { valid: false, why: { message: "The deposit is not the connected wallet's signature.", field: "does not match the wallet and the quoted deposit", request: 0 } };
    },
    complete(prepared, signed) {
      return completeChannelPayload(prepared.unsignedPayload, signed);
    },
    paymentState(parameters) {
      return exact.paymentState(parameters);
    },
  };
}

/** The channel a prepared payment is for, from its payload. */
export function channelConfigOf(prepared: Pick<PreparedPayment, "unsignedPayload">): ChannelConfig {
  const payload = prepared.unsignedPayload.payload as { channelConfig?: ChannelConfig };
  if (!payload.channelConfig) throw new Error("a channel payment without its channel");
  return payload.channelConfig;
}

/**
 * A voucher moves nothing the deposit did not already count: its exposure is nothing new, its
 * instrument the voucher itself (the channel and its cumulative amount), valid while a quote is.
 */
function voucherExposure(unsigned: PreparedPayment["unsignedPayload"], cumulative: bigint): PreparedPayment["exposure"] {
  const { voucher } = unsigned.payload as { voucher: { channelId: string } };
  return { amount: 0n, instrument: `${voucher.channelId}:${cumulative}`, until: Math.floor(Date.now() / 1000) + MAX_AUTHORIZATION_SECONDS };
}
