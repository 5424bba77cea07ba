// The page's channel key (docs/contract.md, section 15): one per wallet, made in this browser and
// never sent anywhere, the `payerAuthorizer` of the wallet's pay-as-you-go channels. It signs
// vouchers without a prompt, so it signs nothing else, and never more than the person agreed to:
// only the channel contract's `Voucher`, and for each channel at most the last voucher it signed
// plus the price of the call on the card (a close asks for no increase at all). Stored sealed
// (./sealed-keys.ts), with what it signed per channel, in local storage per wallet.
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { CHANNEL_CONTRACT_ADDRESS } from "@/lib/chain/channel-address";
import { openKey, sealKey, type SealedKey } from "./sealed-keys";
import { walletMessage, type ApprovalTypedData } from "./wallet-signer";

type Hex = `0x${string}`;

const STORAGE_KEY = "x402-channel-keys";

type StoredChannelKey = { address: Hex; sealedKey: SealedKey; signed: Record<string, string> };

function readAll(): Record<string, StoredChannelKey> {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "{}");
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, StoredChannelKey>) : {};
  } catch {
    return {};
  }
}

function writeOne(wallet: string, key: StoredChannelKey): void {
  localStorage.setItem(STORAGE_KEY, JSON.stringify({ ...readAll(), [wallet.toLowerCase()]: key }));
}

/** The wallet's channel key's address in this browser, if it has one. */
export function channelKeyAddress(wallet: string): Hex | undefined {
  return readAll()[wallet.toLowerCase()]?.address;
}

/** The wallet's channel key in this browser, made now if it has none. */
export async function ensureChannelKey(wallet: string): Promise<Hex> {
  const existing = channelKeyAddress(wallet);
  if (existing) return existing;
  const privateKey = generatePrivateKey();
  const address = privateKeyToAccount(privateKey).address;
  writeOne(wallet, { address, sealedKey: await sealKey(privateKey), signed: {} });
  return address;
}

/**
 * Why the channel key will not sign this, if it will not: not a voucher of the channel contract,
 * or more than the last voucher it signed for the channel plus `increase`.
 */
export function voucherProblem(typedData: ApprovalTypedData, signedBefore: bigint, increase: bigint): string | undefined {
  if (typedData.primaryType !== "Voucher") return "The channel key signs vouchers only.";
  if (String(typedData.domain.verifyingContract ?? "").toLowerCase() !== CHANNEL_CONTRACT_ADDRESS.toLowerCase()) return "This voucher is not for the channel contract.";
  const amount = typedData.message.maxClaimableAmount;
  if (typeof amount !== "string" || !/^\d{1,78}$/.test(amount)) return "This voucher names no amount.";
  if (BigInt(amount) > signedBefore + increase) return "This voucher asks for more than the call's price on the card.";
  return undefined;
}

/**
 * The channel key's signature of a voucher: at most `increase` (atomic units) past the last one it
 * signed for the channel (0 for a close). Throws, signing nothing, when the voucher is not that.
 */
export async function signVoucher(wallet: string, typedData: ApprovalTypedData, increase: bigint): Promise<Hex> {
  const stored = readAll()[wallet.toLowerCase()];
  if (!stored) throw new Error("This browser holds no channel key for this wallet.");
  const channelId = String(typedData.message.channelId ?? "").toLowerCase();
  const before = BigInt(stored.signed[channelId] ?? "0");
  const problem = voucherProblem(typedData, before, increase);
  if (problem) throw new Error(problem);
  const account = privateKeyToAccount(await openKey(stored.sealedKey));
  if (account.address !== stored.address) throw new Error("The channel key does not match its address.");
  const signature = await account.signTypedData({ domain: typedData.domain, types: typedData.types, primaryType: typedData.primaryType, message: walletMessage(typedData) });
  const amount = BigInt(String(typedData.message.maxClaimableAmount));
  writeOne(wallet, { ...stored, signed: { ...stored.signed, [channelId]: (amount > before ? amount : before).toString() } });
  return signature;
}
