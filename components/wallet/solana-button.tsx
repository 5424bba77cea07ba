"use client";
// The top bar's Solana wallet button, beside the EVM one: "Solana" opens the list of Solana
// wallets this browser has (through the Wallet Standard); connected, it shows the account and
// disconnects it. Shown only when the server pays on a Solana network.
import { useEffect, useRef, useState } from "react";
import type { SolanaWalletState } from "./use-solana-wallet";
import styles from "./solana-button.module.css";

export function SolanaWalletButton({ wallet }: { wallet: SolanaWalletState }) {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const menu = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    const close = (event: MouseEvent | KeyboardEvent) => {
      if (event instanceof KeyboardEvent ? event.key === "Escape" : !menu.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("mousedown", close);
    document.addEventListener("keydown", close);
    return () => {
      document.removeEventListener("mousedown", close);
      document.removeEventListener("keydown", close);
    };
  }, [open]);

  const label = wallet.address ? `${wallet.address.slice(0, 4)}…${wallet.address.slice(-4)}` : "Solana";
  return (
    <div className={styles.wrap} ref={menu} data-testid="solana-wallet">
      <button
        type="button"
        className={styles.button}
        aria-haspopup="menu"
        aria-expanded={open}
        title={wallet.address ? `Solana wallet ${wallet.address} (${wallet.walletName ?? ""})` : "Connect a Solana wallet"}
        onClick={() => {
          setError(undefined);
          setOpen((value) => !value);
        }}
      >
        {label}
      </button>
      {open ? (
        <div className={styles.menu} role="menu" aria-label="Solana wallets">
          {wallet.address ? (
            <>
              <p className={styles.note}>
                Connected: <code>{wallet.address}</code> in {wallet.walletName}
              </p>
              <button
                type="button"
                role="menuitem"
                className={styles.item}
                onClick={() => {
                  setOpen(false);
                  void wallet.disconnect();
                }}
              >
                Disconnect
              </button>
            </>
          ) : wallet.available.length === 0 ? (
            <p className={styles.note}>No Solana wallet found in this browser. Install one (Phantom, Solflare, Backpack…) and reload.</p>
          ) : (
            wallet.available.map((choice) => (
              <button
                key={choice.name}
                type="button"
                role="menuitem"
                className={styles.item}
                onClick={async () => {
                  try {
                    await wallet.connect(choice.name);
                    setOpen(false);
                  } catch (cause) {
                    setError(cause instanceof Error ? cause.message.split("\n")[0] : "The wallet did not connect.");
                  }
                }}
              >
                {/* A wallet's own icon, a data: URI it registered with. */}
                {/* eslint-disable-next-line @next/next/no-img-element */}
                <img src={choice.icon} alt="" width={20} height={20} />
                {choice.name}
              </button>
            ))
          )}
          {error ? (
            <p className={styles.error} role="alert">
              {error}
            </p>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
