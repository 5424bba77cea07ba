/**
 * Permit2 and the x402 upto proxy on the sandbox chain, each at its canonical address.
 *
 * Permit2's runtime code comes from @uniswap/v4-periphery (the hex literal its
 * `DeployPermit2.sol` test helper places at the canonical address). That code was made by a
 * constructor run on chain 31337 at another address, and Permit2 keeps both as immutables: it
 * answers its cached domain separator whenever `block.chainid` equals the cached chain id. The
 * sandbox chain's id is 31337 too, so the cached separator (of the wrong address) would be used,
 * and every Permit2 signature, built for the canonical address, would fail. The sandbox writes
 * into the code what the constructor would have cached had it run here: the separator of
 * ("Permit2", 31337, 0x0000…BA3). Nothing else in the code changes; tests hold the result to the
 * domain the x402 client signs.
 *
 * The upto proxy has no published bytecode in any package: the sandbox's own contract
 * (contracts/X402UptoPermit2Proxy.sol, compiled by contracts/compile.ts) stands in for it.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { PERMIT2_ADDRESS, x402UptoPermit2ProxyAddress } from "@x402/evm";
import { createPublicClient, createTestClient, createWalletClient, encodeAbiParameters, erc20Abi, http, keccak256, maxUint256, parseAbi, toHex, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import type { DevAccount } from "./accounts";
import { readUptoProxyArtifact } from "./contracts/compile";

export { PERMIT2_ADDRESS, x402UptoPermit2ProxyAddress as UPTO_PROXY_ADDRESS };

export const permit2Abi = parseAbi([
  "function DOMAIN_SEPARATOR() view returns (bytes32)",
  "function nonceBitmap(address owner, uint256 wordPosition) view returns (uint256)",
]);

const DOMAIN_TYPE_HASH = keccak256(toHex("EIP712Domain(string name,uint256 chainId,address verifyingContract)"));

/** Permit2's runtime code as @uniswap/v4-periphery ships it. */
export function shippedPermit2Code(): Hex {
  const require = createRequire(import.meta.url);
  const path = require.resolve("@uniswap/v4-periphery/lib/permit2/test/utils/DeployPermit2.sol");
  const match = /bytes memory bytecode\s*=\s*hex"([0-9a-fA-F]+)"/.exec(readFileSync(path, "utf8"));
  if (!match?.[1]) throw new Error("Permit2's runtime code not found in @uniswap/v4-periphery");
  return `0x${match[1].toLowerCase()}`;
}

/** The domain separator Permit2 computes for itself at `address` on `chainId`. */
export function permit2DomainSeparator(chainId: number, address: Hex = PERMIT2_ADDRESS): Hex {
  return keccak256(
    encodeAbiParameters(
      [{ type: "bytes32" }, { type: "bytes32" }, { type: "uint256" }, { type: "address" }],
      [DOMAIN_TYPE_HASH, keccak256(toHex("Permit2")), BigInt(chainId), address],
    ),
  );
}

/** Every 32-byte push of `from` in the code replaced by `to`. */
function replacePush32(code: Hex, from: Hex, to: Hex): { code: Hex; count: number } {
  const needle = `7f${from.slice(2).toLowerCase()}`;
  const parts = code.slice(2).split(needle);
  return { code: `0x${parts.join(`7f${to.slice(2).toLowerCase()}`)}`, count: parts.length - 1 };
}

export async function installPermit2AndUptoProxy(rpcUrl: string): Promise<void> {
  const transport = http(rpcUrl);
  const publicClient = createPublicClient({ chain: foundry, transport });
  const testClient = createTestClient({ chain: foundry, mode: "anvil", transport });
  const chainId = await publicClient.getChainId();

  const shipped = shippedPermit2Code();
  await testClient.setCode({ address: PERMIT2_ADDRESS, bytecode: shipped });
  const expected = permit2DomainSeparator(chainId);
  const answered = await publicClient.readContract({ address: PERMIT2_ADDRESS, abi: permit2Abi, functionName: "DOMAIN_SEPARATOR" });
  if (answered !== expected) {
    // The cached chain id is this chain's: the cached separator, of another address, is what it
    // answers. Put this address's in its place.
    const { code, count } = replacePush32(shipped, answered, expected);
    if (count === 0) throw new Error("Permit2's cached domain separator was not found in its code");
    await testClient.setCode({ address: PERMIT2_ADDRESS, bytecode: code });
    const fixed = await publicClient.readContract({ address: PERMIT2_ADDRESS, abi: permit2Abi, functionName: "DOMAIN_SEPARATOR" });
    if (fixed !== expected) throw new Error(`Permit2's domain separator is ${fixed}, expected ${expected}`);
  }

  await testClient.setCode({ address: x402UptoPermit2ProxyAddress, bytecode: readUptoProxyArtifact().deployedBytecode as Hex });
}

/**
 * The owner's one-time USDC approval of Permit2, sent with its own gas, as a person does once
 * before paying `upto` services: the sandbox's demo wallet starts with it.
 */
export async function approvePermit2({ rpcUrl, owner, usdc }: { rpcUrl: string; owner: DevAccount; usdc: Hex }): Promise<void> {
  const transport = http(rpcUrl);
  const wallet = createWalletClient({ account: privateKeyToAccount(owner.privateKey), chain: foundry, transport });
  const hash = await wallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "approve", args: [PERMIT2_ADDRESS, maxUint256] });
  const receipt = await createPublicClient({ chain: foundry, transport }).waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error(`approving Permit2 for ${owner.address} reverted`);
}
