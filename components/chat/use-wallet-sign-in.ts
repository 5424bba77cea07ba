"use client";
// Signing this browser in with the wallet, so that it sees its own payment history
// (docs/contract.md, section 9), and signing out when that wallet leaves the page: a session
// belongs to one wallet. The message names a chain the agent pays on; a person with only a Solana
// wallet signs in with it. The sign-in code is loaded when first used: most visits never sign in.
import { useEffect, useMemo, useRef } from "react";
import type { SolanaWalletState } from "@/components/wallet/use-solana-wallet";
import type { PaymentWallet, WalletStatus } from "@/components/wallet/wallet-context";
import type { WalletNetwork } from "@/lib/chain/wallet-networks";

// Outside the hook: the React Compiler does not compile a function with an import() in it.
const loadSignIn = () => import("@/lib/client/sign-in");

export type WalletSignInParameters = {
  wallet: Pick<PaymentWallet, "address" | "chainId" | "actions"> & { status: WalletStatus };
  solana: Pick<SolanaWalletState, "address" | "signIn">;
  networks: WalletNetwork[];
  /** Signed in: what the budget shows is read again, its history now included. */
  onSignedIn: () => void;
};

/** Signs in with the connected wallet; undefined when no wallet can. */
export function useWalletSignIn({ wallet, solana, networks, onSignedIn }: WalletSignInParameters): (() => Promise<void>) | undefined {
  const signMessage = wallet.actions?.signMessage;
  const solanaSignIn = solana.signIn;
  const signIn = useMemo(() => {
    const chainId = networks.some((network) => network.chainId === wallet.chainId) ? wallet.chainId : networks[0]?.chainId;
    const signInOnce =
      wallet.address && signMessage && chainId !== undefined
        ? async () => {
            const { signIn } = await loadSignIn();
            await signIn({ address: wallet.address as `0x${string}`, chainId, signMessage });
          }
        : solanaSignIn;
    if (!signInOnce) return undefined;
    return async () => {
      await signInOnce();
      onSignedIn();
    };
  }, [networks, onSignedIn, signMessage, solanaSignIn, wallet.address, wallet.chainId]);

  const signedInWallet = useRef(wallet.address);
  useEffect(() => {
    if (signedInWallet.current && signedInWallet.current !== wallet.address && wallet.status === "ready") {
      void loadSignIn().then(({ signOut }) => signOut());
    }
    if (wallet.status === "ready") signedInWallet.current = wallet.address;
  }, [wallet.address, wallet.status]);
  const signedInSolana = useRef(solana.address);
  useEffect(() => {
    if (signedInSolana.current && signedInSolana.current !== solana.address) {
      void loadSignIn().then(({ signOut }) => signOut());
    }
    signedInSolana.current = solana.address;
  }, [solana.address]);

  return signIn;
}
