"use client";
// The top bar's wallet button. Until the wallet stack has arrived and drawn RainbowKit's own
// button, a button of the same size and look holds its place (server-rendered, so the top bar
// never shifts); the real button is put into the slot beside it through a portal
// (wallet-stack.tsx) and the placeholder leaves once that button is visible (RainbowKit mounts its
// button hidden, aria-hidden and transparent, for a frame or two before showing it).
// The placeholder is disabled while a wallet used before is reconnecting. Otherwise it is the
// connect button a person reaches for: pointing at it or focusing it loads the wallet stack, and a
// click opens RainbowKit's wallet list as soon as the real button is there (it is clicked for the
// person, and keeps the focus).
import { useEffect, useRef, useState } from "react";
import { useWalletContext } from "./wallet-context";
import styles from "./connect-button.module.css";

export function WalletConnectButton() {
  const { status, wallet, loadWallet, setConnectTarget } = useWalletContext();
  const [target, setTarget] = useState<HTMLDivElement | null>(null);
  const real = useVisibleButton(target);
  const [clicked, setClicked] = useState(false);

  useEffect(() => {
    setConnectTarget(target);
    return () => setConnectTarget(null);
  }, [target, setConnectTarget]);

  // The real button takes over what the person did with the placeholder: the focus, and a click.
  const focused = useRef(false);
  useEffect(() => {
    if (!real) return;
    if (focused.current || clicked) real.focus();
    // A wallet that connected meanwhile (one the browser had already allowed) needs no list.
    if (clicked && !wallet.address) real.click();
    setClicked(false);
  }, [real, clicked, wallet.address]);

  const waiting = clicked && status !== "failed";
  const title =
    status === "failed"
      ? "The wallet could not be loaded. Try again."
      : status === "loading" || waiting
        ? "Loading the wallet…"
        : undefined;
  return (
    <div className={styles.slot} data-testid="wallet-connect" data-state={real ? "ready" : status}>
      {real ? null : (
        <button
          type="button"
          className={styles.placeholder}
          disabled={status === "loading"}
          aria-busy={waiting || undefined}
          title={title}
          onPointerEnter={loadWallet}
          onFocus={() => {
            focused.current = true;
            loadWallet();
          }}
          onBlur={() => {
            focused.current = false;
          }}
          onClick={() => {
            setClicked(true);
            loadWallet();
          }}
        >
          Connect Wallet
        </button>
      )}
      {/* After the placeholder, so the real button is drawn over it until it leaves. */}
      <div ref={setTarget} />
    </div>
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
