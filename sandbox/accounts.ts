/**
 * The sandbox's cast of accounts: anvil's well-known development keys, each with one role.
 * These keys are public test keys; they must never hold anything real.
 */
import { createHash } from "node:crypto";
import { bytesToHex, type Hex } from "viem";
import { solanaKeyFromSeed, type SolanaKey } from "./solana";
import { mnemonicToAccount } from "viem/accounts";

/** The mnemonic every anvil instance derives its funded dev accounts from. */
const ANVIL_MNEMONIC = "test test test test test test test test test test test junk";

export type DevAccount = { address: Hex; privateKey: Hex };

function devAccount(index: number): DevAccount {
  const account = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: index });
  const privateKey = account.getHdKey().privateKey;
  if (!privateKey) throw new Error(`anvil dev account ${index} has no private key`);
  return { address: account.address, privateKey: bytesToHex(privateKey) };
}

/** A Solana key of the sandbox's, the same on every start: its seed is the hash of its role. */
function solanaDevKey(role: string): SolanaKey {
  return solanaKeyFromSeed(createHash("sha256").update(`x402 sandbox solana ${role}`).digest());
}

/**
 * Roles are separate accounts on purpose: the proxy admin cannot call through the USDC proxy,
 * and the facilitator sending settlements must not race the funder's nonces.
 */
export function sandboxAccounts() {
  return {
    /** Deploys USDC, owns it, is its master minter and minter: mints sandbox USDC on request. */
    funder: devAccount(0),
    /** Admin of the USDC proxy (only upgrades; never calls the token). */
    proxyAdmin: devAccount(1),
    /** Submits `transferWithAuthorization` and pays the gas. */
    facilitator: devAccount(2),
    /** The wallet the demo page signs with. */
    demoWallet: devAccount(3),
    /** Service owners that receive payments (payTo), one per index. */
    merchant: (index: number): DevAccount => devAccount(4 + (index % 6)),
    /** The same roles on the local Solana (its funder is the USDC mint's authority, made per start). */
    solana: {
      /** Signs and pays the fee of each settlement (the x402 fee payer). */
      facilitator: solanaDevKey("facilitator"),
      /** The Solana wallet the demo page signs with, through the sandbox. */
      demoWallet: solanaDevKey("demo wallet"),
      merchant: (index: number): SolanaKey => solanaDevKey(`merchant ${index % 6}`),
    },
  };
}

export type SandboxAccounts = ReturnType<typeof sandboxAccounts>;
