// The typed data of a quote as the page hands it to the wallet: read from the stream (unknown on
// the wire) into the shape EIP-712 signers take, uint fields as bigint. The wallet itself signs
// through wagmi (components/wallet/use-payment-wallet.ts).

import { typedDataMessage } from "@/lib/chain/typed-data";

export type Hex = `0x${string}`;

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

function isHex(value: string): value is Hex {
  return /^0x[0-9a-fA-F]*$/.test(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
