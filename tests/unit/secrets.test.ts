import { generateMnemonic, english, generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, test } from "vitest";
import { findSecret } from "@/lib/chat/secrets";

describe("secret detection", () => {
  test("finds a private key with or without 0x, anywhere in a message", () => {
    const key = generatePrivateKey();
    expect(findSecret(key)).toBe("private-key");
    expect(findSecret(`my key is ${key.slice(2)} please pay`)).toBe("private-key");
    expect(findSecret(`key:${key.toUpperCase().replace("0X", "0x")}.`)).toBe("private-key");
  });

  test("finds 12- and 24-word seed phrases, also numbered or on separate lines", () => {
    const twelve = generateMnemonic(english);
    const twentyFour = generateMnemonic(english, 256);
    expect(findSecret(twelve)).toBe("seed-phrase");
    expect(findSecret(`Here is my recovery phrase: ${twentyFour}`)).toBe("seed-phrase");
    const numbered = twelve
      .split(" ")
      .map((word, index) => `${index + 1}. ${word.toUpperCase()}`)
      .join("\n");
    expect(findSecret(numbered)).toBe("seed-phrase");
  });

  test("leaves ordinary messages, addresses and short word runs alone", () => {
    const address = privateKeyToAccount(generatePrivateKey()).address;
    expect(findSecret(`Send 1 USDC to ${address}`)).toBeUndefined();
    expect(findSecret("What's the weather in Lisbon today, and how much have I spent this week?")).toBeUndefined();
    // Eleven list words in a row are not a phrase.
    expect(findSecret(generateMnemonic(english).split(" ").slice(0, 11).join(" "))).toBeUndefined();
    // A 65-digit hex run is not a 64-digit key, nor is a 63-digit one.
    expect(findSecret("a".repeat(65))).toBeUndefined();
    expect(findSecret("b".repeat(63))).toBeUndefined();
    expect(findSecret("Please compare the weather services and pick the cheapest one for me")).toBeUndefined();
  });
});
