"use client";
// Keeps one part of the conversation from taking the rest down: whatever a part fails to render
// (a payload no renderer expected), the chat, its other messages and the composer stay usable,
// and the failed part says so in its place.
import { Component, type ReactNode } from "react";
import styles from "./chat.module.css";

/** `item`: the part stands in a list, so its stand-in is a list item too. */
type Props = { children: ReactNode; what: string; item?: boolean };

export class ErrorBoundary extends Component<Props, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override render(): ReactNode {
    if (!this.state.failed) return this.props.children;
    const notice = (
      <p className={styles.error} role="alert" data-testid="error-message" data-code="render-failed">
        {this.props.what} could not be shown.
      </p>
    );
    return this.props.item ? <li className={styles.message}>{notice}</li> : notice;
  }
}
