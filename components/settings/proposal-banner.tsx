"use client";
// The model's proposals made visible (docs/contract.md, section 5): a note of what was applied at once
// (lowered limits, priority, default chain), and the raises that wait for the person's Confirm.
// Nothing is raised without that click.
//
//   <ProposalBanner settings={useSettings()} networks={[{ id: "eip155:84532", name: "Base Sepolia" }]} />
//
// Test ids: proposal-applied (the note), proposal-pending (the raises), proposal-confirm,
// proposal-dismiss. The live region stays mounted while empty, so what appears in it is announced.
import type { Change } from "@/lib/client/settings";
import { displayUsd } from "@/lib/client/settings";
import type { SettingsState } from "./use-settings";
import styles from "./settings.module.css";

export type ProposalBannerProps = {
  settings: SettingsState;
  /** Names for network ids, to say "Base Sepolia" rather than eip155:84532; optional. */
  networks?: readonly { id: string; name: string }[];
};

const amountNames = {
  daily: "daily limit",
  weekly: "weekly limit",
  monthly: "monthly limit",
  perPayment: "per-payment limit",
  confirmationThreshold: "confirmation threshold",
} as const;

const priorityNames = { cost: "the lowest price", speed: "the fastest answer" } as const;

export function ProposalBanner({ settings, networks = [] }: ProposalBannerProps) {
  const { pending, applied } = settings;
  const networkName = (id: string) => networks.find((network) => network.id === id)?.name ?? id;

  const describeApplied = (change: Change): string => {
    switch (change.field) {
      case "priority":
        return `Now preferring ${priorityNames[change.to]}`;
      case "defaultChain":
        return `Default chain set to ${networkName(change.to)}`;
      default:
        return `${capitalize(amountNames[change.field])} lowered from ${displayUsd(change.from)} to ${displayUsd(change.to)}`;
    }
  };

  return (
    <div className={styles.proposals} role="status">
      {applied.length > 0 ? (
        <p className={styles.applied} data-testid="proposal-applied">
          {applied.map(describeApplied).join(". ")}.{" "}
          <button type="button" className="link-button" onClick={settings.dismissApplied}>
            OK
          </button>
        </p>
      ) : null}
      {pending.length > 0 ? (
        <div className={styles.pending} data-testid="proposal-pending">
          <p>
            The agent proposes raising{" "}
            {pending.map((change) => `your ${amountNames[change.field]} from ${displayUsd(change.from)} to ${displayUsd(change.to)}`).join(", ")}.
            Nothing changes until you confirm.
          </p>
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

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
