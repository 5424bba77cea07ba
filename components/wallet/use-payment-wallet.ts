"use client";
// The connected wallet as the chat needs it: who pays, on which chain, with how much USDC, and
// one signing path for every wallet (wagmi's signTypedData; wallets refuse typed data for another
// chain than their active one, so the chain a quote needs is switched to, or added, first).
// wagmi's hooks: used inside the wallet stack only, which reports to the page (wallet-context.ts).
import { useCallback, useMemo } from "react";
import { erc20Abi, maxUint256 } from "viem";
import { useAccount, useConfig, useReadContract, useSignTypedData, useSwitchChain } from "wagmi";
import { readContract, signMessage, waitForTransactionReceipt, writeContract } from "wagmi/actions";
import { CHANNEL_CONTRACT_ADDRESS, channelWithdrawAbi } from "@/lib/chain/channel-address";
import { approvableSpender } from "@/lib/chain/spenders";
import { usdcWalletAbi } from "@/lib/chain/usdc-abi";
import type { WalletNetwork } from "@/lib/chain/wallet-networks";
import { walletMessage, type ApprovalTypedData } from "@/lib/client/wallet-signer";
import { signingProblem } from "@/lib/chain/signable-payments";
import { delegationTypedData } from "@/lib/chain/delegation";
import { grantTypedData } from "@/lib/chain/access-grant";
import { formatUnits } from "@/lib/money";
import type { PaymentWallet, WalletActions } from "./wallet-context";

/** `networks`: the networks this page pays on, whose USDC alone the wallet is asked to sign payments of. */
export function usePaymentWallet(networks: readonly WalletNetwork[]): PaymentWallet {
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
      const problem = signingProblem(typedData, networks);
      if (problem) throw new Error(`${problem} The wallet was not asked to sign it.`);
      await onChain(typedData.domain.chainId);
      return signTypedDataAsync({
        account: address,
        domain: typedData.domain,
        types: typedData.types,
        primaryType: typedData.primaryType,
        message: walletMessage(typedData),
      });
    },
    [address, networks, onChain, signTypedDataAsync],
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
      channelWithdraw: (network, call) => {
        const [channel, amount] = call.args as [{ payer?: unknown; token?: unknown } | undefined, unknown];
        const known = call.contract.toLowerCase() === CHANNEL_CONTRACT_ADDRESS.toLowerCase();
        const own = typeof channel?.payer === "string" && channel.payer.toLowerCase() === address.toLowerCase();
        const usdcOnly = typeof channel?.token === "string" && channel.token.toLowerCase() === network.usdc.address.toLowerCase();
        if (!known || !own || !usdcOnly) return Promise.reject(new Error("This withdrawal is not one this page makes: only from the channel contract it knows, for a channel of this wallet's."));
        return sendOn(network, () =>
          call.functionName === "initiateWithdraw" && typeof amount === "string" && /^\d{1,39}$/.test(amount)
            ? writeContract(config, { account: address, chainId: network.chainId, address: CHANNEL_CONTRACT_ADDRESS, abi: channelWithdrawAbi, functionName: "initiateWithdraw", args: [channelConfigOf(call.args[0]), BigInt(amount)] })
            : call.functionName === "finalizeWithdraw"
              ? writeContract(config, { account: address, chainId: network.chainId, address: CHANNEL_CONTRACT_ADDRESS, abi: channelWithdrawAbi, functionName: "finalizeWithdraw", args: [channelConfigOf(call.args[0])] })
              : Promise.reject(new Error("Not a withdrawal step.")),
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

/** A channel's configuration as the contract takes it, read from the server's answer. */
function channelConfigOf(value: unknown) {
  const config = value as Record<string, unknown>;
  const address = (name: string) => {
    const field = config[name];
    if (typeof field !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(field)) throw new Error(`The channel's ${name} is not an address.`);
    return field as `0x${string}`;
  };
  const salt = config.salt;
  if (typeof salt !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(salt)) throw new Error("The channel's salt is not 32 bytes.");
  return {
    payer: address("payer"),
    payerAuthorizer: address("payerAuthorizer"),
    receiver: address("receiver"),
    receiverAuthorizer: address("receiverAuthorizer"),
    token: address("token"),
    withdrawDelay: Number(config.withdrawDelay),
    salt: salt as `0x${string}`,
  };
}
