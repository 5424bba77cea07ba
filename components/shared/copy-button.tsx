"use client";
// A small Copy button: writes a text to the clipboard and says so in a polite live region, so a
// screen reader hears "Copied" once instead of a changed button label.
import { useEffect, useState } from "react";
import styles from "./copy-button.module.css";

type CopyState = "idle" | "copied" | "failed";

export type CopyButtonProps = {
  text: string;
  /** The accessible name, e.g. "Copy reply"; it starts with the visible word "Copy". */
  label: string;
  "data-testid"?: string;
};

export function CopyButton({ text, label, "data-testid": testId }: CopyButtonProps) {
  const [state, setState] = useState<CopyState>("idle");

  useEffect(() => {
    if (state === "idle") return;
    const timer = window.setTimeout(() => setState("idle"), 2000);
    return () => window.clearTimeout(timer);
  }, [state]);

  const copy = async () => {
    // Missing outside a secure context (plain http on another host): say so instead of failing silently.
    const written = navigator.clipboard ? await navigator.clipboard.writeText(text).then(() => true, () => false) : false;
    setState(written ? "copied" : "failed");
  };

  return (
    <span className={styles.wrap}>
      <button type="button" className={styles.button} aria-label={label} title={label} data-testid={testId} onClick={() => void copy()}>
        Copy
      </button>
      <span className={styles.status} role="status" data-state={state}>
        {state === "copied" ? "Copied" : state === "failed" ? "Could not copy: select the text instead" : ""}
      </span>
    </span>
  );
}
