// x402 `exact` on Solana, the Solana rail's first scheme (docs/contract.md, section 10). The x402
// packages' own SVM client builds the transaction (compute budget, the token program's
// TransferChecked of exactly the price from the payer's USDC account to the payee's, a memo; the
// facilitator as fee payer, named by the requirements' `extra.feePayer`); the payer's wallet
// signs it (`solana:signTransaction`), and the facilitator adds its own signature and sends it.
// This server never signs: it checks that what the wallet returns is the quoted transaction,
// byte for byte, with the payer's valid signature, before anything is reserved or sent.
import { x402Client } from "@x402/core/client";
import type { PaymentPayload, PaymentRequirements, SchemeNetworkClient } from "@x402/core/types";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import {
  address as toAddress,
  getBase58Decoder,
  getBase64Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getPublicKeyFromAddress,
  getTransactionDecoder,
  verifySignature,
  type SignatureBytes,
  type TransactionPartialSigner,
} from "@solana/kit";
import { createHash } from "node:crypto";
import { getSolanaTransaction, isSolanaAddress, isSolanaBlockhashValid, usdcAccountOf, type SolanaNetworkConfig } from "@/lib/chain/solana";
import { ChainUnavailableError, type PaymentScheme, type PreparedPayment, type RailEnv, type RequirementVerdict } from "../../rail";
import { paymentNetworkOf, solanaNetworkConfig } from "..";
import { searchPaymentHistory } from "./history-search";
import { checkSolanaRequirement } from "./requirement";

/** How long a quote stays signable: a blockhash lives about a minute (150 blocks of 400 ms). */
const BLOCKHASH_LIFETIME_SECONDS = 60;

const base64 = { decode: (text: string) => Uint8Array.from(getBase64Encoder().encode(text)), encode: (bytes: Uint8Array) => getBase64Decoder().decode(bytes) };

export function createExactSolanaScheme(env: RailEnv): PaymentScheme {
  const configOf = solanaNetworkConfig(env);
  const chain = async <T>(read: () => Promise<T>): Promise<T> => {
    try {
      return await read();
    } catch (error) {
      throw new ChainUnavailableError("Solana's RPC did not answer.", { cause: error });
    }
  };

  return {
    scheme: "exact",
    check(requirements: PaymentRequirements, x402Version, payer): RequirementVerdict {
      const check = checkSolanaRequirement(requirements, env, { ...(x402Version === undefined ? {} : { x402Version }), ...(payer === undefined ? {} : { payer }) });
      if (!check.payable) return check;
      return { payable: true, requirements, network: paymentNetworkOf(check.network), amount: check.amount, asset: check.asset, payTo: check.payTo };
    },
    async prepare({ paymentRequired, requirement, payer }) {
      const config = configOf(requirement.network);
      if (!isSolanaAddress(payer)) throw new Error("the payer is not a Solana address");
      // The payer's signature comes from the person's wallet: the x402 client's signer here only
      // leaves its place empty, and the transaction is captured as the client built it.
      const signer: TransactionPartialSigner = {
        address: toAddress(payer),
        signTransactions: async (transactions) => transactions.map(() => ({ [toAddress(payer)]: new Uint8Array(64) as SignatureBytes })),
      };
      const quotedAt = Math.floor(Date.now() / 1000);
      const scheme = new ExactSvmScheme(signer, { rpcUrl: requireRpc(config) });
      // The transaction's blockhash is this server's own, fresh from the chain, whatever the
      // requirements' `extra.recentBlockhash` says: a service's blockhash would set how long the
      // person has to approve (one near its end, or already past it) and, being the same in
      // every quote, make two quotes alike in every byte. The payload's `accepted` still echoes
      // the requirements as the service sent them (its x402 server leaves these two fields out
      // when it compares them).
      // The memo is each quote's nonce: without a seller's `extra.memo`, the x402 client writes
      // 16 random bytes (as hex) of its own choosing, so two quotes of the same transfer within
      // one blockhash still differ. A seller's fixed memo (the facilitator checks it verbatim)
      // leaves only the blockhash to tell two quotes apart: the core refuses a quote, or an
      // approval, whose message is an earlier payment's rather than answer it as that payment.
      const ownLifetime: SchemeNetworkClient = {
        scheme: scheme.scheme,
        createPaymentPayload: (version, requirements) => scheme.createPaymentPayload(version, withoutSellerLifetime(requirements)),
      };
      const client = x402Client.fromConfig({
        schemes: [{ network: "solana:*", client: ownLifetime }],
        spendControls: false,
        paymentRequirementsSelector: () => requirement.requirements,
      });
      const unsignedPayload = await chain(() => client.createPaymentPayload(paymentRequired));
      const unsigned = (unsignedPayload.payload as { transaction?: unknown }).transaction;
      if (typeof unsigned !== "string") throw new Error("the x402 client built a payload without a transaction");
      const { messageBytes, blockhash } = readTransaction(unsigned);
      // The transfer of exactly the price can land once, while its blockhash lives; the instrument
      // is the quoted message (its hash) and that blockhash.
      return {
        exposure: {
          amount: requirement.amount,
          instrument: `${messageHash(messageBytes)}.${blockhash}`,
          until: quotedAt + BLOCKHASH_LIFETIME_SECONDS,
        },
        toSign: [{ kind: "transaction", transaction: unsigned, purpose: "the payment", answeredAs: "transaction" }],
        unsignedPayload,
      } satisfies PreparedPayment;
    },
    async verify({ payer, prepared, signed }) {
      const unsigned = transactionOf(prepared);
      const [answer] = signed;
      if (unsigned === undefined || answer === undefined || !isSolanaAddress(payer)) return { valid: false };
      let returned: ReturnType<typeof readTransaction>;
      try {
        returned = readTransaction(answer);
      } catch {
        return { valid: false, why: { message: "The signed transaction is not a Solana transaction (its base64 does not decode).", field: "is not a base64 Solana transaction" } };
      }
      const quoted = readTransaction(unsigned);
      if (!sameBytes(returned.messageBytes, quoted.messageBytes)) {
        const added = returned.instructions - quoted.instructions;
        return {
          valid: false,
          why: added > 0
            ? {
                message: `Your wallet added ${added} instruction${added === 1 ? "" : "s"} to the transaction before signing it (some wallets, Phantom among them, add safety instructions). This agent sends only the exact quoted transfer, so it was not sent. Approve with a wallet that signs the transaction as it is.`,
                field: "the wallet added instructions to the quoted transaction",
              }
            : { message: "The signed transaction is not the quoted one: its amount, payee, fee payer, blockhash or instructions were changed.", field: "is not the quoted transaction" },
        };
      }
      const signature = returned.signatures[payer];
      if (!signature) return { valid: false };
      const key = await getPublicKeyFromAddress(toAddress(payer));
      return (await verifySignature(key, signature, returned.messageBytes)) ? { valid: true } : { valid: false };
    },
    complete(prepared, signed): PaymentPayload {
      const [transaction] = signed;
      if (transaction === undefined) throw new Error("a Solana payment without its signed transaction");
      return { ...prepared.unsignedPayload, payload: { ...prepared.unsignedPayload.payload, transaction } };
    },
    async paymentState({ network, payer, instrument, from, claimed }) {
      const config = configOf(network);
      const [hash, blockhash = ""] = instrument.split(".");
      // Whether a landed transaction is this payment: exactly the quoted message, and it succeeded.
      // Undefined when the node lists it and cannot show it.
      const isPayment = async (signature: string) => {
        const landed = await getSolanaTransaction({ network: config, signature });
        return landed ? landed.succeeded && messageHash(landed.messageBytes) === hash : undefined;
      };
      // The transaction's id is its fee payer's signature, made by the facilitator as it sends
      // it: the one the service names is asked first (one read when it is true).
      const named = claimed ? await isPayment(claimed) : false;
      if (claimed && named) return { state: "used", txHash: claimed };
      // Whether the blockhash still lives is asked before the search, not after: one already
      // expired then can land nothing while the search runs, so a search that reaches the slot
      // of sending and misses the payment proves it never landed. Asked after, a transaction
      // landing between the two would be missed and released.
      const expired = !(await isSolanaBlockhashValid({ network: config, blockhash, minContextSlot: from }));
      const search = await searchPaymentHistory({
        network: config,
        account: await usdcAccountOf(config, payer),
        from,
        isPayment: (signature) => (signature === claimed && named === false ? Promise.resolve(false) : isPayment(signature)),
      });
      if (search.found !== undefined) return { state: "used", txHash: search.found };
      // Not seen, without having seen everything since it was sent (no slot recorded, more
      // history than the search reads, a transaction the node would not show): not known.
      if (!search.complete) throw new ChainUnavailableError("The payer's history on Solana could not be searched back to when the payment was sent.");
      // Not landed: it still can while its blockhash lives; after, never.
      return { state: "unused", expired };
    },
  };
}

/** The requirements without the lifetime a service chose for the transaction (its blockhash and that blockhash's last block). */
function withoutSellerLifetime(requirements: PaymentRequirements): PaymentRequirements {
  if (!requirements.extra) return requirements;
  const { recentBlockhash: _blockhash, lastValidBlockHeight: _lastValid, ...extra } = requirements.extra;
  return { ...requirements, extra };
}

function requireRpc(config: SolanaNetworkConfig): string {
  if (!config.rpcUrl) throw new ChainUnavailableError(`No RPC_URL_${config.reference} is configured.`);
  return config.rpcUrl;
}

/** A wire transaction's message, its blockhash, its instruction count and its signatures by signer. */
function readTransaction(wire: string) {
  const transaction = getTransactionDecoder().decode(base64.decode(wire));
  const messageBytes = Uint8Array.from(transaction.messageBytes);
  const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
  const signatures: Record<string, SignatureBytes> = {};
  for (const [signer, signature] of Object.entries(transaction.signatures)) {
    if (signature?.some((byte) => byte !== 0)) signatures[signer] = signature;
  }
  return { messageBytes, blockhash: String(message.lifetimeToken), instructions: message.instructions.length, signatures };
}

/** One payment's message, as an id: sha256, base58. */
function messageHash(bytes: Uint8Array): string {
  return getBase58Decoder().decode(createHash("sha256").update(bytes).digest());
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

/** The transaction a Solana payment asks the wallet to sign (base64), as its prepared payment holds it. */
function transactionOf(prepared: PreparedPayment): string | undefined {
  const [request] = prepared.toSign;
  return request?.kind === "transaction" ? request.transaction : undefined;
}
