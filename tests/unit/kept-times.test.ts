// The clock times a tab keeps once written (components/payment/payment-display.ts): a reload reads
// them back rather than making the page's first Intl.DateTimeFormat; what the tab's storage holds
// that the page did not write is left aside. Each import of the module stands for a page load.
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";

/** A tab's sessionStorage, as the Web Storage API keeps it: strings by key. */
class TabStorage {
  private readonly items = new Map<string, string>();
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.items.set(key, String(value));
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
}

const pageLoad = async () => {
  vi.resetModules();
  return import("@/components/payment/payment-display");
};

describe("the tab's kept clock times", () => {
  let storage: TabStorage;
  beforeEach(() => {
    storage = new TabStorage();
    vi.stubGlobal("sessionStorage", storage);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
  });

  test("a time written before a reload is read back after it, with no date format made", async () => {
    const now = new Date(2030, 0, 2, 9, 0);
    const deadline = new Date(2030, 0, 2, 10, 42);
    const written = (await pageLoad()).formatLocalTime(deadline, now, "en-US");
    expect(written).toBe("10:42 AM");

    const { formatLocalTime } = await pageLoad();
    const made = vi.spyOn(Intl, "DateTimeFormat");
    expect(formatLocalTime(deadline, now, "en-US")).toBe(written);
    expect(made).not.toHaveBeenCalled();
    // Another moment, or the same one in another locale, is written the person's way.
    expect(formatLocalTime(deadline, now, "de-DE")).toBe("10:42");
    expect(made).toHaveBeenCalledTimes(1);
  });

  test("what the tab's storage holds that the page did not write is left aside", async () => {
    const now = new Date(2030, 0, 2, 9, 0);
    const deadline = new Date(2030, 0, 2, 10, 42);
    const key = `en-US|time|${deadline.getTimezoneOffset()}|${deadline.getTime()}`;
    for (const held of ["{not json", '{"a":1}', '[[1,2],null,["x"]]', JSON.stringify([[key, 5]]), JSON.stringify([[key, "x".repeat(500)]])]) {
      storage.setItem("x402-agent.times.v1", held);
      expect((await pageLoad()).formatLocalTime(deadline, now, "en-US")).toBe("10:42 AM");
    }
  });

  test("without storage (refused, or a server's render) times are still written", async () => {
    vi.stubGlobal("sessionStorage", {
      getItem: () => {
        throw new Error("refused");
      },
      setItem: () => {
        throw new Error("refused");
      },
    });
    const { formatLocalTime } = await pageLoad();
    expect(formatLocalTime(new Date(2030, 0, 3, 10, 42), new Date(2030, 0, 2, 9, 0), "en-US")).toMatch(/Jan 3, 2030.*10:42\sAM/);
  });
});
