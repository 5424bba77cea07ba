"use client";
// The connected wallet as the chat needs it: who pays, on which chain, with how much USDC, and
// one signing path for every wallet (wagmi's signTypedData; wallets refuse typed data for another
// chain than their active one, so the chain a quote needs is switched to, or added, first).
// wagmi's hooks: used inside the wallet stack only, which reports to the page (wallet-context.ts).
import { useCallback, useMemo } from "react";
import { erc20Abi, maxUint256 } from "viem";
import { useAccount, useConfig, useReadContract, useSignTypedData, useSwitchChain } from "wagmi";
import { readContract, signMessage, waitForTransactionReceipt, writeContract } from "wagmi/actions";
import { approvableSpender } from "@/lib/chain/spenders";
import { usdcWalletAbi } from "@/lib/chain/usdc-abi";
import type { WalletNetwork } from "@/lib/chain/wallet-networks";
import { walletMessage, type ApprovalTypedData } from "@/lib/client/wallet-signer";
import { delegationTypedData } from "@/lib/chain/delegation";
import { grantTypedData } from "@/lib/chain/access-grant";
import { formatUnits } from "@/lib/money";
import type { PaymentWallet, WalletActions } from "./wallet-context";

export function usePaymentWallet(): PaymentWallet {
  const { address, chainId, connector, status } = useAccount();
  const { switchChainAsync } = useSwitchChain();
  const { signTypedDataAsync } = useSignTypedData();
  const connected = status === "connected" && address !== undefined;

  // Wallets sign and send for their active chain only: the one a request needs is switched to first.
  const onChain = useCallback(
    async (target: number) => {
      const current = connector ? await connector.getChainId() : chainId;
      if (current !== target) await switchChainAsync({ chainId: target });
    },
    [chainId, connector, switchChainAsync],
  );

  const sign = useCallback(
    async (typedData: ApprovalTypedData) => {
      if (!address) throw new Error("No wallet is connected");
      await onChain(typedData.domain.chainId);
      return signTypedDataAsync({
        account: address,
        domain: typedData.domain,
        types: typedData.types,
        primaryType: typedData.primaryType,
        message: walletMessage(typedData),
      });
    },
    [address, onChain, signTypedDataAsync],
  );

  const config = useConfig();
  const actions = useMemo<WalletActions | undefined>(() => {
    if (!address) return undefined;
    /** Sends a USDC call from the wallet on the network's chain, and waits until it is mined. */
    const sendOn = async (network: WalletNetwork, send: () => Promise<`0x${string}`>) => {
      await onChain(network.chainId);
      const hash = await send();
      const receipt = await waitForTransactionReceipt(config, { hash, chainId: network.chainId });
      if (receipt.status !== "success") throw new Error(`The transaction ${hash} failed on chain.`);
      return hash;
    };
    const usdc = (network: WalletNetwork) => ({ account: address, chainId: network.chainId, address: network.usdc.address, abi: usdcWalletAbi });
    return {
      signDelegation: (delegation) => signTypedDataAsync({ account: address, ...delegationTypedData(delegation) }),
      signAccessGrant: async (grant, chainId) => {
        await onChain(chainId);
        return signTypedDataAsync({ account: address, ...grantTypedData(grant, chainId) });
      },
      signMessage: (message) => signMessage(config, { account: address, message }),
      transferUsdc: (network, to, amount) =>
        sendOn(network, () => writeContract(config, { ...usdc(network), functionName: "transfer", args: [to, amount] })),
      submitUsdcAuthorization: (network, authorization) =>
        sendOn(network, () => writeContract(config, { ...usdc(network), functionName: "transferWithAuthorization", args: authorization })),
      approveSpender: (network, fallback) => {
        // Only the network's USDC, and only to a contract this page knows: a server's word alone
        // never has the wallet hand its tokens to an address.
        const spender = approvableSpender(fallback.spender);
        if (!spender || fallback.token.toLowerCase() !== network.usdc.address.toLowerCase()) {
          return Promise.reject(new Error("This approval is not one this page makes: only USDC, to a contract it knows."));
        }
        return sendOn(network, () =>
          writeContract(config, { account: address, chainId: network.chainId, address: network.usdc.address, abi: erc20Abi, functionName: "approve", args: [spender, maxUint256] }),
        );
      },
      usdcBalanceOf: (network, owner) =>
        readContract(config, { chainId: network.chainId, address: network.usdc.address, abi: erc20Abi, functionName: "balanceOf", args: [owner] }),
    };
  }, [address, config, onChain, signTypedDataAsync]);

  return {
    address: connected ? address : undefined,
    chainId: connected ? chainId : undefined,
    connectorName: connected ? connector?.name : undefined,
    sign: connected ? sign : undefined,
    actions: connected ? actions : undefined,
  };
}

/** The wallet's USDC balance on one network, as a decimal string; undefined while unknown. */
export function useUsdcBalance(address: `0x${string}` | undefined, network: WalletNetwork | undefined, refreshKey = 0) {
  const { data } = useReadContract({
    address: network?.usdc.address,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: address ? [address] : undefined,
    chainId: network?.chainId,
    scopeKey: `usdc-${refreshKey}`,
    // Only a new balance renders the reporter again, not each step of the query's fetching.
    query: { enabled: Boolean(address && network), refetchInterval: 30_000, notifyOnChangeProps: ["data"] },
  });
  return typeof data === "bigint" && network ? formatUnits(data, network.usdc.decimals) : undefined;
}
