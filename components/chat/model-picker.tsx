"use client";
// The model choice: the three tiers the server allows (docs/contract.md, section 2), never a free-form id.
import { useId } from "react";
import type { ModelTierId } from "@/lib/client/settings";
import styles from "./chat.module.css";

const modelTiers: readonly { id: ModelTierId; label: string; note: string }[] = [
  { id: "vendor-2.0-flash-exp", label: "Fast", note: "quickest answers" },
  { id: "vendor-1.5-flash", label: "Balanced", note: "speed and reasoning" },
  { id: "vendor-1.5-pro", label: "Pro", note: "strongest reasoning" },
];

export function ModelPicker({ value, onChange, offline }: { value: ModelTierId; onChange: (tier: ModelTierId) => void; offline: boolean }) {
  const id = useId();
  // Without a Gemini key the offline model answers every tier: offering "Fast" or "Pro" would be a
  // choice that changes nothing, so the picker says which model answers and offers none.
  if (offline) {
    return (
      <div className={styles.modelPicker}>
        <label htmlFor={id}>Model</label>
        <select id={id} value="offline" disabled data-testid="model-picker" title="Set GEMINI_API_KEY on the server to choose a Gemini model.">
          <option value="offline">Offline (no Gemini key set)</option>
        </select>
      </div>
    );
  }
  return (
    <div className={styles.modelPicker}>
      <label htmlFor={id}>Model</label>
      <select
        id={id}
        value={value}
        data-testid="model-picker"
        onChange={(event) => {
          const tier = modelTiers.find((candidate) => candidate.id === event.target.value);
          if (tier) onChange(tier.id);
        }}
      >
        {modelTiers.map((tier) => (
          <option key={tier.id} value={tier.id}>
            {tier.label} ({tier.note})
          </option>
        ))}
      </select>
    </div>
  );
}
