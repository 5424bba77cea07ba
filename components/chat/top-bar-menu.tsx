"use client";
// The top bar's actions besides the wallet button (Budget, AI apps, Settings, the Solana wallet):
// in a row on a wide screen, behind one Menu button on a phone, so the top bar stays one line and
// the conversation keeps the screen. The actions are the same elements in both forms (CSS alone
// chooses), so the dialog an action opens, which lives beside its button, is the same in both. The
// menu stays open under a dialog or a menu one of its actions opens (hidden, the menu would hide
// that dialog with it, and focus comes back to the action's button when the dialog closes);
// anything else chosen in it closes it, as do a tap outside it and Escape.
//
// Test ids: top-bar-menu (the Menu button), top-bar-actions (the actions).
import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import styles from "./top-bar-menu.module.css";

export function TopBarMenu({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  const panelId = useId();

  useEffect(() => {
    const element = panel.current;
    if (!element) return;
    const onChoose = (event: MouseEvent) => {
      const target = event.target instanceof Element ? event.target : null;
      if (!target?.closest("button, a") || target.closest('[aria-haspopup], dialog, [role="menu"]')) return;
      setOpen(false);
    };
    element.addEventListener("click", onChoose);
    return () => element.removeEventListener("click", onChoose);
  }, []);

  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      if (event.target instanceof Node && !root.current?.contains(event.target)) setOpen(false);
    };
    const onKey = (event: KeyboardEvent) => {
      // Escape in a dialog closes that dialog, not the menu beneath it.
      if (event.key !== "Escape" || (event.target instanceof Element && event.target.closest("dialog"))) return;
      setOpen(false);
      if (root.current?.contains(document.activeElement)) toggle.current?.focus();
    };
    document.addEventListener("pointerdown", onPointer);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("pointerdown", onPointer);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);

  return (
    <div ref={root} className={styles.menu} data-open={open}>
      <button
        ref={toggle}
        type="button"
        className={styles.toggle}
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((value) => !value)}
        data-testid="top-bar-menu"
      >
        <svg width="18" height="18" viewBox="0 0 18 18" aria-hidden="true">
          <path d="M3 5h12M3 9h12M3 13h12" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" />
        </svg>
        {/* The icon is the button on a phone's narrow top bar; its name stays for a screen reader. */}
        <span className="sr-only">Menu</span>
      </button>
      <div ref={panel} id={panelId} className={styles.actions} data-testid="top-bar-actions">
        {children}
      </div>
    </div>
  );
}
