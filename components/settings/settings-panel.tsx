"use client";
// The settings dialog: the four spending limits, the default chain, cost or speed, and the
// confirmation threshold. A native modal <dialog>: focus stays inside, Escape closes it, and
// focus returns to the Settings button. Values are checked as decimal USD before they are saved.
import { useId, useRef, useState, type FormEvent } from "react";
import { limitKeys, limitWarnings, usdError, type LimitKey, type Settings } from "@/lib/client/settings";
import type { SettingsState } from "./use-settings";
import styles from "./settings.module.css";

const limitLabels: Record<LimitKey, { label: string; testId: string; hint: string }> = {
  daily: { label: "Daily limit", testId: "settings-daily", hint: "Rolling 24 hours" },
  weekly: { label: "Weekly limit", testId: "settings-weekly", hint: "Rolling 7 days" },
  monthly: { label: "Monthly limit", testId: "settings-monthly", hint: "Rolling 30 days" },
  perPayment: { label: "Per payment", testId: "settings-per-payment", hint: "The most one payment may cost" },
};

type Draft = { limits: Record<LimitKey, string>; threshold: string; priority: "cost" | "speed"; defaultChain: string };

const toDraft = (settings: Settings): Draft => ({
  limits: { ...settings.spendingLimits },
  threshold: settings.preferences.confirmationThreshold,
  priority: settings.preferences.priority,
  defaultChain: settings.preferences.defaultChain ?? "",
});

export function SettingsPanel({ settings, networks }: { settings: SettingsState; networks: { id: string; name: string }[] }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [draft, setDraft] = useState<Draft>(() => toDraft(settings.settings));
  const [submitted, setSubmitted] = useState(false);
  const formId = useId();

  const errors: Partial<Record<LimitKey | "threshold", string>> = {};
  for (const key of limitKeys) {
    const error = usdError(draft.limits[key]);
    if (error) errors[key] = error;
  }
  const thresholdError = usdError(draft.threshold);
  if (thresholdError) errors.threshold = thresholdError;
  const valid = Object.keys(errors).length === 0;
  const warnings = valid ? limitWarnings(draft.limits) : [];

  const open = () => {
    setDraft(toDraft(settings.settings));
    setSubmitted(false);
    dialog.current?.showModal();
  };
  const close = () => dialog.current?.close();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    if (!valid) return;
    settings.update({
      spendingLimits: { ...draft.limits },
      preferences: {
        ...(draft.defaultChain ? { defaultChain: draft.defaultChain } : {}),
        priority: draft.priority,
        confirmationThreshold: draft.threshold,
      },
    });
    close();
  };

  const field = (key: LimitKey | "threshold", label: string, hint: string, testId: string, value: string, set: (value: string) => void) => {
    const id = `${formId}-${key}`;
    const error = submitted ? errors[key] : undefined;
    return (
      <div className={styles.field} key={key}>
        <label htmlFor={id}>{label}</label>
        <div className={styles.amount}>
          <span aria-hidden="true">$</span>
          <input
            id={id}
            inputMode="decimal"
            autoComplete="off"
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
      <button type="button" className={styles.opener} onClick={open} data-testid="settings-open" aria-haspopup="dialog">
        Settings
      </button>
      <dialog ref={dialog} className={styles.dialog} aria-labelledby={`${formId}-title`} data-testid="settings-dialog">
        <form onSubmit={submit} noValidate>
          <h2 id={`${formId}-title`} className={styles.title}>
            Settings
          </h2>
          <p className={styles.intro}>Kept in this browser and sent with each message. The server enforces every limit.</p>
          <fieldset className={styles.group}>
            <legend>Spending limits (USD)</legend>
            {limitKeys.map((key) =>
              field(key, limitLabels[key].label, limitLabels[key].hint, limitLabels[key].testId, draft.limits[key], (value) =>
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
            {field(
              "threshold",
              "Confirm in the page above",
              "At or below this, your wallet's prompt opens as soon as a quote arrives; 0 confirms every payment here first",
              "settings-threshold",
              draft.threshold,
              (value) => setDraft((current) => ({ ...current, threshold: value })),
            )}
            <div className={styles.field}>
              <label htmlFor={`${formId}-chain`}>Default chain</label>
              <select
                id={`${formId}-chain`}
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
              </select>
            </div>
            <div className={styles.radios} role="radiogroup" aria-label="When services compete">
              <span className={styles.radioLabel}>When services compete, prefer</span>
              {(["cost", "speed"] as const).map((priority) => (
                <label key={priority} className={styles.radio}>
                  <input
                    type="radio"
                    name={`${formId}-priority`}
                    value={priority}
                    checked={draft.priority === priority}
                    onChange={() => setDraft((current) => ({ ...current, priority }))}
                    data-testid={`settings-priority-${priority}`}
                  />
                  {priority === "cost" ? "Lowest price" : "Fastest answer"}
                </label>
              ))}
            </div>
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
    </>
  );
}
