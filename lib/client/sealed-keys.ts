// Keys the page makes and keeps for itself (the agent budget's session key, a channel's key),
// stored sealed (AES-GCM) under a WebCrypto key that cannot be exported and lives in IndexedDB,
// so a copy of local storage alone is useless. Loaded only when a key is used.
import type { Hex } from "viem";

/** A private key as stored: sealed, with its IV, both base64. */
export type SealedKey = { iv: string; data: string };

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

/** A private key sealed under this browser's sealing key. */
export async function sealKey(privateKey: Hex): Promise<SealedKey> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await sealingKey(), new TextEncoder().encode(privateKey));
  return { iv: toBase64(iv), data: toBase64(new Uint8Array(data)) };
}

/** A sealed key opened, in this browser only. */
export async function openKey(sealed: SealedKey): Promise<Hex> {
  try {
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: fromBase64(sealed.iv) }, await sealingKey(), fromBase64(sealed.data));
    return new TextDecoder().decode(plain) as Hex;
  } catch {
    throw new Error("This browser cannot open the key (its storage was cleared or copied from elsewhere).");
  }
}
