"use client";
// What the conversation and the settings exchange (docs/contract.md, section 5): every request
// carries the settings, and the agent budget's grant, of the moment it leaves; a `d:` line's
// proposal goes to the settings, which apply a lowering at once and keep a raise waiting for the
// person; a new conversation drops what the model proposed in the old one.
import { useCallback, type RefObject } from "react";
import type { SettingsState } from "@/components/settings/use-settings";
import type { AgentBudgetGrant } from "@/lib/chain/delegation";
import { toRequestExtras, type Settings } from "@/lib/client/settings";
import type { StreamMetadata } from "@/lib/protocol/lines";
import type { ChatRequestExtras } from "./use-chat-stream";

export type SettingsExchange = {
  /** Read at send time: what a request carries besides the conversation. */
  extras: () => ChatRequestExtras;
  onProposal: (data: StreamMetadata) => void;
  /** Drops the proposals of a conversation that ended (the waiting raises are kept with it, use-settings.ts). */
  dropProposals: () => void;
};

export function useSettingsExchange(
  settingsState: Pick<SettingsState, "propose" | "dismissPending" | "dismissApplied">,
  settings: RefObject<Settings>,
  requestGrant: () => AgentBudgetGrant | undefined,
): SettingsExchange {
  const { propose, dismissPending, dismissApplied } = settingsState;
  const extras = useCallback(() => {
    const grant = requestGrant();
    return { ...toRequestExtras(settings.current), ...(grant ? { agentBudget: grant } : {}) };
  }, [requestGrant, settings]);
  const onProposal = useCallback(
    (data: StreamMetadata) => {
      if (data.spendingLimits || data.preferences) {
        propose({
          ...(data.spendingLimits ? { spendingLimits: data.spendingLimits } : {}),
          ...(data.preferences ? { preferences: data.preferences } : {}),
        });
      }
    },
    [propose],
  );
  const dropProposals = () => {
    dismissPending();
    dismissApplied();
  };
  return { extras, onProposal, dropProposals };
}
