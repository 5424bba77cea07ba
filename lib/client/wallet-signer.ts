// Signs a payment approval in the page. For now the only wallet is the sandbox's demo wallet
// (an anvil development key the page receives only when the app runs on the local sandbox); a
// real wallet connection replaces this later. viem's account code is loaded only when a
// payment is approved, so the page's first load stays small.

import { typedDataMessage } from "@/lib/x402/typed-data";

export type Hex = `0x${string}`;

/** The demo wallet as the page holds it: never a real key (see lib/chain/demo-wallet). */
export type DemoWalletKeys = { address: Hex; privateKey: Hex };

/** The EIP-712 typed data of an `awaiting-signature` quote, uint values as decimal strings. */
export type ApprovalTypedData = {
  domain: { name: string; version: string; chainId: number; verifyingContract: Hex };
  types: Record<string, Array<{ name: string; type: string }>>;
  primaryType: string;
  message: Record<string, string>;
};

/** Checks the stream's `approval.typedData` (unknown on the wire) has the shape a wallet signs. */
export function readApprovalTypedData(value: unknown): ApprovalTypedData | undefined {
  if (!isRecord(value) || !isRecord(value.domain) || !isRecord(value.types) || !isRecord(value.message)) return undefined;
  const { domain, types, message, primaryType } = value;
  if (
    typeof domain.name !== "string" ||
    typeof domain.version !== "string" ||
    typeof domain.chainId !== "number" ||
    typeof domain.verifyingContract !== "string" ||
    !isHex(domain.verifyingContract) ||
    typeof primaryType !== "string"
  ) {
    return undefined;
  }
  const checkedTypes: ApprovalTypedData["types"] = {};
  for (const [name, fields] of Object.entries(types)) {
    if (!Array.isArray(fields)) return undefined;
    const checked: Array<{ name: string; type: string }> = [];
    for (const field of fields) {
      if (!isRecord(field) || typeof field.name !== "string" || typeof field.type !== "string") return undefined;
      checked.push({ name: field.name, type: field.type });
    }
    checkedTypes[name] = checked;
  }
  if (!checkedTypes[primaryType]) return undefined;
  const checkedMessage: Record<string, string> = {};
  for (const [key, field] of Object.entries(message)) {
    if (typeof field !== "string") return undefined;
    checkedMessage[key] = field;
  }
  return {
    domain: { name: domain.name, version: domain.version, chainId: domain.chainId, verifyingContract: domain.verifyingContract },
    types: checkedTypes,
    primaryType,
    message: checkedMessage,
  };
}

/** The message with its integer fields as bigint, as the signer expects. */
export function walletMessage(typedData: ApprovalTypedData): Record<string, string | bigint> {
  return typedDataMessage(typedData);
}

/** Signs the typed data (EIP-712) with the demo wallet's key. */
export async function signWithDemoWallet(wallet: DemoWalletKeys, typedData: ApprovalTypedData): Promise<Hex> {
  const { privateKeyToAccount } = await import("viem/accounts");
  const account = privateKeyToAccount(wallet.privateKey);
  return account.signTypedData({
    domain: typedData.domain,
    types: typedData.types,
    primaryType: typedData.primaryType,
    message: walletMessage(typedData),
  });
}

function isHex(value: string): value is Hex {
  return /^0x[0-9a-fA-F]*$/.test(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
