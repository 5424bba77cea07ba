"use client";
// The model's proposals made visible: what was lowered at once, and the raises that wait for the
// person's Confirm (SPEC section 5). Nothing is raised without that click.
import type { Change } from "@/lib/client/settings";
import type { SettingsState } from "./use-settings";
import styles from "./settings.module.css";

const names: Record<Change["field"], string> = {
  daily: "daily limit",
  weekly: "weekly limit",
  monthly: "monthly limit",
  perPayment: "per-payment limit",
  confirmationThreshold: "confirmation threshold",
};

const describe = (change: Change) => `your ${names[change.field]} from $${change.from} to $${change.to}`;

export function ProposalBanner({ settings }: { settings: SettingsState }) {
  const { pending, applied } = settings;
  if (pending.length === 0 && applied.length === 0) return null;
  return (
    <div className={styles.proposals}>
      {applied.length > 0 ? (
        <p className={styles.applied} role="status" data-testid="proposal-applied">
          Lowered {applied.map(describe).join(", ")}.{" "}
          <button type="button" className={styles.linkButton} onClick={settings.dismissApplied}>
            OK
          </button>
        </p>
      ) : null}
      {pending.length > 0 ? (
        <div className={styles.pending} role="status" data-testid="proposal-pending">
          <p>The agent proposes raising {pending.map(describe).join(", ")}. Nothing changes until you confirm.</p>
          <div className={styles.buttons}>
            <button type="button" className={styles.primary} onClick={settings.confirmPending} data-testid="proposal-confirm">
              Confirm
            </button>
            <button type="button" className={styles.secondary} onClick={settings.dismissPending} data-testid="proposal-dismiss">
              Dismiss
            </button>
          </div>
        </div>
      ) : null}
    </div>
  );
}
