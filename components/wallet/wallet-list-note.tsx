"use client";
// What a person without a wallet does, said under RainbowKit's wallet list (its disclaimer slot,
// shown in the compact list and in the phone's). Base Account and Coinbase Wallet, which need no
// extension, are where people look for a wallet wherever the page runs: on the networks Coinbase's
// service serves they are RainbowKit's own entries (coinbase-wallets.ts); elsewhere they are shown
// here, in their "No extension needed" group, disabled, with the reason (on the sandbox: Coinbase's
// service cannot reach a local chain). Then the note: where Coinbase's service serves the networks,
// make a Base Account with a passkey; on the sandbox, use its demo wallet; elsewhere, install a
// wallet (or use a phone's through WalletConnect, when it is configured).
//
// Test id: wallet-list-note.
import type { DisclaimerComponent } from "@rainbow-me/rainbowkit";
import { useEffect, useId, useState } from "react";
import { servesCoinbaseWallets } from "@/lib/chain/wallet-networks";
import { coinbaseWalletGroup } from "./coinbase-wallets";
import type { WalletSetup } from "./wagmi-config";
import styles from "./wallet-list-note.module.css";

export function walletListNote({ networks, sandbox, walletConnectProjectId }: WalletSetup): DisclaimerComponent {
  const payNetworks = networks.filter((network) => network.chainId !== sandbox?.chainId).map((network) => network.name);
  const served = servesCoinbaseWallets(networks);
  const unavailable = sandbox
    ? "Not on the sandbox: they connect through Coinbase's service, which cannot reach this local chain."
    : "Only on Base and Base Sepolia, which this site does not pay on.";
  const WalletListNote: DisclaimerComponent = ({ Text }) => (
    <>
      {served ? null : <UnavailableGroup reason={unavailable} />}
      <Text>
        <span data-testid="wallet-list-note">
          {served ? (
            <>
              No wallet? Choose <strong>Base Account</strong>: it makes you one with a passkey (your fingerprint, face or screen
              lock), with no extension or app, on a phone too. It pays once it holds USDC on {payNetworks.join(" or ")}.
            </>
          ) : sandbox ? (
            <>
              No wallet? Use the <strong>Sandbox demo wallet</strong>: it holds play USDC.
            </>
          ) : (
            <>
              No wallet? Install one in this browser (MetaMask, Rabby, Coinbase Wallet…) and reload the page
              {walletConnectProjectId ? ", or choose WalletConnect to use one on your phone" : ""}.
            </>
          )}
        </span>
      </Text>
    </>
  );
  return WalletListNote;
}

/** The wallets of the "No extension needed" group as the list names and draws them; no SDK is loaded to know this. */
const noExtensionWallets = coinbaseWalletGroup.wallets.map((createWallet) => {
  const { id, name, iconUrl, iconBackground } = createWallet({ appName: "x402 payment agent", projectId: "unused" });
  return { id, name, iconUrl, iconBackground };
});

/** The group as RainbowKit draws one (its name, then a row per wallet), each wallet disabled and described by why. */
function UnavailableGroup({ reason }: { reason: string }) {
  const nameId = useId();
  const reasonId = useId();
  return (
    <div className={styles.group} role="group" aria-labelledby={nameId}>
      <p className={styles.groupName} id={nameId}>
        {coinbaseWalletGroup.groupName}
      </p>
      {noExtensionWallets.map((wallet) => (
        <button key={wallet.id} type="button" className={styles.option} disabled aria-describedby={reasonId}>
          <WalletIcon iconUrl={wallet.iconUrl} background={wallet.iconBackground} />
          <span className={styles.name}>{wallet.name}</span>
          <span className={styles.tag}>Not here</span>
        </button>
      ))}
      <p className={styles.reason} id={reasonId}>
        {reason}
      </p>
    </div>
  );
}

/** The wallet's own icon, which RainbowKit ships as a module of its own, fetched when the list opens. */
function WalletIcon({ iconUrl, background }: { iconUrl: string | (() => Promise<string>); background: string | undefined }) {
  const [source, setSource] = useState(typeof iconUrl === "string" ? iconUrl : undefined);
  useEffect(() => {
    if (typeof iconUrl === "string") return;
    let live = true;
    iconUrl().then(
      (url) => live && setSource(url),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [iconUrl]);
  return (
    <span className={styles.icon} style={{ background }} aria-hidden="true">
      {source ? <img src={source} alt="" width={28} height={28} /> : null}
    </span>
  );
}
