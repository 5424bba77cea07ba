// The AI app access a person gave from this browser (docs/contract.md, section 11): everything of
// each grant but its token, kept in local storage, since the server keeps no copy. The page lists
// them to revoke, and pays apps' small quotes from its agent budget only while one still holds.
import { sameAddress } from "@/lib/address-text";
import type { AccessGrant } from "@/lib/chain/access-grant";

const STORE_KEY = "x402-agent.ai-app-grants";

/** A grant as this browser remembers it: everything but the token. */
export type GivenGrant = Omit<AccessGrant, "server"> & { createdAt: number; revoked?: boolean };

export function readGiven(): GivenGrant[] {
  try {
    const value = JSON.parse(window.localStorage.getItem(STORE_KEY) ?? "[]") as unknown;
    return Array.isArray(value) ? (value as GivenGrant[]).filter((grant) => typeof grant?.id === "string" && typeof grant.wallet === "string") : [];
  } catch {
    return [];
  }
}

export function writeGiven(grants: GivenGrant[]): void {
  try {
    window.localStorage.setItem(STORE_KEY, JSON.stringify(grants));
  } catch {
    // A browser that keeps nothing still gave the grant; it is just not listed here.
  }
}

/** Whether this browser gave an app access for this wallet that has not ended. */
export function hasAppAccess(wallet: string, now: number = Date.now()): boolean {
  return readGiven().some((grant) => sameAddress(grant.wallet, wallet) && !grant.revoked && grant.validUntil * 1000 > now);
}
