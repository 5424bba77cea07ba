/**
 * A local Solana for the sandbox, with nothing to download: LiteSVM (an in-process SVM from npm,
 * with the SPL Token, Associated Token Account, Memo and Compute Budget programs) behind a small
 * JSON-RPC front that @solana/kit clients (the product's Solana rail, @x402/svm's client and
 * facilitator, the page, the tests) use like a validator's. It answers as devnet
 * (`solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1`, the only networks @x402/svm's client knows),
 * holds USDC at devnet's USDC mint address, and keeps the history of the transactions it landed,
 * per account (the newest HISTORY_PER_ACCOUNT of each), which `getSignaturesForAddress` pages
 * through as a validator does: newest first, `limit` (1000 at most), `before`, `until`.
 *
 * Blockhashes live as on a real cluster: a new one every couple of seconds, each good for about
 * a minute (150 blocks of 400 ms); a transaction on an older one is refused (BlockhashNotFound).
 * The sandbox's own keys (the demo wallet, the funder) sign through `sandbox_signTransaction`,
 * the way anvil signs for its unlocked accounts: no key reaches the page. The same port answers
 * WebSocket subscriptions (`signatureSubscribe`, `slotSubscribe`), so @solana/kit's
 * `sendAndConfirmTransactionFactory` works against it with `rpcUrl` as `ws://`.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign as signEd25519, type KeyObject } from "node:crypto";
import {
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createTransactionMessage,
  getBase58Decoder,
  getBase58Encoder,
  getBase64Decoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Blockhash,
  type TransactionSigner,
} from "@solana/kit";
import {
  AccountState,
  findAssociatedTokenPda,
  getMintEncoder,
  getTokenDecoder,
  getTokenEncoder,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from "@solana-program/token";
import { LiteSVM, TransactionMetadata } from "litesvm";
import type { Server } from "node:http";
import { WebSocketServer, type WebSocket } from "ws";
import { HttpError, listen, readJson, sendJson, type RunningServer } from "./http";

/** Devnet: the network @x402/svm's client knows, answered here by the local SVM. */
export const SOLANA_SANDBOX_NETWORK = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";
const GENESIS_HASH = "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG";
/** Devnet's USDC mint, recreated here with the sandbox's funder as its mint authority. */
export const SOLANA_SANDBOX_USDC = "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU" as Address;
export const SOLANA_USDC_DECIMALS = 6;

const SLOT_MS = 400;
const MEMO_PROGRAM = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr" as Address;
/** The funder's own USDC (1,000,000 USDC), besides its being the mint's authority. */
const FUNDER_USDC = 1_000_000_000_000n;
/** Blocks a blockhash stays valid for, as on a real cluster. */
const BLOCKHASH_BLOCKS = 150;
/** How often a new blockhash is made. */
const BLOCKHASH_EVERY_MS = 2_000;
/**
 * How many of an account's transactions are kept, newest first: enough for a test to bury a
 * payment under a busy account's later traffic, bounded so a long demo does not grow without end.
 */
const HISTORY_PER_ACCOUNT = 10_000;
/** What a validator answers at most per `getSignaturesForAddress` page, and by default. */
const SIGNATURES_PAGE_MAX = 1_000;

/** A sandbox key: its address, and its 64-byte secret (private and public halves) as base58. */
export type SolanaKey = { address: Address; secretKey: string; privateKey: KeyObject };

export type LocalSolana = RunningServer & {
  rpcUrl: string;
  network: string;
  mint: Address;
  funder: SolanaKey;
  /** Moves sandbox USDC (atomic units) and/or SOL (lamports) to an address, creating its token account. */
  fund(parameters: { to: string; usdc?: bigint; lamports?: bigint }): Promise<void>;
  /** An owner's USDC token account (its associated one), made empty if it has none yet. */
  prepareTokenAccount(owner: string): Promise<Address>;
  /** The address's USDC, atomic units (0 without a token account). */
  usdcBalance(owner: string): bigint;
  /** Signs a wire transaction (base64) as one of the sandbox's keys; other signatures are kept. */
  signAs(key: SolanaKey, transaction: string): string;
  /** A key the sandbox signs for (sandbox_signTransaction). */
  holdKey(key: SolanaKey): void;
  /** Makes every blockhash issued so far stale at once, as if a minute had passed. */
  expireBlockhashes(): void;
  /**
   * While held, no new blockhash is made: everything built meanwhile shares the latest one, as
   * two transactions built within one slot of a real cluster do. Released, blockhashes move on.
   */
  holdBlockhash(held: boolean): void;
  /**
   * Sends a real USDC transfer (atomic units) from `from` (the funder unless given) to `to`'s
   * token account, through the SVM, as a transaction of its own: it lands in both accounts'
   * history, as anyone's transfer to an account would. Returns its signature.
   */
  transferUsdc(parameters: { to: string; usdc: bigint; from?: SolanaKey }): Promise<string>;
};

const base58 = { encode: (bytes: Uint8Array) => getBase58Decoder().decode(bytes), decode: (text: string) => getBase58Encoder().encode(text) };
const base64 = { encode: (bytes: Uint8Array) => getBase64Decoder().decode(bytes), decode: (text: string) => new Uint8Array(getBase64Encoder().encode(text)) };

/** A fresh ed25519 key as Solana writes it: 64 bytes, private then public. */
export function newSolanaKey(): SolanaKey {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const secret = privateKey.export({ format: "der", type: "pkcs8" }).subarray(-32);
  const pub = publicKey.export({ format: "der", type: "spki" }).subarray(-32);
  return { address: base58.encode(pub) as Address, secretKey: base58.encode(Buffer.concat([secret, pub])), privateKey };
}

/** The key of a 64-byte base58 secret. */
export function solanaKeyOf(secretKey: string): SolanaKey {
  return solanaKeyFromSeed(base58.decode(secretKey).subarray(0, 32));
}

/** The key of a 32-byte ed25519 seed (the private half). */
export function solanaKeyFromSeed(seed: Uint8Array): SolanaKey {
  const der = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), Buffer.from(seed)]);
  const privateKey = createPrivateKey({ key: der, format: "der", type: "pkcs8" });
  const pub = createPublicKey(privateKey).export({ format: "der", type: "spki" }).subarray(-32);
  return { address: base58.encode(pub) as Address, secretKey: base58.encode(Buffer.concat([Buffer.from(seed), pub])), privateKey };
}

/** Signs a wire transaction (base64) as `key`, which must be one of its signers; other signatures are kept. */
export function signTransactionAs(key: SolanaKey, wire: string): string {
  const transaction = getTransactionDecoder().decode(base64.decode(wire));
  const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
  const index = message.staticAccounts.map(String).indexOf(key.address);
  if (index < 0 || index >= message.header.numSignerAccounts) throw new Error(`${key.address} does not sign this transaction`);
  const signature = new Uint8Array(signEd25519(null, Uint8Array.from(transaction.messageBytes), key.privateKey));
  const signatures = { ...transaction.signatures, [key.address]: signature };
  return base64.encode(new Uint8Array(getTransactionEncoder().encode({ ...transaction, signatures } as never)));
}

type Landed = { signature: string; seq: number; slot: number; blockTime: number; wire: string; err: unknown; logs: string[]; pre: TokenBalance[]; post: TokenBalance[] };
type SignaturesOptions = { limit?: number; before?: string; until?: string };
type TokenBalance = { accountIndex: number; mint: string; owner: string; programId: string; uiTokenAmount: { amount: string; decimals: number; uiAmount: number; uiAmountString: string } };

export async function startLocalSolana({ port, log = () => undefined }: { port: number; log?: (line: string) => void }): Promise<LocalSolana> {
  // Blockhashes and signatures are checked here: a blockhash's age by this front, the
  // signatures by the SVM, except in a simulation (the facilitator simulates before it signs).
  const svm = new LiteSVM().withBlockhashCheck(false).withTransactionHistory(10_000n);
  const started = Date.now();
  const startSlot = Number(svm.getClock().slot);
  const blockHeight = () => Math.floor((Date.now() - started) / SLOT_MS);
  const slot = () => startSlot + blockHeight();
  const issued = new Map<string, { at: number; lastValidBlockHeight: number }>();
  let current = { hash: svm.latestBlockhash() as string, at: Date.now() };
  let blockhashHeld = false;
  issued.set(current.hash, { at: current.at, lastValidBlockHeight: blockHeight() + BLOCKHASH_BLOCKS });
  const latestBlockhash = () => {
    if (!blockhashHeld && Date.now() - current.at >= BLOCKHASH_EVERY_MS) {
      svm.expireBlockhash();
      current = { hash: svm.latestBlockhash() as string, at: Date.now() };
      issued.set(current.hash, { at: current.at, lastValidBlockHeight: blockHeight() + BLOCKHASH_BLOCKS });
    }
    return { blockhash: current.hash, lastValidBlockHeight: issued.get(current.hash)?.lastValidBlockHeight ?? 0 };
  };
  const blockhashValid = (hash: string) => {
    const entry = issued.get(hash);
    return entry !== undefined && blockHeight() <= entry.lastValidBlockHeight;
  };

  const landed = new Map<string, Landed>();
  let onLanded: (record: Landed) => void = () => undefined;
  // Each account's transactions, oldest first (appended as they land); `seq` orders every landing.
  const byAccount = new Map<string, Landed[]>();
  let landings = 0;
  const held = new Map<string, SolanaKey>();
  const funder = newSolanaKey();
  held.set(funder.address, funder);
  svm.airdrop(funder.address as never, 1_000_000_000_000n as never);

  const rent = (size: number) => svm.minimumBalanceForRentExemption(BigInt(size));
  svm.setAccount({
    address: SOLANA_SANDBOX_USDC,
    lamports: rent(82),
    programAddress: TOKEN_PROGRAM_ADDRESS,
    executable: false,
    data: new Uint8Array(getMintEncoder().encode({ mintAuthority: funder.address, supply: 0n, decimals: SOLANA_USDC_DECIMALS, isInitialized: true, freezeAuthority: null })),
  } as never);

  const tokenAccountOf = async (owner: string) =>
    (await findAssociatedTokenPda({ mint: SOLANA_SANDBOX_USDC, owner: owner as Address, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];
  // The associated token accounts the sandbox made, by owner: derived once (it is async).
  const ataByOwner = new Map<string, Address>();
  const tokenAmount = (account: Address): bigint | undefined => {
    const found = svm.getAccount(account as never);
    if (!found.exists || String(found.programAddress) !== TOKEN_PROGRAM_ADDRESS) return undefined;
    try {
      return getTokenDecoder().decode(found.data as Uint8Array).amount;
    } catch {
      return undefined;
    }
  };
  const setTokenAccount = (account: Address, owner: string, amount: bigint) =>
    svm.setAccount({
      address: account,
      lamports: rent(165),
      programAddress: TOKEN_PROGRAM_ADDRESS,
      executable: false,
      data: new Uint8Array(
        getTokenEncoder().encode({ mint: SOLANA_SANDBOX_USDC, owner: owner as Address, amount, delegate: null, state: AccountState.Initialized, isNative: null, delegatedAmount: 0n, closeAuthority: null }),
      ),
    } as never);

  const prepareTokenAccount = async (owner: string) => {
    const account = ataByOwner.get(owner) ?? (await tokenAccountOf(owner));
    ataByOwner.set(owner, account);
    if (tokenAmount(account) === undefined) setTokenAccount(account, owner, 0n);
    return account;
  };
  const fund = async ({ to, usdc = 0n, lamports = 0n }: { to: string; usdc?: bigint; lamports?: bigint }) => {
    if (lamports > 0n) svm.airdrop(to as never, lamports as never);
    const account = await prepareTokenAccount(to);
    setTokenAccount(account, to, (tokenAmount(account) ?? 0n) + usdc);
  };

  const balancesOf = (accounts: readonly string[]): TokenBalance[] =>
    accounts.flatMap((account, accountIndex) => {
      const found = svm.getAccount(account as never);
      if (!found.exists || String(found.programAddress) !== TOKEN_PROGRAM_ADDRESS) return [];
      try {
        const token = getTokenDecoder().decode(found.data as Uint8Array);
        const amount = token.amount.toString();
        const ui = Number(token.amount) / 10 ** SOLANA_USDC_DECIMALS;
        return [{ accountIndex, mint: String(token.mint), owner: String(token.owner), programId: TOKEN_PROGRAM_ADDRESS, uiTokenAmount: { amount, decimals: SOLANA_USDC_DECIMALS, uiAmount: ui, uiAmountString: String(ui) } }];
      } catch {
        return [];
      }
    });

  const decode = (wire: string) => {
    const transaction = getTransactionDecoder().decode(base64.decode(wire));
    const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
    return { transaction, message, accounts: message.staticAccounts.map(String) };
  };

  const rpcError = (code: number, message: string, data?: unknown) => Object.assign(new Error(message), { rpc: { code, message, ...(data === undefined ? {} : { data }) } });

  const submit = (wire: string, { simulate }: { simulate: boolean }) => {
    const { transaction, message, accounts } = decode(wire);
    const hash = String(message.lifetimeToken);
    if (!blockhashValid(hash)) {
      if (simulate) return { err: "BlockhashNotFound", logs: [] as string[], signature: undefined };
      throw rpcError(-32002, "Transaction simulation failed: Blockhash not found", { err: "BlockhashNotFound", logs: [] });
    }
    if (simulate) {
      svm.withSigverify(false);
      try {
        const result = svm.simulateTransaction(transaction as never);
        if ("err" in result && typeof result.err === "function") return { err: String(result.err()), logs: result.meta().logs(), signature: undefined };
        return { err: null, logs: (result as { meta(): TransactionMetadata }).meta().logs(), signature: undefined };
      } finally {
        svm.withSigverify(true);
      }
    }
    const pre = balancesOf(accounts);
    const result = svm.sendTransaction(transaction as never);
    const failed = !(result instanceof TransactionMetadata);
    const meta = failed ? result.meta() : result;
    const signature = base58.encode(meta.signature());
    const err = failed ? String(result.err()) : null;
    if (failed && /Signature|AlreadyProcessed|BlockhashNotFound/i.test(err ?? "")) {
      throw rpcError(-32002, `Transaction simulation failed: ${err}`, { err, logs: meta.logs() });
    }
    const post = balancesOf(accounts);
    // Token accounts made by a transaction (an owner's associated account, created through the
    // RPC) are known from then on, so that usdcBalance reads them too.
    for (const entry of post) if (entry.mint === SOLANA_SANDBOX_USDC && !ataByOwner.has(entry.owner)) ataByOwner.set(entry.owner, accounts[entry.accountIndex] as Address);
    const record: Landed = { signature, seq: landings++, slot: slot(), blockTime: Math.floor(Date.now() / 1000), wire, err, logs: meta.logs(), pre, post };
    landed.set(signature, record);
    for (const account of new Set(accounts)) {
      const list = byAccount.get(account) ?? [];
      list.push(record);
      // Trimmed in steps, not on every landing: a full list is not copied per transaction.
      if (list.length > HISTORY_PER_ACCOUNT + SIGNATURES_PAGE_MAX) list.splice(0, list.length - HISTORY_PER_ACCOUNT);
      byAccount.set(account, list);
    }
    onLanded(record);
    log(`solana: ${signature.slice(0, 12)}… ${err ? `failed (${err})` : "landed"}`);
    return { err, logs: meta.logs(), signature };
  };

  const signAs = (key: SolanaKey, wire: string) => signTransactionAs(key, wire);

  /**
   * One page of an account's transactions, as a validator answers `getSignaturesForAddress`:
   * newest first; at most `limit` (default and maximum 1000; more is an invalid parameter);
   * `before`: only those older than that transaction (none when it never landed); `until`: only
   * those newer than it (no bound when it never landed).
   */
  const signaturesFor = (address: string, { limit = SIGNATURES_PAGE_MAX, before, until }: SignaturesOptions) => {
    if (!Number.isInteger(limit) || limit < 1 || limit > SIGNATURES_PAGE_MAX) throw rpcError(-32602, `Invalid limit; max ${SIGNATURES_PAGE_MAX}`);
    const newest = before === undefined ? Number.POSITIVE_INFINITY : landed.get(before)?.seq;
    if (newest === undefined) return [];
    const oldest = until === undefined ? -1 : (landed.get(until)?.seq ?? -1);
    const list = byAccount.get(address) ?? [];
    const page: Landed[] = [];
    for (let index = list.length - 1; index >= 0 && page.length < limit; index--) {
      const entry = list[index] as Landed;
      if (entry.seq <= oldest) break;
      if (entry.seq < newest) page.push(entry);
    }
    return page.map((entry) => ({ signature: entry.signature, slot: entry.slot, err: entry.err, memo: null, blockTime: entry.blockTime, confirmationStatus: "finalized" }));
  };

  let transfers = 0;
  const signers = new Map<string, Promise<TransactionSigner>>();
  const transferUsdc = async ({ to, usdc, from = funder }: { to: string; usdc: bigint; from?: SolanaKey }) => {
    const [source, destination] = await Promise.all([prepareTokenAccount(from.address), prepareTokenAccount(to)]);
    // A memo of its own makes each transfer a distinct transaction, even the same amount to the same account within one blockhash.
    const memo = { programAddress: MEMO_PROGRAM, accounts: [], data: new TextEncoder().encode(`sandbox transfer ${++transfers}`) };
    let signing = signers.get(from.address);
    if (!signing) {
      signing = createKeyPairSignerFromBytes(base58.decode(from.secretKey));
      signers.set(from.address, signing);
    }
    const authority = await signing;
    const { blockhash, lastValidBlockHeight } = latestBlockhash();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (draft) => setTransactionMessageFeePayerSigner(authority, draft),
      (draft) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash as Blockhash, lastValidBlockHeight: BigInt(lastValidBlockHeight) }, draft),
      (draft) =>
        appendTransactionMessageInstructions(
          [getTransferCheckedInstruction({ source, mint: SOLANA_SANDBOX_USDC, destination, authority, amount: usdc, decimals: SOLANA_USDC_DECIMALS }), memo],
          draft,
        ),
    );
    const { signature, err } = submit(getBase64EncodedWireTransaction(await signTransactionMessageWithSigners(message)), { simulate: false });
    if (err || !signature) throw new Error(`the sandbox's transfer failed: ${String(err)}`);
    return signature;
  };

  const context = () => ({ slot: slot(), apiVersion: "2.2.0" });
  const methods: Record<string, (params: unknown[]) => unknown> = {
    getHealth: () => "ok",
    getVersion: () => ({ "solana-core": "2.2.0", "feature-set": 0 }),
    getGenesisHash: () => GENESIS_HASH,
    getSlot: () => slot(),
    // Its whole history since it started, as a node that has purged nothing.
    getFirstAvailableBlock: () => startSlot,
    getBlockHeight: () => blockHeight(),
    getEpochInfo: () => ({ absoluteSlot: slot(), blockHeight: blockHeight(), epoch: 0, slotIndex: slot(), slotsInEpoch: 432_000, transactionCount: null }),
    getLatestBlockhash: () => ({ context: context(), value: latestBlockhash() }),
    isBlockhashValid: ([hash]) => ({ context: context(), value: blockhashValid(String(hash)) }),
    getMinimumBalanceForRentExemption: ([size]) => Number(rent(Number(size))),
    getBalance: ([address]) => ({ context: context(), value: Number(svm.getBalance(String(address) as never) ?? 0n) }),
    getAccountInfo: ([address]) => {
      const found = svm.getAccount(String(address) as never);
      if (!found.exists) return { context: context(), value: null };
      return {
        context: context(),
        value: { data: [base64.encode(found.data as Uint8Array), "base64"], executable: found.executable, lamports: Number(found.lamports), owner: String(found.programAddress), rentEpoch: 0, space: (found.data as Uint8Array).length },
      };
    },
    getTokenAccountBalance: ([address]) => {
      const amount = tokenAmount(String(address) as Address);
      if (amount === undefined) throw rpcError(-32602, "Invalid param: could not find account");
      const ui = Number(amount) / 10 ** SOLANA_USDC_DECIMALS;
      return { context: context(), value: { amount: amount.toString(), decimals: SOLANA_USDC_DECIMALS, uiAmount: ui, uiAmountString: String(ui) } };
    },
    sendTransaction: ([wire]) => {
      const result = submit(String(wire), { simulate: false });
      return result.signature;
    },
    simulateTransaction: ([wire]) => {
      const result = submit(String(wire), { simulate: true });
      return { context: context(), value: { err: result.err, logs: result.logs, accounts: null, unitsConsumed: 0, returnData: null } };
    },
    getSignatureStatuses: ([signatures]) => ({
      context: context(),
      value: (signatures as string[]).map((signature) => {
        const found = landed.get(signature);
        return found
          ? { slot: found.slot, confirmations: null, err: found.err, status: found.err ? { Err: found.err } : { Ok: null }, confirmationStatus: "finalized" }
          : null;
      }),
    }),
    getTransaction: ([signature]) => {
      const found = landed.get(String(signature));
      if (!found) return null;
      return {
        slot: found.slot,
        blockTime: found.blockTime,
        version: 0,
        transaction: [found.wire, "base64"],
        meta: { err: found.err, status: found.err ? { Err: found.err } : { Ok: null }, fee: 5000, preBalances: [], postBalances: [], preTokenBalances: found.pre, postTokenBalances: found.post, logMessages: found.logs, innerInstructions: [], loadedAddresses: { readonly: [], writable: [] }, computeUnitsConsumed: 0 },
      };
    },
    getSignaturesForAddress: ([address, options]) => signaturesFor(String(address), (options ?? {}) as SignaturesOptions),
    requestAirdrop: ([address, lamports]) => base58.encode((svm.airdrop(String(address) as never, BigInt(Number(lamports)) as never) as TransactionMetadata).signature()),
    /** The sandbox's unlocked keys: signs a wire transaction as one of them (the demo wallet). */
    sandbox_signTransaction: ([wire, address]) => {
      const key = held.get(String(address));
      if (!key) throw rpcError(-32602, `the sandbox holds no key for ${String(address)}`);
      return signAs(key, String(wire));
    },
    /** The same keys sign a message (base64 bytes), as a wallet's `solana:signMessage` does: its signature, base58. */
    sandbox_signMessage: ([message, address]) => {
      const key = held.get(String(address));
      if (!key) throw rpcError(-32602, `the sandbox holds no key for ${String(address)}`);
      return base58.encode(new Uint8Array(signEd25519(null, base64.decode(String(message)), key.privateKey)));
    },
  };

  const answer = (id: unknown, body: { method?: unknown; params?: unknown }) => {
    const method = typeof body.method === "string" ? methods[body.method] : undefined;
    if (!method) return { jsonrpc: "2.0", id, error: { code: -32601, message: `Method not found: ${String(body.method)}` } };
    try {
      return { jsonrpc: "2.0", id, result: method(Array.isArray(body.params) ? body.params : []) };
    } catch (error) {
      const rpc = (error as { rpc?: unknown }).rpc ?? { code: -32603, message: error instanceof Error ? error.message : String(error) };
      return { jsonrpc: "2.0", id, error: rpc };
    }
  };

  const server = await listen(port, async (request, response) => {
    if (request.method !== "POST") throw new HttpError(405, "JSON-RPC over POST");
    const body = (await readJson(request)) as unknown;
    const reply = Array.isArray(body)
      ? body.map((entry: { id?: unknown; method?: unknown; params?: unknown }) => answer(entry?.id ?? null, entry ?? {}))
      : answer((body as { id?: unknown })?.id ?? null, (body as { method?: unknown; params?: unknown }) ?? {});
    // u64 fields are numbers on the wire, as a validator writes them.
    sendJson(response, 200, JSON.parse(JSON.stringify(reply, (_key, value: unknown) => (typeof value === "bigint" ? Number(value) : value))));
  });

  // The funder is the mint's authority and also holds USDC, so a test may mint or transfer.
  await fund({ to: funder.address, usdc: FUNDER_USDC });
  const subscriptions = serveSubscriptions(server.server, { slot, landedSignature: (signature) => landed.get(signature) });
  onLanded = subscriptions.landed;

  return {
    ...server,
    close: async () => {
      await subscriptions.close();
      await server.close();
    },
    rpcUrl: server.url,
    network: SOLANA_SANDBOX_NETWORK,
    mint: SOLANA_SANDBOX_USDC,
    funder,
    fund,
    usdcBalance: (owner) => {
      const account = ataByOwner.get(owner);
      return account ? (tokenAmount(account) ?? 0n) : 0n;
    },
    signAs,
    holdKey: (key) => void held.set(key.address, key),
    expireBlockhashes: () => {
      for (const [hash, entry] of issued) issued.set(hash, { ...entry, lastValidBlockHeight: -1 });
      current = { hash: current.hash, at: 0 };
    },
    holdBlockhash: (held) => {
      blockhashHeld = held;
    },
    transferUsdc,
    prepareTokenAccount,
  };
}

/**
 * The subscriptions a validator's WebSocket port answers that @solana/kit's confirmation uses:
 * a signature's landing (one notification, then done) and the slot as it advances.
 */
function serveSubscriptions(server: Server, { slot, landedSignature }: { slot: () => number; landedSignature: (signature: string) => Landed | undefined }) {
  const sockets = new WebSocketServer({ server });
  const waiting = new Map<string, Set<(record: Landed) => void>>();
  let nextId = 1;

  sockets.on("connection", (socket: WebSocket) => {
    const timers = new Map<number, NodeJS.Timeout>();
    const forget = new Map<number, () => void>();
    const send = (body: unknown) => socket.readyState === socket.OPEN && socket.send(JSON.stringify(body));
    const notify = (method: string, subscription: number, result: unknown) => send({ jsonrpc: "2.0", method, params: { result, subscription } });
    const unsubscribe = (id: number) => {
      clearInterval(timers.get(id));
      timers.delete(id);
      forget.get(id)?.();
      forget.delete(id);
    };
    socket.on("message", (data) => {
      let body: { id?: unknown; method?: unknown; params?: unknown };
      try {
        body = JSON.parse(String(data)) as typeof body;
      } catch {
        send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
        return;
      }
      if (body.id === undefined) return; // a notification (a client's ping) asks for no answer
      const params = Array.isArray(body.params) ? body.params : [];
      const reply = (result: unknown) => send({ jsonrpc: "2.0", id: body.id, result });
      const id = nextId++;
      switch (body.method) {
        case "signatureSubscribe": {
          const signature = String(params[0]);
          reply(id);
          const deliver = (record: Landed) => {
            notify("signatureNotification", id, { context: { slot: record.slot }, value: { err: record.err } });
            forget.delete(id);
          };
          const found = landedSignature(signature);
          if (found) {
            deliver(found);
            return;
          }
          const listeners = waiting.get(signature) ?? new Set();
          listeners.add(deliver);
          waiting.set(signature, listeners);
          forget.set(id, () => listeners.delete(deliver));
          return;
        }
        case "slotSubscribe": {
          reply(id);
          timers.set(
            id,
            setInterval(() => {
              const now = slot();
              notify("slotNotification", id, { parent: now - 1, root: Math.max(0, now - 32), slot: now });
            }, SLOT_MS),
          );
          return;
        }
        case "signatureUnsubscribe":
        case "slotUnsubscribe":
          unsubscribe(Number(params[0]));
          reply(true);
          return;
        default:
          send({ jsonrpc: "2.0", id: body.id, error: { code: -32601, message: `Method not found: ${String(body.method)}` } });
      }
    });
    socket.on("close", () => {
      for (const subscription of [...timers.keys(), ...forget.keys()]) unsubscribe(subscription);
    });
  });

  return {
    landed(record: Landed) {
      const listeners = waiting.get(record.signature);
      if (!listeners) return;
      waiting.delete(record.signature);
      for (const deliver of listeners) deliver(record);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets.clients) socket.terminate();
        sockets.close(() => resolve());
      }),
  };
}
