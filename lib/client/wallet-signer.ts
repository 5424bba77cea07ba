// The typed data of a quote as the page hands it to the wallet: read from the stream (unknown on
// the wire) into the shape EIP-712 signers take, uint fields as bigint. The wallet itself signs
// through wagmi (components/wallet/use-payment-wallet.ts).

import { nestedTypedDataMessage, type SignableValue, type TypedDataValue } from "@/lib/chain/typed-data";

export type Hex = `0x${string}`;

/**
 * The EIP-712 typed data of an `awaiting-signature` quote, uint values as decimal strings: a flat
 * message for `exact` (EIP-3009), structs within it for `upto` (a witness transfer, whose
 * domain has no version).
 */
export type ApprovalTypedData = {
  domain: { name: string; version?: string; chainId: number; verifyingContract: Hex };
  types: Record<string, Array<{ name: string; type: string }>>;
  primaryType: string;
  message: Record<string, TypedDataValue>;
};

/** Checks the stream's `approval.typedData` (unknown on the wire) has the shape a wallet signs. */
export function readApprovalTypedData(value: unknown): ApprovalTypedData | undefined {
  if (!isRecord(value) || !isRecord(value.domain) || !isRecord(value.types) || !isRecord(value.message)) return undefined;
  const { domain, types, message, primaryType } = value;
  if (
    typeof domain.name !== "string" ||
    (domain.version !== undefined && typeof domain.version !== "string") ||
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
  const checkedMessage = readMessage(message, 0);
  if (!checkedMessage) return undefined;
  return {
    domain: {
      name: domain.name,
      ...(typeof domain.version === "string" ? { version: domain.version } : {}),
      chainId: domain.chainId,
      verifyingContract: domain.verifyingContract,
    },
    types: checkedTypes,
    primaryType,
    message: checkedMessage,
  };
}

/** Strings, or structs of them, at most a few levels deep. */
function readMessage(value: Record<string, unknown>, depth: number): Record<string, TypedDataValue> | undefined {
  if (depth > 3) return undefined;
  const checked: Record<string, TypedDataValue> = {};
  for (const [key, field] of Object.entries(value)) {
    if (typeof field === "string") checked[key] = field;
    else if (isRecord(field)) {
      const inner = readMessage(field, depth + 1);
      if (!inner) return undefined;
      checked[key] = inner;
    } else return undefined;
  }
  return checked;
}

/** The message with its integer fields, at any depth, as bigint, as the signer expects. */
export function walletMessage(typedData: ApprovalTypedData): Record<string, SignableValue> {
  return nestedTypedDataMessage(typedData);
}

/** The address a quote's typed data names as its payer, where it names one in its message (EIP-3009's `from`). */
export function payerOfTypedData(typedData: ApprovalTypedData): string | undefined {
  const from = typedData.message.from;
  return typeof from === "string" ? from : undefined;
}

function isHex(value: string): value is Hex {
  return /^0x[0-9a-fA-F]*$/.test(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

