/**
 * The sandbox's cast of accounts: anvil's well-known development keys, each with one role.
 * These keys are public test keys; they must never hold anything real.
 */
import { bytesToHex, type Hex } from "viem";
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
  };
}

export type SandboxAccounts = ReturnType<typeof sandboxAccounts>;
