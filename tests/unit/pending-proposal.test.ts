// The raises waiting for Confirm, as the tab keeps them with the conversation: what a reload
// brings back is only what a proposal could have raised, whatever the storage holds.
import { describe, expect, it } from "vitest";
import { createPendingProposalStore, PENDING_PROPOSAL_KEY } from "@/lib/client/pending-proposal";

function memoryStorage() {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  };
}

describe("the pending proposal's store", () => {
  it("brings back what it kept, and keeps nothing once none waits", () => {
    const storage = memoryStorage();
    const store = createPendingProposalStore(() => storage);
    expect(store.load()).toEqual([]);
    store.save([{ field: "daily", from: "1", to: "2" }]);
    expect(store.load()).toEqual([{ field: "daily", from: "1", to: "2" }]);
    store.save([]);
    expect(storage.items.has(PENDING_PROPOSAL_KEY)).toBe(false);
    expect(store.load()).toEqual([]);
  });

  it("brings back only known amounts the settings accept, one per field, from whatever was stored", () => {
    const storage = memoryStorage();
    const store = createPendingProposalStore(() => storage);
    for (const text of ["{not json", '"x"', "{}", "null"]) {
      storage.items.set(PENDING_PROPOSAL_KEY, text);
      expect(store.load()).toEqual([]);
    }
    storage.items.set(
      PENDING_PROPOSAL_KEY,
      JSON.stringify([
        { field: "daily", from: "1", to: "2" },
        { field: "walletAddress", from: "1", to: "2" },
        { field: "weekly", from: "5", to: "-3" },
        { field: "monthly", from: "20", to: "1e9" },
        { field: "confirmationThreshold", from: "0", to: "0.50" },
        { field: "daily", from: "1", to: "4" },
        "perPayment",
      ]),
    );
    expect(store.load()).toEqual([
      { field: "confirmationThreshold", from: "0", to: "0.5" },
      { field: "daily", from: "1", to: "4" },
    ]);
  });

  it("never takes the page down when storage refuses", () => {
    const refusing = {
      getItem: () => null,
      setItem: () => {
        throw new Error("quota");
      },
      removeItem: () => undefined,
    };
    const store = createPendingProposalStore(() => refusing);
    expect(() => store.save([{ field: "daily", from: "1", to: "2" }])).not.toThrow();
  });
});
