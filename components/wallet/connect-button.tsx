"use client";
// The top bar's wallet button. Until the wallet stack has arrived and drawn RainbowKit's own
// button, a disabled placeholder of the same size and look holds its place (server-rendered, so
// the top bar never shifts); the real button is put into the slot beside it through a portal
// (wallet-stack.tsx) and the placeholder leaves once that button is visible. RainbowKit mounts
// its button hidden (aria-hidden, transparent) for a frame or two before showing it.
import { useEffect, useState } from "react";
import { useWalletContext } from "./wallet-context";
import styles from "./connect-button.module.css";

export function WalletConnectButton() {
  const { status, setConnectTarget } = useWalletContext();
  const [target, setTarget] = useState<HTMLDivElement | null>(null);
  const shown = useVisibleButton(target);

  useEffect(() => {
    setConnectTarget(target);
    return () => setConnectTarget(null);
  }, [target, setConnectTarget]);

  return (
    <div className={styles.slot} data-testid="wallet-connect" data-state={shown ? "ready" : status}>
      {shown ? null : (
        <button
          type="button"
          className={styles.placeholder}
          disabled
          title={status === "failed" ? "The wallet could not be loaded. Reload the page to try again." : "Loading the wallet…"}
        >
          Connect Wallet
        </button>
      )}
      {/* After the placeholder, so the real button is drawn over it until it leaves. */}
      <div ref={setTarget} />
    </div>
  );
}

/** Whether `container` holds a button a person can see: one not inside an aria-hidden element. */
function useVisibleButton(container: HTMLElement | null): boolean {
  const [visible, setVisible] = useState(false);
  useEffect(() => {
    if (!container || visible) return;
    const check = () => {
      const found = [...container.querySelectorAll("button")].some((button) => !button.closest('[aria-hidden="true"]'));
      if (found) setVisible(true);
      return found;
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
