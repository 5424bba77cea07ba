// The agent budget's session key (lib/client/agent-budget.ts keeps the rest): made in this
// browser and never sent anywhere. It is stored sealed (AES-GCM) under a WebCrypto key that cannot
// be exported and lives in IndexedDB, so a copy of local storage alone is useless. It signs only
// quotes made for it (checked by sessionQuoteProblem first) and the one authorization that returns
// what is left to the wallet when the person revokes the budget. Loaded only when used.
import { parseSignature, toHex, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { transferWithAuthorizationTypes } from "@/lib/chain/typed-data";
import type { SealedKey, StoredAgentBudget } from "./agent-budget";
import { walletMessage, type ApprovalTypedData } from "./wallet-signer";

/** A new session key, sealed at once; the plain key is not kept. */
export async function createSessionKey(): Promise<{ address: Hex; sealedKey: SealedKey }> {
  const privateKey = generatePrivateKey();
  return { address: privateKeyToAccount(privateKey).address, sealedKey: await sealKey(privateKey) };
}

/** The session key's signature of a quote made for it (check sessionQuoteProblem first). */
export async function signWithSessionKey(budget: StoredAgentBudget, typedData: ApprovalTypedData): Promise<Hex> {
  const account = privateKeyToAccount(await openKey(budget.sealedKey));
  return account.signTypedData({
    domain: typedData.domain,
    types: typedData.types,
    primaryType: typedData.primaryType,
    message: walletMessage(typedData),
  });
}

/** The arguments of USDC's transferWithAuthorization(from, to, value, validAfter, validBefore, nonce, v, r, s). */
export type WithdrawalAuthorization = readonly [Hex, Hex, bigint, bigint, bigint, Hex, number, Hex, Hex];

/** How long the withdrawal's authorization stays valid: time for the wallet to submit it. */
const WITHDRAWAL_SECONDS = 60 * 60;

/**
 * The session key's EIP-3009 authorization to move `amount` back to the wallet, for the wallet to
 * submit (and pay its gas): the one thing the key signs that is not a quote.
 */
export async function withdrawalAuthorization(budget: StoredAgentBudget, amount: bigint, now: Date = new Date()): Promise<WithdrawalAuthorization> {
  const account = privateKeyToAccount(await openKey(budget.sealedKey));
  const validBefore = BigInt(Math.floor(now.getTime() / 1000) + WITHDRAWAL_SECONDS);
  const nonce = toHex(crypto.getRandomValues(new Uint8Array(32)));
  const message = { from: account.address, to: budget.grant.wallet, value: amount, validAfter: 0n, validBefore, nonce };
  const signature = await account.signTypedData({
    domain: { name: budget.network.usdc.name, version: budget.network.usdc.version, chainId: budget.network.chainId, verifyingContract: budget.network.usdc.address },
    types: transferWithAuthorizationTypes,
    primaryType: "TransferWithAuthorization",
    message,
  });
  const { r, s, v, yParity } = parseSignature(signature);
  return [message.from, message.to, amount, 0n, validBefore, nonce, Number(v ?? BigInt(yParity + 27)), r, s];
}

// The sealing key: AES-GCM, made once per browser profile, not extractable, kept in IndexedDB
// (which stores the key object itself; its bytes are never readable by a script).
const DB_NAME = "x402-agent-budget";
const STORE = "keys";
const SEALING_KEY_ID = "session-key-sealing";

function openDatabase(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error("IndexedDB could not be opened"));
  });
}

function storeRequest<T>(db: IDBDatabase, mode: IDBTransactionMode, run: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    const request = run(db.transaction(STORE, mode).objectStore(STORE));
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error("IndexedDB request failed"));
  });
}

async function sealingKey(): Promise<CryptoKey> {
  const db = await openDatabase();
  try {
    const existing = await storeRequest<CryptoKey | undefined>(db, "readonly", (store) => store.get(SEALING_KEY_ID) as IDBRequest<CryptoKey | undefined>);
    if (existing) return existing;
    const key = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]);
    await storeRequest(db, "readwrite", (store) => store.put(key, SEALING_KEY_ID));
    return key;
  } finally {
    db.close();
  }
}

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (char) => char.charCodeAt(0));

async function sealKey(privateKey: Hex): Promise<SealedKey> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await sealingKey(), new TextEncoder().encode(privateKey));
  return { iv: toBase64(iv), data: toBase64(new Uint8Array(data)) };
}

async function openKey(sealed: SealedKey): Promise<Hex> {
  try {
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: fromBase64(sealed.iv) }, await sealingKey(), fromBase64(sealed.data));
    return new TextDecoder().decode(plain) as Hex;
  } catch {
    throw new Error("This browser cannot open the agent budget's key (its storage was cleared or copied from elsewhere).");
  }
}
