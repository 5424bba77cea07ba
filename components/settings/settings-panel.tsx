"use client";
// The Settings button and its dialog: the four spending limits, the confirmation threshold, the
// default chain and cost or speed. A native modal <dialog>: focus stays inside, Escape closes it
// (as Cancel does, saving nothing), and focus returns to the Settings button. Amounts are checked
// as decimal USD before anything is saved; limits that do not nest only earn a warning. The dialog
// is rendered from its first opening on (use-modal-dialog.ts).
//
//   <SettingsPanel settings={useSettings()} networks={[{ id: "eip155:84532", name: "Base Sepolia" }]} />
//
// Test ids: settings-open (the button), settings-dialog, settings-daily, settings-weekly,
// settings-monthly, settings-per-payment, settings-threshold, settings-default-chain,
// settings-priority-cost, settings-priority-speed, settings-save, settings-cancel.
import { useId, useRef, useState, type FormEvent } from "react";
import { useModalDialog } from "@/components/shared/use-modal-dialog";
import { limitKeys, limitWarnings, usdError, type LimitKey, type Priority, type Settings } from "@/lib/client/settings";
import type { SettingsState } from "./use-settings";
import styles from "./settings.module.css";

export type SettingsPanelProps = {
  /** From useSettings(): the panel reads the current settings and saves through `update`. */
  settings: SettingsState;
  /** The networks the server pays on, offered as the default chain. */
  networks: readonly { id: string; name: string }[];
};

const limitFields: Record<LimitKey, { label: string; testId: string; hint: string }> = {
  daily: { label: "Daily limit", testId: "settings-daily", hint: "Rolling 24 hours" },
  weekly: { label: "Weekly limit", testId: "settings-weekly", hint: "Rolling 7 days" },
  monthly: { label: "Monthly limit", testId: "settings-monthly", hint: "Rolling 30 days" },
  perPayment: { label: "Per payment", testId: "settings-per-payment", hint: "The most one payment may cost" },
};

type AmountKey = LimitKey | "threshold";
type Draft = { limits: Record<LimitKey, string>; threshold: string; priority: Priority; defaultChain: string };

const toDraft = (settings: Settings): Draft => ({
  limits: { ...settings.spendingLimits },
  threshold: settings.preferences.confirmationThreshold,
  priority: settings.preferences.priority,
  defaultChain: settings.preferences.defaultChain ?? "",
});

function draftErrors(draft: Draft): Partial<Record<AmountKey, string>> {
  const errors: Partial<Record<AmountKey, string>> = {};
  for (const key of limitKeys) {
    const error = usdError(draft.limits[key]);
    if (error) errors[key] = error;
  }
  const thresholdError = usdError(draft.threshold);
  if (thresholdError) errors.threshold = thresholdError;
  return errors;
}

/**
 * The saved settings: the current ones with only the fields the person edited in this dialog, so
 * a proposal applied while the dialog stood open (a lowered limit) is not undone by Save.
 */
function merge(current: Settings, opened: Draft, draft: Draft): Pick<Settings, "spendingLimits" | "preferences"> {
  const edited = <T,>(before: T, after: T, now: T) => (before === after ? now : after);
  const spendingLimits = { ...current.spendingLimits };
  for (const key of limitKeys) spendingLimits[key] = edited(opened.limits[key], draft.limits[key], current.spendingLimits[key]).trim();
  const defaultChain = edited(opened.defaultChain, draft.defaultChain, current.preferences.defaultChain ?? "");
  return {
    spendingLimits,
    preferences: {
      ...(defaultChain ? { defaultChain } : {}),
      priority: edited(opened.priority, draft.priority, current.preferences.priority),
      confirmationThreshold: edited(opened.threshold, draft.threshold, current.preferences.confirmationThreshold).trim(),
    },
  };
}

export function SettingsPanel({ settings, networks }: SettingsPanelProps) {
  const { dialog, rendered, show } = useModalDialog();
  const opener = useRef<HTMLButtonElement>(null);
  const form = useRef<HTMLFormElement>(null);
  const [opened, setOpened] = useState<Draft>(() => toDraft(settings.settings));
  const [draft, setDraft] = useState<Draft>(opened);
  const [submitted, setSubmitted] = useState(false);
  const formId = useId();
  const idOf = (key: string) => `${formId}-${key}`;

  const errors = draftErrors(draft);
  const valid = Object.keys(errors).length === 0;
  const warnings = valid ? limitWarnings(draft.limits) : [];

  const open = () => {
    const start = toDraft(settings.settings);
    setOpened(start);
    setDraft(start);
    setSubmitted(false);
    show();
  };
  const close = () => dialog.current?.close();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    if (!valid) {
      // The first field in error takes focus; its message is tied to it by aria-describedby.
      const first = [...limitKeys, "threshold" as const].find((key) => errors[key]);
      if (first) form.current?.querySelector<HTMLInputElement>(`#${CSS.escape(idOf(first))}`)?.focus();
      return;
    }
    settings.update(merge(settings.settings, opened, draft));
    close();
  };

  const amountField = (key: AmountKey, label: string, hint: string, testId: string, value: string, set: (value: string) => void) => {
    const id = idOf(key);
    const error = submitted ? errors[key] : undefined;
    return (
      <div className={styles.field} key={key}>
        <label htmlFor={id}>{label}</label>
        <div className={styles.amount}>
          <span aria-hidden="true">$</span>
          <input
            id={id}
            name={key}
            inputMode="decimal"
            autoComplete="off"
            spellCheck={false}
            value={value}
            onChange={(event) => set(event.target.value)}
            aria-invalid={error ? true : undefined}
            aria-describedby={`${id}-hint${error ? ` ${id}-error` : ""}`}
            data-testid={testId}
          />
        </div>
        <span id={`${id}-hint`} className={styles.hint}>
          {hint}
        </span>
        {error ? (
          <span id={`${id}-error`} className={styles.error}>
            {error}
          </span>
        ) : null}
      </div>
    );
  };

  return (
    <>
      <button
        ref={opener}
        type="button"
        className={styles.opener}
        onClick={open}
        data-testid="settings-open"
        aria-haspopup="dialog"
      >
        Settings
      </button>
      {rendered ? (
        // However the dialog closes (Save, Cancel, Escape), focus goes back to the button that opened it.
        <dialog
          ref={dialog}
          className={styles.dialog}
          aria-labelledby={idOf("title")}
          onClose={() => opener.current?.focus()}
          data-testid="settings-dialog"
        >
          <form ref={form} onSubmit={submit} noValidate>
            <h2 id={idOf("title")} className={styles.title}>
              Settings
            </h2>
            <p className={styles.intro}>Kept in this browser and sent with each message. The server enforces every limit.</p>
            <fieldset className={styles.group}>
              <legend>Spending limits (USD)</legend>
              {limitKeys.map((key) =>
                amountField(key, limitFields[key].label, limitFields[key].hint, limitFields[key].testId, draft.limits[key], (value) =>
                  setDraft((current) => ({ ...current, limits: { ...current.limits, [key]: value } })),
                ),
              )}
              {warnings.map((warning) => (
                <p key={warning} className={styles.warning}>
                  {warning}
                </p>
              ))}
            </fieldset>
            <fieldset className={styles.group}>
              <legend>Payments</legend>
              {amountField(
                "threshold",
                "Confirm in the page above",
                "At or below this, your wallet's prompt opens as soon as a quote arrives; 0 confirms every payment here first",
                "settings-threshold",
                draft.threshold,
                (value) => setDraft((current) => ({ ...current, threshold: value })),
              )}
              <div className={styles.field}>
                <label htmlFor={idOf("chain")}>Default chain</label>
                <select
                  id={idOf("chain")}
                  value={draft.defaultChain}
                  onChange={(event) => setDraft((current) => ({ ...current, defaultChain: event.target.value }))}
                  data-testid="settings-default-chain"
                >
                  <option value="">No preference</option>
                  {networks.map((network) => (
                    <option key={network.id} value={network.id}>
                      {network.name}
                    </option>
                  ))}
                  {draft.defaultChain && !networks.some((network) => network.id === draft.defaultChain) ? (
                    // A chain the server no longer offers stays visible rather than silently dropped.
                    <option value={draft.defaultChain}>{draft.defaultChain} (not enabled here)</option>
                  ) : null}
                </select>
              </div>
              <fieldset className={styles.radios}>
                <legend className={styles.radioLabel}>When services compete, prefer</legend>
                {(["cost", "speed"] as const).map((priority) => (
                  <label key={priority} className={styles.radio}>
                    <input
                      type="radio"
                      name={idOf("priority")}
                      value={priority}
                      checked={draft.priority === priority}
                      onChange={() => setDraft((current) => ({ ...current, priority }))}
                      data-testid={`settings-priority-${priority}`}
                    />
                    {priority === "cost" ? "Lowest price" : "Fastest answer"}
                  </label>
                ))}
              </fieldset>
            </fieldset>
            <div className={styles.buttons}>
              <button type="submit" className={styles.primary} data-testid="settings-save">
                Save
              </button>
              <button type="button" className={styles.secondary} onClick={close} data-testid="settings-cancel">
                Cancel
              </button>
            </div>
          </form>
        </dialog>
      ) : null}
    </>
  );
}
