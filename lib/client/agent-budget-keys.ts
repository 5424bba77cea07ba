// The agent budget's session key (lib/client/agent-budget.ts keeps the rest): made in this
// browser and never sent anywhere. It is stored sealed (AES-GCM) under a WebCrypto key that cannot
// be exported and lives in IndexedDB, so a copy of local storage alone is useless. It signs only
// quotes made for it (checked by sessionQuoteProblem first) and the one authorization that returns
// what is left to the wallet when the person revokes the budget. Loaded only when used.
import { parseSignature, toHex, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { transferWithAuthorizationTypes } from "@/lib/chain/typed-data";
import type { StoredAgentBudget } from "./agent-budget";
import { openKey, sealKey, type SealedKey } from "./sealed-keys";
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
