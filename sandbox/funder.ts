/**
 * The funder: mints sandbox USDC and sends test ETH to any address, and sends the sandbox's own
 * transactions (deploying smart accounts). Sends one transaction at a time so concurrent callers
 * never race over the funder's nonce.
 */
import { createPublicClient, createWalletClient, http, parseEther, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import type { DevAccount } from "./accounts";
import { usdcAbi } from "./usdc";

export type FundParameters = {
  to: Hex;
  /** Atomic USDC units (6 decimals): 25 USDC is `25_000_000n`. */
  usdc?: bigint;
  /** Wei. */
  eth?: bigint;
};

export type Fund = (parameters: FundParameters) => Promise<void>;

export type Funder = Fund & {
  /** Sends a transaction from the funder, in turn with its funding; fails if it reverts. */
  transact: (request: { to: Hex; data: Hex }) => Promise<void>;
};

export function createFunder({ rpcUrl, funder, usdcAddress }: { rpcUrl: string; funder: DevAccount; usdcAddress: Hex }): Funder {
  const transport = http(rpcUrl);
  const wallet = createWalletClient({ account: privateKeyToAccount(funder.privateKey), chain: foundry, transport });
  const publicClient = createPublicClient({ chain: foundry, transport });
  let queue: Promise<void> = Promise.resolve();

  const send = async ({ to, usdc, eth }: FundParameters) => {
    if (usdc !== undefined && usdc > 0n) {
      const hash = await wallet.writeContract({ address: usdcAddress, abi: usdcAbi, functionName: "mint", args: [to, usdc] });
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== "success") throw new Error(`minting USDC to ${to} reverted`);
    }
    if (eth !== undefined && eth > 0n) {
      const hash = await wallet.sendTransaction({ to, value: eth });
      await publicClient.waitForTransactionReceipt({ hash });
    }
  };

  const inTurn = (work: () => Promise<void>): Promise<void> => {
    const next = queue.then(work);
    queue = next.catch(() => undefined);
    return next;
  };
  const transact = async ({ to, data }: { to: Hex; data: Hex }) => {
    const hash = await wallet.sendTransaction({ to, data });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`the funder's transaction to ${to} reverted`);
  };
  return Object.assign((parameters: FundParameters) => inTurn(() => send(parameters)), {
    transact: (request: { to: Hex; data: Hex }) => inTurn(() => transact(request)),
  });
}

export const DEMO_WALLET_USDC = 25_000_000n;
export const DEMO_WALLET_ETH = parseEther("10");
