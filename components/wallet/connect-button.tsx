"use client";
// The top bar's wallet button. Until RainbowKit has arrived and drawn its own button, a button of
// the same size and look holds its place (server-rendered, so the top bar never shifts): "Connect
// Wallet", or, once wagmi has reconnected a remembered wallet without RainbowKit, that account
// (RainbowKit's account button: the avatar and the shortened address; the chain selector beside
// it when more than one chain is enabled). RainbowKit's button is put into the slot beside it
// through a portal (wallet-button.tsx), and the placeholder leaves once that button is visible
// (RainbowKit mounts its button hidden, aria-hidden and transparent, for a frame or two).
// The placeholder is disabled while a wallet used before is reconnecting. Otherwise it is the
// button a person reaches for: pointing at it or focusing it loads RainbowKit, and a click opens
// what that button opens (the wallet list, the account, the chains) as soon as RainbowKit's is
// there (it is clicked for the person, and keeps the focus).
import { startTransition, useEffect, useRef, useState } from "react";
import { Identicon } from "./identicon";
import { useWalletContext } from "./wallet-context";
import styles from "./connect-button.module.css";

/** Which of RainbowKit's buttons a placeholder stands for (by RainbowKit's test ids). */
type Part = "connect" | "account" | "chain";
const realButton: Record<Part, string> = { connect: "rk-connect-button", account: "rk-account-button", chain: "rk-chain-button" };

/** The address as RainbowKit shows it: its first and last four characters. */
function shortAddress(address: string): string {
  return `${address.slice(0, 4)}…${address.slice(-4)}`;
}

export function WalletConnectButton() {
  const { status, wallet, chainCount, loadFailed, loadWallet, setConnectTarget } = useWalletContext();
  const [target, setTarget] = useState<HTMLDivElement | null>(null);
  const real = useVisibleButton(target);
  // The part clicked, and the account it was clicked for (none for "connect").
  const [clicked, setClicked] = useState<{ part: Part; address: string | undefined } | undefined>(undefined);
  const focused = useRef<Part | undefined>(undefined);

  // A transition: the page's render for it yields between its parts (it follows hydration at once).
  useEffect(() => {
    startTransition(() => setConnectTarget(target));
    return () => setConnectTarget(null);
  }, [target, setConnectTarget]);

  // RainbowKit's button takes over what the person did with the placeholder: the focus, and a
  // click, when the wallet is still as it was when they clicked (a wallet the browser had already
  // allowed may connect meanwhile, and then needs no list).
  useEffect(() => {
    if (!real || !target) return;
    const part = clicked?.part ?? focused.current;
    const button = part ? target.querySelector<HTMLButtonElement>(`[data-testid="${realButton[part]}"]`) : null;
    if (part) (button ?? real).focus();
    if (clicked && button && clicked.address === wallet.address) button.click();
    setClicked(undefined);
  }, [real, target, clicked, wallet.address]);

  const waiting = clicked !== undefined && !loadFailed;
  const title = loadFailed ? "The wallet could not be loaded. Try again." : status === "loading" || waiting ? "Loading the wallet…" : undefined;
  const reach = (part: Part) => ({
    type: "button" as const,
    "aria-busy": (waiting && clicked?.part === part) || undefined,
    title,
    onPointerEnter: loadWallet,
    onFocus: () => {
      focused.current = part;
      loadWallet();
    },
    onBlur: () => {
      focused.current = undefined;
    },
    onClick: () => {
      setClicked({ part, address: wallet.address });
      loadWallet();
    },
  });

  const placeholder = wallet.address ? (
    <div className={styles.connected}>
      {chainCount > 1 ? (
        <button className={styles.chain} aria-label="Chain Selector" {...reach("chain")}>
          <span className={styles.chainIcon} />
          <Chevron />
        </button>
      ) : null}
      <button className={styles.account} {...reach("account")}>
        <span className={styles.accountInner}>
          <Identicon address={wallet.address} size={24} />
          <span className={styles.name}>{shortAddress(wallet.address)}</span>
          <Chevron />
        </span>
      </button>
    </div>
  ) : (
    <button className={styles.placeholder} disabled={status === "loading"} {...reach("connect")}>
      Connect Wallet
    </button>
  );
  return (
    <div className={styles.slot} data-testid="wallet-connect" data-state={real ? "ready" : status}>
      {real ? null : placeholder}
      {/* After the placeholder, so the real button is drawn over it until it leaves. */}
      <div ref={setTarget} />
    </div>
  );
}

/** RainbowKit's dropdown mark. */
function Chevron() {
  return (
    <svg className={styles.chevron} fill="none" height="7" width="14" aria-hidden="true">
      <path
        d="M12.75 1.54001L8.51647 5.0038C7.77974 5.60658 6.72026 5.60658 5.98352 5.0038L1.75 1.54001"
        stroke="currentColor"
        strokeLinecap="round"
        strokeLinejoin="round"
        strokeWidth="2.5"
      />
    </svg>
  );
}

/** The button in `container` a person can see (one not inside an aria-hidden element), once there is one. */
function useVisibleButton(container: HTMLElement | null): HTMLButtonElement | null {
  const [visible, setVisible] = useState<HTMLButtonElement | null>(null);
  useEffect(() => {
    if (!container || visible) return;
    const check = () => {
      const found = [...container.querySelectorAll("button")].find((button) => !button.closest('[aria-hidden="true"]'));
      if (found) setVisible(found);
      return found !== undefined;
    };
    if (check()) return;
    const observer = new MutationObserver(() => {
      if (check()) observer.disconnect();
    });
    observer.observe(container, { childList: true, subtree: true, attributes: true, attributeFilter: ["aria-hidden"] });
    return () => observer.disconnect();
  }, [container, visible]);
  return visible;
}
