// The secret check under generated input (docs/contract.md, section 2): keys and seed phrases in every
// disguise a person's paste or a careless copy produces are refused, and what a paying
// conversation is full of (transaction hashes the agent wrote or the person asks about,
// addresses, amounts, ordinary sentences in several languages) goes through.
import fc from "fast-check";
import {
  czech,
  english,
  french,
  italian,
  japanese,
  korean,
  portuguese,
  privateKeyToAccount,
  simplifiedChinese,
  spanish,
  traditionalChinese,
} from "viem/accounts";
import { bytesToHex, getAddress } from "viem";
import { describe, expect, test } from "vitest";
import { findSecret, firstSecret, scanForSecrets } from "@/lib/chat/secrets";

const RUNS = 300;

const hex32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => bytesToHex(bytes).slice(2));
// A private key must be a valid secp256k1 scalar for viem to derive an address from it.
const validKey = hex32.filter((hex) => /[1-9a-f]/.test(hex) && BigInt(`0x${hex}`) < 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n);

const invisibles = ["\u200B", "\u200C", "\u200D", "\u2060", "\uFEFF", "\u00AD"];
const fullwidth = (text: string) =>
  text.replace(/[0-9a-zA-Z]/g, (char) => String.fromCodePoint((char.codePointAt(0) ?? 0) + 0xfee0));

/** Inserts invisible characters at the given positions of `text`. */
function withInvisibles(text: string, inserts: Array<[number, number]>): string {
  const chars = [...text];
  for (const [position, which] of inserts.sort(([a], [b]) => b - a)) {
    chars.splice(position % (chars.length + 1), 0, invisibles[which % invisibles.length] ?? "");
  }
  return chars.join("");
}

const surrounding = fc.constantFrom(
  ["", ""],
  ["my key is ", ""],
  ["here: ", " thanks"],
  ["Mi clave privada es ", "."],
  ["秘密鍵は", "です"],
  ["use this to pay:\n", "\n"],
  ["transaction ", ""],
);

/** A key as a person might paste it: whole or split into groups, in any case, with or without 0x, maybe fullwidth, maybe with invisible characters. */
const disguisedKey = fc
  .record({
    hex: hex32,
    prefix: fc.boolean(),
    upper: fc.boolean(),
    group: fc.constantFrom(64, 32, 16, 8, 4),
    separator: fc.constantFrom(" ", "-", " - ", "\n", "\r\n", "\u00A0", "\t"),
    wide: fc.boolean(),
    inserts: fc.array(fc.tuple(fc.nat(200), fc.nat(10)), { maxLength: 6 }),
    around: surrounding,
  })
  .map(({ hex, prefix, upper, group, separator, wide, inserts, around }) => {
    const digits = upper ? hex.toUpperCase() : hex;
    const grouped = (digits.match(new RegExp(`.{${group}}`, "g")) ?? []).join(separator);
    let text = `${prefix ? "0x" : ""}${grouped}`;
    if (wide) text = fullwidth(text);
    text = withInvisibles(text, inserts);
    // A split key is a key whatever the words around it; a whole one only when nothing marks it
    // as a transaction, so the "transaction" surrounding is kept for split keys alone.
    const [before, after] = group === 64 && around[0].startsWith("transaction") ? ["", ""] : around;
    return `${before}${text}${after}`;
  });

const latinLists = { english, french, italian, portuguese, spanish, czech } as const;
const spacedLists = { japanese, korean, simplifiedChinese, traditionalChinese } as const;

const phraseWords = (list: readonly string[]) =>
  fc.array(fc.integer({ min: 0, max: 2047 }), { minLength: 12, maxLength: 24 }).map((indexes) => indexes.map((i) => list[i] ?? ""));

/** A seed phrase of any BIP-39 list, written one way or another. */
const disguisedPhrase = fc.oneof(
  fc
    .record({
      list: fc.constantFrom(...Object.values(latinLists)),
      indexes: fc.array(fc.integer({ min: 0, max: 2047 }), { minLength: 12, maxLength: 24 }),
      layout: fc.constantFrom("spaces", "lines", "numbered", "commas", "upper", "invisible"),
      around: surrounding,
    })
    .map(({ list, indexes, layout, around }) => {
      const words = indexes.map((i) => list[i] ?? "");
      const body =
        layout === "lines"
          ? words.join("\n")
          : layout === "numbered"
            ? words.map((word, i) => `${i + 1}. ${word}`).join("\n")
            : layout === "commas"
              ? words.join(", ")
              : layout === "upper"
                ? words.join(" ").toUpperCase()
                : layout === "invisible"
                  ? words.map((word) => `${word.slice(0, 1)}\u200B${word.slice(1)}`).join(" ")
                  : words.join(" ");
      return `${around[0]}${body}${around[1]}`;
    }),
  fc
    .record({ list: fc.constantFrom(...Object.values(spacedLists)), separator: fc.constantFrom(" ", "\u3000", "\n") })
    .chain(({ list, separator }) => phraseWords(list).map((words) => words.join(separator))),
);

describe("secrets in disguise are refused", () => {
  test("a private key, whole or split, in any case, width or with invisible characters", () => {
    fc.assert(
      fc.property(disguisedKey, (text) => {
        expect(findSecret(text)).toBe("private-key");
      }),
      { numRuns: RUNS },
    );
  });

  test("a key that derives the connected wallet, even when called a transaction", () => {
    fc.assert(
      fc.property(validKey, fc.constantFrom("transaction 0x", "tx hash: 0x", "https://basescan.org/tx/0x"), (hex, before) => {
        const wallet = privateKeyToAccount(`0x${hex}`).address;
        expect(findSecret(`${before}${hex}`, { walletAddress: wallet })).toBe("private-key");
      }),
      { numRuns: 50 },
    );
  });

  test("a seed phrase of any BIP-39 list, however it is laid out", () => {
    fc.assert(
      fc.property(disguisedPhrase, (text) => {
        expect(findSecret(text)).toBe("seed-phrase");
      }),
      { numRuns: RUNS },
    );
  });
});

const sentences = [
  "What's the weather in Lisbon tomorrow?",
  "Compare the prices of the weather services and pay the cheapest one.",
  "How much have I spent this week, and what is left of my daily limit?",
  "Please translate 'good morning, see you at the station' into French.",
  "¿Cuánto cuesta el servicio de noticias y cuál es el más rápido?",
  "Quel temps fera-t-il à Paris ce week-end ? Paie le moins cher.",
  "Wie viel habe ich heute ausgegeben? Bitte zeig mir die letzten Zahlungen.",
  "Qual é a previsão do tempo em São Paulo para amanhã?",
  "東京の明日の天気を教えてください。一番安いサービスでお願いします。",
  "帮我查一下新加坡的天气，选最便宜的服务。",
  "서울 날씨 알려줘. 가장 싼 서비스로 결제해 줘.",
  "Lower my daily limit to $5 and set the confirmation threshold to $0.01.",
  "Pay with the default chain, I prefer speed over cost today.",
  "The payment said confirmed, but did the service deliver the forecast?",
];

const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => getAddress(bytesToHex(bytes)));
const amount = fc.tuple(fc.nat(999), fc.nat(999_999)).map(([whole, fraction]) => `$${whole}.${String(fraction).padStart(6, "0")}`);

/** An ordinary message: sentences, with addresses, amounts and numbers between them. */
const ordinaryMessage = fc
  .array(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...sentences) }, address, amount, fc.nat().map(String)), { minLength: 1, maxLength: 5 })
  .map((parts) => parts.join(" "));

describe("what a paying conversation holds goes through", () => {
  test("ordinary sentences in several languages, addresses, amounts and numbers", () => {
    fc.assert(
      fc.property(ordinaryMessage, (text) => {
        expect(findSecret(text)).toBeUndefined();
      }),
      { numRuns: RUNS },
    );
  });

  test("a transaction hash the person asks about, or pastes as an explorer link", () => {
    const asked = fc.tuple(
      hex32,
      fc.constantFrom(
        (hash: string) => `Did transaction 0x${hash} go through?`,
        (hash: string) => `what is tx 0x${hash}`,
        (hash: string) => `https://sepolia.basescan.org/tx/0x${hash}`,
        (hash: string) => `Is 0x${hash} the transaction hash of my last payment?`,
        (hash: string) => `¿La transacción 0x${hash} está confirmada?`,
      ),
    );
    fc.assert(
      fc.property(asked, ([hash, ask]) => {
        expect(findSecret(ask(hash))).toBeUndefined();
      }),
      { numRuns: RUNS },
    );
  });

  test("the agent's own transaction hash, quoted bare by the person later", () => {
    fc.assert(
      fc.property(hex32, ordinaryMessage, (hash, question) => {
        const scan = scanForSecrets([
          { role: "user", content: question },
          { role: "assistant", content: `Paid $0.002. Transaction: 0x${hash}` },
          { role: "user", content: `0x${hash}` },
        ]);
        expect(firstSecret(scan)).toBeUndefined();
      }),
      { numRuns: RUNS },
    );
  });

  test("a bare hash the ledger holds", () => {
    fc.assert(
      fc.property(hex32, (hash) => {
        expect(findSecret(`0x${hash}`, { knownTxHashes: new Set([`0x${hash}`]) })).toBeUndefined();
      }),
      { numRuns: RUNS },
    );
  });
});
