// The access grant an AI app holds to use this agent over MCP (docs/contract.md, section 11): the
// wallet it acts for, the limits that are its ceiling, until when, and an id to revoke it by,
// signed by the wallet as EIP-712 typed data. Free of server imports: the page builds the typed
// data its wallet signs from here, and the server checks the same.
//
// A grant is for one deployment: its `server` names that deployment's origin, the server accepts
// only its own, and the origin is also the signing domain's salt, so a signature made for a copy of
// the site elsewhere is not a signature of any grant here.
import { keccak256, stringToBytes } from "viem";

/** A grant's limits, in USDC's atomic units (micro-dollars), as decimal strings on the wire. */
export type GrantLimits = { daily: string; weekly: string; monthly: string; perPayment: string };

export type AccessGrant = {
  /** Random, 32 hex characters: what a revocation names. */
  id: string;
  /** The EVM wallet whose limits, ledger and signature every payment through the grant uses. */
  wallet: `0x${string}`;
  limits: GrantLimits;
  /** Unix seconds. */
  validUntil: number;
  /** The origin of the deployment the grant is for: a grant for one server is nothing to another. */
  server: string;
  /** What the person called the app it is for ("Claude Desktop"); shown in their list only. */
  label: string;
};

export { MAX_GRANT_DAYS } from "./grant-terms";

export const grantTypes = {
  AccessGrant: [
    { name: "id", type: "string" },
    { name: "wallet", type: "address" },
    { name: "label", type: "string" },
    { name: "daily", type: "uint256" },
    { name: "weekly", type: "uint256" },
    { name: "monthly", type: "uint256" },
    { name: "perPayment", type: "uint256" },
    { name: "validUntil", type: "uint256" },
    { name: "server", type: "string" },
  ],
} as const;

/** The signing domain's salt for a deployment: keccak256 of its origin's UTF-8 bytes. */
export function grantDomainSalt(server: string): `0x${string}` {
  return keccak256(stringToBytes(server));
}

/** The typed data a wallet signs for a grant, on the chain it is connected to, for the deployment the grant names. */
export function grantTypedData(grant: AccessGrant, chainId: number) {
  return {
    domain: { name: "x402 Payment Agent access grant", version: "2", chainId, salt: grantDomainSalt(grant.server) },
    types: grantTypes,
    primaryType: "AccessGrant" as const,
    message: {
      id: grant.id,
      wallet: grant.wallet,
      label: grant.label,
      daily: BigInt(grant.limits.daily),
      weekly: BigInt(grant.limits.weekly),
      monthly: BigInt(grant.limits.monthly),
      perPayment: BigInt(grant.limits.perPayment),
      validUntil: BigInt(grant.validUntil),
      server: grant.server,
    },
  };
}
