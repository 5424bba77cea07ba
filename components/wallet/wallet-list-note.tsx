"use client";
// What a person without a wallet does, said under RainbowKit's wallet list (its disclaimer slot, shown
// in the compact list and in the phone's): where Coinbase's service serves the networks, make a
// Base Account with a passkey; on the sandbox, use its demo wallet, since Base Account and Coinbase
// Wallet cannot reach a local chain; elsewhere, install a wallet (or use a phone's through
// WalletConnect, when it is configured).
//
// Test id: wallet-list-note.
import type { DisclaimerComponent } from "@rainbow-me/rainbowkit";
import { servesCoinbaseWallets } from "@/lib/chain/wallet-networks";
import type { WalletSetup } from "./wagmi-config";

export function walletListNote({ networks, sandbox, walletConnectProjectId }: WalletSetup): DisclaimerComponent {
  const payNetworks = networks.filter((network) => network.chainId !== sandbox?.chainId).map((network) => network.name);
  const WalletListNote: DisclaimerComponent = ({ Text }) => (
    <Text>
      <span data-testid="wallet-list-note">
        {servesCoinbaseWallets(networks) ? (
          <>
            No wallet? Choose <strong>Base Account</strong>: it makes you one with a passkey (your fingerprint, face or screen
            lock), with no extension or app, on a phone too. It pays once it holds USDC on {payNetworks.join(" or ")}.
          </>
        ) : sandbox ? (
          <>
            No wallet? Use the <strong>Sandbox demo wallet</strong>: it holds play USDC. <strong>Base Account</strong> (passkeys)
            and <strong>Coinbase Wallet</strong> need no extension either, on Base and Base Sepolia, but they cannot connect
            here: they go through Coinbase&apos;s service, which does not reach this local chain.
          </>
        ) : (
          <>
            No wallet? Install one in this browser (MetaMask, Rabby, Coinbase Wallet…) and reload the page
            {walletConnectProjectId ? ", or choose WalletConnect to use one on your phone" : ""}.
          </>
        )}
      </span>
    </Text>
  );
  return WalletListNote;
}
