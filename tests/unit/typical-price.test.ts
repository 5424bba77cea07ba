// What a usage-priced service says a usual request costs: read from its listing's tags, in
// micro-dollars, and only when it is below the maximum it asks the wallet to sign.
import { describe, expect, it } from "vitest";
import { typicalFromTags } from "@/lib/discovery/listings";

describe("a usage-priced listing's typical price", () => {
  it("is read from its typical-usd tag, as atomic units", () => {
    expect(typicalFromTags(["summary", "typical-usd:0.0025", "latency-ms:200"], 20_000n)).toBe(2_500n);
  });

  it("is nothing when not said, not a decimal, finer than a micro-dollar, or not below the maximum", () => {
    expect(typicalFromTags(["summary"], 20_000n)).toBeUndefined();
    expect(typicalFromTags(undefined, 20_000n)).toBeUndefined();
    expect(typicalFromTags(["typical-usd:cheap"], 20_000n)).toBeUndefined();
    expect(typicalFromTags(["typical-usd:0.0000001"], 20_000n)).toBeUndefined();
    expect(typicalFromTags(["typical-usd:0.02"], 20_000n)).toBeUndefined();
    expect(typicalFromTags(["typical-usd:5"], 20_000n)).toBeUndefined();
  });
});
