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
        title={offline ? "The offline model answers whichever tier is chosen until a Gemini key is set." : undefined}
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
