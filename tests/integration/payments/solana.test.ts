// Paying on Solana through POST /api/chat (docs/contract.md, section 10), on the sandbox's local Solana: the
// real @x402/svm client and facilitator, USDC at its mint, a PGlite ledger, and a fresh key
// signing the quoted transaction as a person's Solana wallet would. The model is scripted.
import { sign as signEd25519 } from "node:crypto";
import {
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Encoder,
  getBase64Decoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getCompiledTransactionMessageEncoder,
  getTransactionDecoder,
  getTransactionEncoder,
  partiallySignTransaction,
  pipe,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstructionAsync, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token";
import { decodePaymentRequiredHeader, encodePaymentRequiredHeader } from "@x402/core/http";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createChatTools } from "@/lib/chat/tools";
import { findSolanaNetwork } from "@/lib/chain/solana";
import { getTransactionSummary } from "@/lib/chain/transaction";
import { verifyApproval } from "@/lib/payments/approval-token";
import { countedSince, findPayment, reservePayment } from "@/lib/payments/ledger";
import { sweepUnfinishedPayments } from "@/lib/payments/sweep";
import type { PaymentStatus } from "@/lib/protocol/lines";
import { startSandbox, type Sandbox } from "@/sandbox";
import { newSolanaKey, type SolanaKey } from "@/sandbox/solana";
import { collectLines, createTestChat, type TestChat } from "@/tests/helpers/chat";
import { startFaultProxy, type ProxiedRequest } from "@/tests/helpers/fault-proxy";
import { startLoopbackServer } from "@/tests/integration/net/loopback-server";
import {
  eventually,
  expectNextQuoteRefused,
  finishOf,
  fortuneOracle,
  generousLimits,
  newPayer,
  payingModel,
  paymentsOf,
  sandboxEnv,
  sandboxService,
  signQuote,
  steps,
  usdcBalance,
  type Quoted,
} from "@/tests/helpers/paid-chat";

let sandbox: Sandbox;
let chat: TestChat;

beforeAll(async () => {
  sandbox = await startSandbox({ randomPorts: true, quiet: true, writeInfoFile: false });
  chat = await createTestChat({
    tools: createChatTools,
    env: sandboxEnv(sandbox),
    model: payingModel(sandboxService(sandbox, "news-headlines").url, { topic: "technology", limit: "2" }),
  });
});
afterAll(async () => {
  await chat?.close();
  await sandbox?.stop();
});

async function solanaPayer(usdc = 1_000_000n): Promise<SolanaKey> {
  const key = newSolanaKey();
  await sandbox.solana.fund({ to: key.address, usdc });
  return key;
}

/** Request A with the wallets a person connected: the quote awaiting the wallet. */
async function quoteFor(wallets: { walletAddress?: string; solanaAddress?: string }, limits: Record<string, string> = generousLimits, target: TestChat = chat): Promise<Quoted> {
  const body = { messages: [{ role: "user", content: "Technology headlines, please" }], ...wallets, spendingLimits: limits };
  const lines = await collectLines(await target.post(body));
  const awaiting = paymentsOf(lines).find((status) => status.status === "awaiting-signature");
  if (!awaiting) throw new Error(`no quote: ${JSON.stringify(lines)}`);
  return { status: awaiting, body };
}

/** Request B: the same conversation, with the transaction the wallet signed. */
const approve = (quoted: Quoted, transaction: string, target: TestChat = chat) =>
  target.post({ ...quoted.body, payment: { paymentId: quoted.status.paymentId, token: quoted.status.approval?.token ?? "", transaction } });

const signed = (payer: SolanaKey, quoted: Quoted) => sandbox.solana.signAs(payer, quoted.status.approval?.transaction ?? "");

type CompiledMessage = ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>["decode"]>;

/** The quoted transaction with its message changed by `change` (signatures emptied), as base64. */
function tampered(quoted: Quoted, change: (message: CompiledMessage) => CompiledMessage): string {
  const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(quoted.status.approval?.transaction ?? ""));
  const message = change(getCompiledTransactionMessageDecoder().decode(transaction.messageBytes));
  const messageBytes = getCompiledTransactionMessageEncoder().encode(message);
  const signatures = Object.fromEntries(Object.keys(transaction.signatures).map((key) => [key, null]));
  return getBase64Decoder().decode(getTransactionEncoder().encode({ messageBytes, signatures } as never));
}

/** The index of the instruction run by `program` (by its address). */
const instructionOf = (message: CompiledMessage, program: string) =>
  message.instructions.findIndex((instruction) => String(message.staticAccounts[instruction.programAddressIndex]) === program);
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const MEMO_PROGRAM = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr";

describe("paying on Solana", () => {
  test("an outside client with only sandbox.json: @solana/kit funds a fresh wallet from the funder's USDC and waits over WebSocket, then signs the quote itself and pays", async () => {
    const { rpcUrl, usdc, funder: funderKey } = sandbox.info.solana;
    const rpc = createSolanaRpc(rpcUrl);
    const rpcSubscriptions = createSolanaRpcSubscriptions(rpcUrl.replace(/^http/, "ws"));
    const funder = await createKeyPairSignerFromBytes(new Uint8Array(getBase58Encoder().encode(funderKey.secretKey)));
    const person = await generateKeyPairSigner();
    const mint = address(usdc.mint);
    const accountOf = async (owner: string) => (await findAssociatedTokenPda({ mint, owner: address(owner), tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];
    const [funderAccount, personAccount] = await Promise.all([accountOf(funder.address), accountOf(person.address)]);
    const createAccount = await getCreateAssociatedTokenIdempotentInstructionAsync({ payer: funder, owner: person.address, mint });
    const { value: blockhash } = await rpc.getLatestBlockhash().send();
    const funding = await signTransactionMessageWithSigners(
      pipe(
        createTransactionMessage({ version: 0 }),
        (draft) => setTransactionMessageFeePayerSigner(funder, draft),
        (draft) => setTransactionMessageLifetimeUsingBlockhash(blockhash, draft),
        (draft) =>
          appendTransactionMessageInstructions(
            [
              createAccount,
              getTransferCheckedInstruction({ source: funderAccount, mint, destination: personAccount, authority: funder, amount: 50_000n, decimals: usdc.decimals }),
            ],
            draft,
          ),
      ),
    );
    await sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions })(funding as never, { commitment: "confirmed" });
    const { value: funded } = await rpc.getTokenAccountBalance(personAccount).send();
    expect(funded.amount).toBe("50000");

    const quoted = await quoteFor({ solanaAddress: person.address });
    const unsigned = getTransactionDecoder().decode(getBase64Encoder().encode(quoted.status.approval?.transaction ?? ""));
    const transaction = getBase64EncodedWireTransaction(await partiallySignTransaction([person.keyPair], unsigned));
    const lines = await collectLines(await approve(quoted, transaction));
    expect(paymentsOf(lines).at(-1)?.status).toBe("delivered");
    const { value: after } = await rpc.getTokenAccountBalance(personAccount).send();
    expect(BigInt(after.amount)).toBe(50_000n - BigInt(sandboxService(sandbox, "news-headlines").priceAtomic));
    expect(finishOf(lines)?.txHash).toBeTruthy();
  });

  test("a person with a Solana wallet approves the quoted transfer; it lands, the payee gets the price, and the ledger has its signature", async () => {
    const payer = await solanaPayer();
    const news = sandboxService(sandbox, "news-headlines");
    const quoted = await quoteFor({ solanaAddress: payer.address });
    expect(quoted.status).toMatchObject({
      network: sandbox.info.solana.network,
      payTo: news.solanaPayTo,
      amount: { serviceFee: news.price, gasFee: "0", total: news.price, currency: "USDC" },
      asset: { symbol: "USDC", address: sandbox.info.solana.usdc.mint, decimals: 6 },
    });
    expect(quoted.status.approval?.transaction).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(quoted.status.approval?.typedData).toBeUndefined();
    const before = sandbox.solana.usdcBalance(payer.address);
    const payeeBefore = sandbox.solana.usdcBalance(news.solanaPayTo ?? "");

    const response = await approve(quoted, signed(payer, quoted));
    expect(response.status).toBe(200);
    const lines = await collectLines(response);
    expect(paymentsOf(lines).map((status) => status.status)).toEqual(["submitted", "confirmed", "delivered"]);
    const done = finishOf(lines);
    expect(done).toMatchObject({ finishReason: "payment-complete", network: sandbox.info.solana.network });
    // A Solana transaction's id: the fee payer's signature, 64 bytes in base58.
    expect(done?.txHash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/);

    const price = BigInt(news.priceAtomic);
    expect(sandbox.solana.usdcBalance(payer.address)).toBe(before - price);
    expect(sandbox.solana.usdcBalance(news.solanaPayTo ?? "")).toBe(payeeBefore + price);
    const record = await findPayment(chat.db, quoted.status.paymentId);
    expect(record).toMatchObject({ status: "settled", txHash: done?.txHash, amount: price, wallet: payer.address });

    // The transaction's link is the app's own page (no public explorer shows this chain); it reads the chain.
    expect(done?.explorerUrl).toBe(`/tx/${sandbox.info.solana.network}/${done?.txHash}`);
    const network = findSolanaNetwork(sandbox.info.solana.network, chat.env);
    const summary = network ? await getTransactionSummary({ network, hash: String(done?.txHash) }) : undefined;
    expect(summary).toMatchObject({
      status: "success",
      landed: { unit: "Slot" },
      from: sandbox.info.solana.feePayer,
      usdcTransfers: [{ from: payer.address, to: news.solanaPayTo, value: price }],
    });
  });

  test("the same signed transaction sent again is told what happened, and nothing moves twice", async () => {
    const payer = await solanaPayer();
    const quoted = await quoteFor({ solanaAddress: payer.address });
    const transaction = signed(payer, quoted);
    const first = finishOf(await collectLines(await approve(quoted, transaction)));
    const after = sandbox.solana.usdcBalance(payer.address);

    const again = await approve(quoted, transaction);
    expect(again.status).toBe(200);
    const lines = await collectLines(again);
    expect(finishOf(lines)).toMatchObject({ finishReason: "payment-complete", txHash: first?.txHash });
    expect(sandbox.solana.usdcBalance(payer.address)).toBe(after);
  });

  test("a signed transaction other than the one quoted under the token is refused before anything is sent", async () => {
    const payer = await solanaPayer();
    const quoted = await quoteFor({ solanaAddress: payer.address });
    const other = await quoteFor({ solanaAddress: payer.address });
    const before = sandbox.solana.usdcBalance(payer.address);
    // The payer's own signature, on a transaction quoted under another token.
    const response = await approve(quoted, signed(payer, other));
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({ code: "bad-request" });
    expect(body.error.message).toMatch(/transaction/i);
    expect(sandbox.solana.usdcBalance(payer.address)).toBe(before);
    // Nothing was reserved: the ledger never saw it.
    expect(await findPayment(chat.db, quoted.status.paymentId)).toBeUndefined();
  });

  test("a transfer changed after the quote (another amount, another payee) and signed by the payer is refused, nothing sent", async () => {
    for (const change of [
      // TransferChecked's data: [12, amount (u64 LE), decimals]: twice the price.
      (message: CompiledMessage): CompiledMessage => {
        const index = instructionOf(message, TOKEN_PROGRAM);
        if (index < 0) throw new Error("the quoted transaction has no token transfer");
        const instructions = message.instructions.map((instruction, at) => {
          if (at !== index || !instruction.data) return instruction;
          const data = Uint8Array.from(instruction.data);
          const view = new DataView(data.buffer);
          view.setBigUint64(1, view.getBigUint64(1, true) * 2n, true);
          return { ...instruction, data };
        });
        return { ...message, instructions };
      },
      // The payee's token account swapped for the payer's own.
      (message: CompiledMessage): CompiledMessage => {
        const index = instructionOf(message, TOKEN_PROGRAM);
        const instructions = message.instructions.map((instruction, at) => {
          if (at !== index || !instruction.accountIndices) return instruction;
          const [source, mint, , owner] = instruction.accountIndices;
          return { ...instruction, accountIndices: [source ?? 0, mint ?? 0, source ?? 0, owner ?? 0] };
        });
        return { ...message, instructions };
      },
    ]) {
      const payer = await solanaPayer();
      const quoted = await quoteFor({ solanaAddress: payer.address });
      const response = await approve(quoted, sandbox.solana.signAs(payer, tampered(quoted, change)));
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error).toMatchObject({ code: "bad-request", message: expect.stringMatching(/not the quoted one/) });
      expect(sandbox.solana.usdcBalance(payer.address)).toBe(1_000_000n);
      expect(await findPayment(chat.db, quoted.status.paymentId)).toBeUndefined();
    }
  });

  test("a wallet that adds an instruction before signing gets a refusal that says so, and nothing is sent", async () => {
    const payer = await solanaPayer();
    const quoted = await quoteFor({ solanaAddress: payer.address });
    // A second memo, as a wallet's own "safety" instruction would be.
    const withExtra = tampered(quoted, (message) => {
      const memo = message.instructions[instructionOf(message, MEMO_PROGRAM)];
      if (!memo) throw new Error("the quoted transaction has no memo");
      return { ...message, instructions: [...message.instructions, { ...memo, data: new TextEncoder().encode("wallet guard") }] };
    });
    const response = await approve(quoted, sandbox.solana.signAs(payer, withExtra));
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("bad-request");
    expect(body.error.message).toMatch(/wallet added 1 instruction/);
    expect(sandbox.solana.usdcBalance(payer.address)).toBe(1_000_000n);
  });

  test("a signature by another key over the quoted transaction, and base64 that is no transaction, are refused", async () => {
    const payer = await solanaPayer();
    const quoted = await quoteFor({ solanaAddress: payer.address });
    const stranger = newSolanaKey();
    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(quoted.status.approval?.transaction ?? ""));
    const forged = getBase64Decoder().decode(
      getTransactionEncoder().encode({
        ...transaction,
        signatures: { ...transaction.signatures, [payer.address]: new Uint8Array(signEd25519(null, Uint8Array.from(transaction.messageBytes), stranger.privateKey)) },
      } as never),
    );
    for (const answer of [forged, "AAAA"]) {
      const response = await approve(quoted, answer);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("bad-request");
    }
    expect(sandbox.solana.usdcBalance(payer.address)).toBe(1_000_000n);
  });

  test("a Solana wallet without a USDC account is told it holds no USDC there, before it is asked to sign", async () => {
    const payer = newSolanaKey();
    const lines = await collectLines(await chat.post({ messages: [{ role: "user", content: "Headlines" }], solanaAddress: payer.address, spendingLimits: generousLimits }));
    const failed = paymentsOf(lines).at(-1);
    expect(failed).toMatchObject({ status: "failed", network: sandbox.info.solana.network });
    expect(failed?.reason?.code).toBe("insufficient-balance");
    expect(paymentsOf(lines).some((status) => status.status === "awaiting-signature")).toBe(false);
  });

  test("paid means paid: the service takes the payment and answers 500; the chain is asked, and the person is told it was paid, not delivered", async () => {
    const payer = await solanaPayer();
    const quoted = await quoteFor({ solanaAddress: payer.address });
    const price = BigInt(sandboxService(sandbox, "news-headlines").priceAtomic);
    sandbox.setServiceAfterSettlement("news-headlines", "fail");
    let lines: Awaited<ReturnType<typeof collectLines>>;
    try {
      lines = await collectLines(await approve(quoted, signed(payer, quoted)));
    } finally {
      sandbox.setServiceAfterSettlement("news-headlines", undefined);
    }
    expect(paymentsOf(lines).map((status) => [status.status, status.reason?.code])).toEqual([
      ["submitted", undefined],
      ["confirmed", undefined],
      ["failed", "not-delivered"],
    ]);
    const done = finishOf(lines);
    expect(done?.txHash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/);
    expect(sandbox.solana.usdcBalance(payer.address)).toBe(1_000_000n - price);
    expect(await findPayment(chat.db, quoted.status.paymentId)).toMatchObject({ status: "settled", txHash: done?.txHash });
  });

  test("ten approvals at once across both rails, against a daily limit for three: three are paid", async () => {
    const evm = await newPayer(sandbox);
    const solana = await solanaPayer();
    const news = sandboxService(sandbox, "news-headlines");
    const price = BigInt(news.priceAtomic);
    const limits = { ...generousLimits, daily: ((Number(price) * 3) / 1e6).toFixed(6) };
    const wallets = { walletAddress: evm.address, solanaAddress: solana.address };
    const onChain = async (defaultChain: string) => {
      const body = { messages: [{ role: "user", content: "Headlines" }], ...wallets, spendingLimits: limits, preferences: { defaultChain } };
      const status = paymentsOf(await collectLines(await chat.post(body))).find((entry) => entry.status === "awaiting-signature");
      if (!status) throw new Error("no quote");
      return { status, body };
    };
    const evmQuotes = await Promise.all([1, 2, 3, 4, 5].map(() => onChain(sandbox.info.network)));
    const solanaQuotes = await Promise.all([1, 2, 3, 4, 5].map(() => onChain(sandbox.info.solana.network)));
    expect(new Set(evmQuotes.map((quote) => quote.status.network))).toEqual(new Set([sandbox.info.network]));
    expect(new Set(solanaQuotes.map((quote) => quote.status.network))).toEqual(new Set([sandbox.info.solana.network]));

    const answers = await Promise.all([
      ...evmQuotes.map(async (quote) =>
        chat.post({ ...quote.body, payment: { paymentId: quote.status.paymentId, token: quote.status.approval?.token ?? "", signature: await signQuote(evm, quote.status) } }),
      ),
      ...solanaQuotes.map((quote) => approve(quote, signed(solana, quote))),
    ]);
    const finishes = await Promise.all(answers.map(async (response) => (response.status === 200 ? finishOf(await collectLines(response))?.finishReason : response.status)));
    expect(finishes.filter((finish) => finish === "payment-complete")).toHaveLength(3);
    const evmSpent = 1_000_000n - (await usdcBalance(sandbox)(evm.address));
    const solanaSpent = 1_000_000n - sandbox.solana.usdcBalance(solana.address);
    expect(evmSpent + solanaSpent).toBe(3n * price);
  });

  test("an unsigned transaction (the wallet's signature missing) is refused as not the wallet's", async () => {
    const payer = await solanaPayer();
    const quoted = await quoteFor({ solanaAddress: payer.address });
    const response = await approve(quoted, quoted.status.approval?.transaction ?? "");
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("bad-request");
    expect(sandbox.solana.usdcBalance(payer.address)).toBe(1_000_000n);
  });

  test("a transaction signed after its blockhash expired is answered as expired, and nothing moves", async () => {
    const payer = await solanaPayer();
    const quoted = await quoteFor({ solanaAddress: payer.address });
    sandbox.solana.expireBlockhashes();
    const response = await approve(quoted, signed(payer, quoted));
    const lines = await collectLines(response);
    expect(response.status).toBe(200);
    expect(finishOf(lines)?.finishReason).toBe("payment-failed");
    expect(sandbox.solana.usdcBalance(payer.address)).toBe(1_000_000n);
  });

  test("one person, two wallets: the limits count EVM and Solana payments together", async () => {
    const evm = await newPayer(sandbox);
    const solana = await solanaPayer();
    const news = sandboxService(sandbox, "news-headlines");
    // A daily limit of one and a half payments.
    const limits = { ...generousLimits, daily: ((Number(news.priceAtomic) * 1.5) / 1e6).toFixed(6) };
    const wallets = { walletAddress: evm.address, solanaAddress: solana.address };

    const first = await quoteFor(wallets, limits);
    // Both wallets can pay; the EVM one is quoted first, as the network comes first in X402_NETWORKS.
    expect(first.status.network).toBe(sandbox.info.network);
    const paid = finishOf(await collectLines(await chat.post({ ...first.body, payment: { paymentId: first.status.paymentId, token: first.status.approval?.token ?? "", signature: await signQuote(evm, first.status) } })));
    expect(paid?.finishReason).toBe("payment-complete");

    // The next one, on Solana (the person's default chain now), would pass the limit the two share.
    const lines = await collectLines(
      await chat.post({ messages: [{ role: "user", content: "More headlines" }], ...wallets, spendingLimits: limits, preferences: { defaultChain: sandbox.info.solana.network } }),
    );
    const refused = paymentsOf(lines).at(-1);
    expect(refused).toMatchObject({ status: "failed", network: sandbox.info.solana.network });
    expect(JSON.stringify(refused?.reason)).toMatch(/daily/i);
  });

  test("a service that takes both rails is paid where the person's wallet or default chain says, and the quote says why", async () => {
    const evm = await newPayer(sandbox);
    const solana = await solanaPayer();
    const solanaName = findSolanaNetwork(sandbox.info.solana.network, chat.env)?.name ?? "";

    const evmOnly = await quoteFor({ walletAddress: evm.address });
    expect(evmOnly.status.network).toBe(sandbox.info.network);
    expect(evmOnly.status.networkChoice).toBe(`The service also takes ${solanaName}; no wallet for it is connected.`);

    const both = { walletAddress: evm.address, solanaAddress: solana.address };
    const byDefault = await collectLines(
      await chat.post({ messages: [{ role: "user", content: "Technology headlines, please" }], ...both, spendingLimits: generousLimits, preferences: { defaultChain: sandbox.info.solana.network } }),
    );
    const onSolana = paymentsOf(byDefault).find((status) => status.status === "awaiting-signature");
    expect(onSolana?.network).toBe(sandbox.info.solana.network);
    expect(onSolana?.networkChoice).toMatch(/^The service also takes .+; this is your default chain\.$/);
  });

  test("a quote whose requirements name the payee or the person's own wallet as fee payer is refused with the reason, before anything is signed, reserved or paid", async () => {
    // The news service's real 402, served by a service of the test's own that changes only its fee payer.
    const news = sandboxService(sandbox, "news-headlines");
    const unpaid = await fetch(`${news.url}?topic=technology&limit=2`);
    expect(unpaid.status).toBe(402);
    const required = decodePaymentRequiredHeader(unpaid.headers.get("PAYMENT-REQUIRED") ?? "");
    let feePayer = "";
    const service = await startLoopbackServer((_request, response) => {
      const accepts = required.accepts
        .filter((option) => option.network === sandbox.info.solana.network)
        .map((option) => ({ ...option, extra: { ...option.extra, feePayer } }));
      response.writeHead(402, { "content-type": "application/json", "PAYMENT-REQUIRED": encodePaymentRequiredHeader({ ...required, accepts }), connection: "close" });
      response.end("{}");
    });
    const target = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox), model: payingModel(`${service.origin}/headlines`) });
    try {
      const payer = await solanaPayer();
      const ask = async () => collectLines(await target.post({ messages: [{ role: "user", content: "Headlines" }], solanaAddress: payer.address, spendingLimits: generousLimits }));
      for (const [named, why] of [
        [news.solanaPayTo ?? "", "is the payee itself, not a facilitator"],
        [payer.address, "is the paying wallet itself"],
      ] as const) {
        feePayer = named;
        const lines = await ask();
        expect(paymentsOf(lines)).toEqual([]);
        const errors = lines.flatMap((line) => (line.type === "error" ? [line.error] : []));
        expect(errors).toEqual([{ code: "payment-failed", message: expect.stringContaining(`the fee payer (extra.feePayer) ${why}`) }]);
        expect(finishOf(lines)?.finishReason).toBe("payment-failed");
      }
      // The same requirements with the facilitator as fee payer are quoted.
      feePayer = sandbox.info.solana.feePayer;
      expect(paymentsOf(await ask()).map((status) => status.status)).toEqual(["checking", "awaiting-signature"]);
      expect(await countedSince(target.db, payer.address, new Date(0))).toBe(0n);
      expect(sandbox.solana.usdcBalance(payer.address)).toBe(1_000_000n);
    } finally {
      await target.close();
      await service.close();
    }
  });

  describe("paid means paid on a busy account", () => {
    const news = () => sandboxService(sandbox, "news-headlines");
    /** A daily limit with room for one payment of the news service, not two: the next quote shows whether the first counted. */
    const roomForOne = () => ({ ...generousLimits, daily: ((Number(news().priceAtomic) * 1.5) / 1e6).toFixed(6) });
    /** Other people's transfers to the payer's USDC account, one transaction each, as a busy account gets them. */
    const othersPay = async (owner: string, count: number) => {
      for (let index = 0; index < count; index++) await sandbox.solana.transferUsdc({ to: owner, usdc: 1n });
    };
    /** The product's Solana RPC behind a proxy the test can break, and a chat of its own (its own ledger) that reads through it. */
    const chatThroughProxy = async () => {
      const rpc = await startFaultProxy(sandbox.info.solana.rpcUrl);
      const reference = sandbox.info.solana.network.slice("solana:".length);
      const target = await createTestChat({
        tools: createChatTools,
        env: sandboxEnv(sandbox, { [`RPC_URL_${reference}`]: rpc.url }),
        model: payingModel(news().url, { topic: "technology", limit: "2" }),
      });
      return { rpc, target, close: async () => Promise.all([target.close(), rpc.close()]) };
    };
    const historyReads = (request: ProxiedRequest) => request.body.includes('"getSignaturesForAddress"');
    /** The one transaction that moved USDC from the payer to the service, as the chain shows it. */
    const expectPaymentTransaction = async (txHash: string | undefined, payer: string) => {
      const network = findSolanaNetwork(sandbox.info.solana.network, chat.env);
      const summary = network && txHash ? await getTransactionSummary({ network, hash: txHash }) : undefined;
      expect(summary).toMatchObject({ status: "success", usdcTransfers: [{ from: payer, to: news().solanaPayTo, value: BigInt(news().priceAtomic) }] });
    };

    test("the service settles, then more than 50 other transfers reach the payer's USDC account and the blockhash expires before it answers 500 naming no transaction: the payment is found, told paid and not delivered, and counted", async () => {
      const payer = await solanaPayer();
      const price = BigInt(news().priceAtomic);
      const quoted = await quoteFor({ solanaAddress: payer.address }, roomForOne());
      sandbox.setServiceAfterSettlement("news-headlines", "fail", async () => {
        await othersPay(payer.address, 60);
        sandbox.solana.expireBlockhashes();
      });
      let lines: Awaited<ReturnType<typeof collectLines>>;
      try {
        lines = await collectLines(await approve(quoted, signed(payer, quoted)));
      } finally {
        sandbox.setServiceAfterSettlement("news-headlines", undefined);
      }
      expect(steps(lines)).toEqual([
        ["submitted", undefined],
        ["confirmed", undefined],
        ["failed", "not-delivered"],
      ]);
      const [, confirmed, failed] = paymentsOf(lines);
      const txHash = confirmed?.txHash;
      expect(txHash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/);
      expect(failed?.txHash).toBe(txHash);
      expect(failed?.reason?.message).toContain(`was paid on chain (transaction ${txHash})`);
      expect(finishOf(lines)).toMatchObject({ finishReason: "payment-failed", txHash });
      await expectPaymentTransaction(txHash, payer.address);
      expect(sandbox.solana.usdcBalance(payer.address)).toBe(1_000_000n - price + 60n);
      expect(await findPayment(chat.db, quoted.status.paymentId)).toMatchObject({ status: "settled", txHash });
      await expectNextQuoteRefused(chat, quoted);
    });

    test("a payment whose first look could not read the chain stays counted; after its blockhash expired and more than 1000 other transfers, the sweep finds it and records it paid", async () => {
      const { rpc, target, close } = await chatThroughProxy();
      try {
        const payer = await solanaPayer();
        const price = BigInt(news().priceAtomic);
        const quoted = await quoteFor({ solanaAddress: payer.address }, generousLimits, target);
        // From the service's answer on, the product's RPC answers no history reads.
        sandbox.setServiceAfterSettlement("news-headlines", "fail", async () => rpc.setFault((request) => (historyReads(request) ? { kind: "cut" } : { kind: "pass" })));
        let lines: Awaited<ReturnType<typeof collectLines>>;
        try {
          lines = await collectLines(await approve(quoted, signed(payer, quoted), target));
        } finally {
          sandbox.setServiceAfterSettlement("news-headlines", undefined);
        }
        expect(steps(lines)).toEqual([
          ["submitted", undefined],
          ["failed", "payment-pending"],
        ]);
        expect(paymentsOf(lines).at(-1)?.reason?.message).toMatch(/could not be checked right now/);
        expect(paymentsOf(lines).at(-1)?.txHash).toBeUndefined();
        expect(await findPayment(target.db, quoted.status.paymentId)).toMatchObject({ status: "pending" });
        expect(await countedSince(target.db, payer.address, new Date(0))).toBe(price);

        await othersPay(payer.address, 1_050);
        sandbox.solana.expireBlockhashes();
        // While the history cannot be read, the sweep leaves it counted.
        expect(await sweepUnfinishedPayments({ db: target.db, env: target.env })).toMatchObject({ checked: 1, pending: 1, released: 0 });
        expect(await countedSince(target.db, payer.address, new Date(0))).toBe(price);

        rpc.setFault(undefined);
        expect(await sweepUnfinishedPayments({ db: target.db, env: target.env })).toMatchObject({ checked: 1, settled: 1, released: 0 });
        const record = await findPayment(target.db, quoted.status.paymentId);
        expect(record).toMatchObject({ status: "settled" });
        await expectPaymentTransaction(record?.txHash ?? undefined, payer.address);
        expect((record?.outcome as PaymentStatus | undefined)?.reason?.code).toBe("not-delivered");
        expect(await countedSince(target.db, payer.address, new Date(0))).toBe(price);
        expect(sandbox.solana.usdcBalance(payer.address)).toBe(1_000_000n - price + 1_050n);
      } finally {
        await close();
      }
    }, 60_000);

    test("a payment that never landed is released only once its blockhash has expired and the search has reached the slot recorded when it was sent", async () => {
      const { rpc, target, close } = await chatThroughProxy();
      try {
        const payer = await solanaPayer();
        const price = BigInt(news().priceAtomic);
        const quoted = await quoteFor({ solanaAddress: payer.address }, generousLimits, target);
        // Verified, then the handler fails: nothing is settled.
        sandbox.setServiceFailing("news-headlines", true);
        let lines: Awaited<ReturnType<typeof collectLines>>;
        try {
          lines = await collectLines(await approve(quoted, signed(payer, quoted), target));
        } finally {
          sandbox.setServiceFailing("news-headlines", false);
        }
        expect(steps(lines)).toEqual([
          ["submitted", undefined],
          ["failed", "payment-pending"],
        ]);
        const pending = paymentsOf(lines).at(-1);
        expect(pending?.reason?.message).toMatch(/has not been collected on chain/);
        expect(pending?.collectableUntil).toBe(quoted.status.approval?.expiresAt);
        const record = await findPayment(target.db, quoted.status.paymentId);
        // The slot it was sent at is recorded with it.
        expect(record).toMatchObject({ status: "pending", fromBlock: expect.any(BigInt) });
        expect(record?.fromBlock).toBeGreaterThan(0n);

        // The blockhash still lives: it could still land.
        expect(await sweepUnfinishedPayments({ db: target.db, env: target.env })).toMatchObject({ checked: 1, pending: 1, released: 0 });

        await othersPay(payer.address, 1_050);
        sandbox.solana.expireBlockhashes();
        // Expired, but the search cannot get past its first page of history: not released.
        rpc.setFault((request) => (historyReads(request) && request.body.includes('"before"') ? { kind: "cut" } : { kind: "pass" }));
        expect(await sweepUnfinishedPayments({ db: target.db, env: target.env })).toMatchObject({ checked: 1, pending: 1, released: 0 });
        // Nor when the node's history ends after the slot of sending (a node that purged it).
        rpc.setFault((request) => {
          if (!request.body.includes('"getFirstAvailableBlock"')) return { kind: "pass" };
          const { id } = JSON.parse(request.body) as { id: unknown };
          return { kind: "reply", json: { jsonrpc: "2.0", id, result: Number(record?.fromBlock ?? 0n) + 1 } };
        });
        expect(await sweepUnfinishedPayments({ db: target.db, env: target.env })).toMatchObject({ checked: 1, pending: 1, released: 0 });
        expect(rpc.seen.some((request) => request.body.includes('"getFirstAvailableBlock"'))).toBe(true);
        expect(await countedSince(target.db, payer.address, new Date(0))).toBe(price);

        rpc.setFault(undefined);
        // The search reads the 1,050 transactions since for a bounded time: on a loaded machine a
        // sweep may run out of it and rightly say "not known yet" (pending); the next one reads
        // again. Within three it gets through, and nothing is ever settled.
        let sweep = await sweepUnfinishedPayments({ db: target.db, env: target.env });
        for (let attempt = 1; attempt < 3 && sweep.released === 0; attempt++) {
          expect(sweep).toMatchObject({ settled: 0, pending: 1 });
          sweep = await sweepUnfinishedPayments({ db: target.db, env: target.env });
        }
        expect(sweep).toMatchObject({ checked: 1, released: 1 });
        const released = await findPayment(target.db, quoted.status.paymentId);
        expect(released).toMatchObject({ status: "failed", failureCode: "expired", txHash: null });
        expect((released?.outcome as PaymentStatus | undefined)?.reason?.message).toMatch(/Nothing was charged/);
        expect(await countedSince(target.db, payer.address, new Date(0))).toBe(0n);
        expect(sandbox.solana.usdcBalance(payer.address)).toBe(1_000_000n + 1_050n);
      } finally {
        await close();
      }
    }, 60_000);

    test("a payment recorded without the slot it was sent at is never released: it stays counted", async () => {
      const payer = await solanaPayer();
      const quoted = await quoteFor({ solanaAddress: payer.address });
      const claims = verifyApproval(quoted.status.approval?.token ?? "", quoted.status.paymentId, chat.env);
      const target = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox) });
      try {
        // As a request that died before recording where the chain was would have left it.
        const reserved = await reservePayment(target.db, {
          payment: {
            paymentId: quoted.status.paymentId,
            wallet: payer.address,
            network: sandbox.info.solana.network,
            asset: sandbox.info.solana.usdc.mint,
            payTo: claims.payTo,
            amount: BigInt(claims.amount),
            nonce: claims.nonce,
            serviceName: claims.service.name,
            serviceUrl: claims.service.url,
            validBefore: new Date(claims.expiresAt * 1000),
            fromBlock: null,
          },
          limits: { daily: 1_000_000n, weekly: 1_000_000n, monthly: 1_000_000n, perPayment: 1_000_000n },
          now: new Date(Date.now() - 5 * 60_000),
        });
        expect(reserved.kind).toBe("reserved");
        sandbox.solana.expireBlockhashes();
        expect(await sweepUnfinishedPayments({ db: target.db, env: target.env })).toMatchObject({ checked: 1, pending: 1, released: 0 });
        expect(await countedSince(target.db, payer.address, new Date(0))).toBe(BigInt(claims.amount));
      } finally {
        await target.close();
      }
    });

    test("an approval sent while the chain's slot cannot be read is refused before anything is reserved or sent", async () => {
      const { rpc, target, close } = await chatThroughProxy();
      try {
        const payer = await solanaPayer();
        const quoted = await quoteFor({ solanaAddress: payer.address }, generousLimits, target);
        rpc.setFault((request) => (request.body.includes('"getSlot"') ? { kind: "cut" } : { kind: "pass" }));
        const response = await approve(quoted, signed(payer, quoted), target);
        expect(response.status).toBe(500);
        const body = (await response.json()) as { error: { code: string; message: string } };
        expect(body.error).toMatchObject({ code: "blockchain-error", message: expect.stringMatching(/Nothing was paid/) });
        expect(await findPayment(target.db, quoted.status.paymentId)).toBeUndefined();
        expect(sandbox.solana.usdcBalance(payer.address)).toBe(1_000_000n);
      } finally {
        await close();
      }
    });
  });

  describe("each quote's transaction is the product's own", () => {
    const rpc = () => createSolanaRpc(sandbox.info.solana.rpcUrl);
    const latestBlockhash = async () => (await rpc().getLatestBlockhash().send()).value;
    /** Waits for the local chain to make a blockhash other than `after`. */
    const nextBlockhash = (after: string) => eventually(latestBlockhash, (latest) => latest.blockhash !== after, 5_000);
    const messageOf = (quoted: Quoted) =>
      getCompiledTransactionMessageDecoder().decode(getTransactionDecoder().decode(getBase64Encoder().encode(quoted.status.approval?.transaction ?? "")).messageBytes);
    const blockhashOf = (quoted: Quoted) => String(messageOf(quoted).lifetimeToken);
    const memoOf = (quoted: Quoted) => {
      const message = messageOf(quoted);
      return new TextDecoder().decode(message.instructions[instructionOf(message, MEMO_PROGRAM)]?.data);
    };

    test("a service that fixes its memo and its blockhash: the quote is built on the product's own blockhash, and two quotes alike in every byte are never answered as one payment", async () => {
      const sellers = await latestBlockhash();
      const price = 2_000n;
      const fixed = await sandbox.addService(
        fortuneOracle("fixed-memo-oracle", price, {
          rails: ["solana"],
          solanaExtra: { memo: "order-42", recentBlockhash: sellers.blockhash, lastValidBlockHeight: String(sellers.lastValidBlockHeight) },
        }),
        { listed: false },
      );
      const target = await createTestChat({ tools: createChatTools, env: sandboxEnv(sandbox), model: payingModel(fixed.url) });
      const payer = await solanaPayer();
      try {
        // The chain moves on from the service's blockhash, then holds its next one while two quotes are made.
        await nextBlockhash(sellers.blockhash);
        sandbox.solana.holdBlockhash(true);
        const first = await quoteFor({ solanaAddress: payer.address }, generousLimits, target);
        const second = await quoteFor({ solanaAddress: payer.address }, generousLimits, target);
        for (const quoted of [first, second]) {
          expect(blockhashOf(quoted)).not.toBe(sellers.blockhash);
          // The facilitator takes only the seller's memo, verbatim.
          expect(memoOf(quoted)).toBe("order-42");
        }
        // One payer, payee, amount, memo and blockhash: one transaction, byte for byte.
        expect(second.status.approval?.transaction).toBe(first.status.approval?.transaction);

        const paid = finishOf(await collectLines(await approve(first, signed(payer, first), target)));
        expect(paid).toMatchObject({ finishReason: "payment-complete" });
        const refused = await approve(second, signed(payer, second), target);
        expect(refused.status).toBe(400);
        const body = (await refused.json()) as { error: { code: string; message: string } };
        expect(body.error).toMatchObject({ code: "bad-request", message: expect.stringMatching(/identical, byte for byte, to one already sent for another quote.*Nothing more was paid/) });
        expect(await findPayment(target.db, second.status.paymentId)).toBeUndefined();
        expect(sandbox.solana.usdcBalance(payer.address)).toBe(1_000_000n - price);

        // A third quote within the same blockhash is refused before the wallet is asked.
        const third = await collectLines(await target.post(first.body));
        expect(steps(third)).toEqual([
          ["checking", undefined],
          ["failed", "payment-failed"],
        ]);
        expect(paymentsOf(third).at(-1)?.reason?.message).toMatch(/identical, byte for byte, to one already sent.*Nothing was quoted or paid/);

        // Once the chain's blockhash has moved on, the next quote is a payment of its own.
        sandbox.solana.holdBlockhash(false);
        await nextBlockhash(blockhashOf(first));
        const fourth = await quoteFor({ solanaAddress: payer.address }, generousLimits, target);
        expect(blockhashOf(fourth)).not.toBe(blockhashOf(first));
        const again = finishOf(await collectLines(await approve(fourth, signed(payer, fourth), target)));
        expect(again).toMatchObject({ finishReason: "payment-complete" });
        expect(again?.txHash).not.toBe(paid?.txHash);
        expect(sandbox.solana.usdcBalance(payer.address)).toBe(1_000_000n - 2n * price);
      } finally {
        sandbox.solana.holdBlockhash(false);
        await target.close();
      }
    });

    test("a service that fixes no memo: two quotes within one blockhash differ in the memo the product's x402 client chose (16 random bytes), and each is paid as a payment of its own", async () => {
      const payer = await solanaPayer();
      const price = BigInt(sandboxService(sandbox, "news-headlines").priceAtomic);
      sandbox.solana.holdBlockhash(true);
      try {
        const first = await quoteFor({ solanaAddress: payer.address });
        const second = await quoteFor({ solanaAddress: payer.address });
        expect(blockhashOf(second)).toBe(blockhashOf(first));
        expect(memoOf(first)).toMatch(/^[0-9a-f]{32}$/);
        expect(memoOf(second)).toMatch(/^[0-9a-f]{32}$/);
        expect(memoOf(second)).not.toBe(memoOf(first));
        const done = [];
        for (const quoted of [first, second]) done.push(finishOf(await collectLines(await approve(quoted, signed(payer, quoted)))));
        expect(done.map((finish) => finish?.finishReason)).toEqual(["payment-complete", "payment-complete"]);
        expect(done[1]?.txHash).not.toBe(done[0]?.txHash);
        expect(sandbox.solana.usdcBalance(payer.address)).toBe(1_000_000n - 2n * price);
      } finally {
        sandbox.solana.holdBlockhash(false);
      }
    });
  });
});
