// Pasted secrets (docs/contract.md, section 2): private keys and seed phrases are refused in every disguise,
// while the transaction hashes a paying conversation is full of go through.
import { english, french, generateMnemonic, generatePrivateKey, japanese, privateKeyToAccount, spanish } from "viem/accounts";
import { describe, expect, test, vi } from "vitest";
import { assertNoSecrets } from "@/lib/chat/request";
import { mayHoldSecret } from "@/lib/chat/secret-screen";
import { findSecret, firstSecret, scanForSecrets, type ScannedMessage } from "@/lib/chat/secrets";
import { AppError } from "@/lib/errors";

const key = generatePrivateKey();
const digits = key.slice(2);
const wallet = privateKeyToAccount(key).address;
/** A random 32-byte value, as a transaction hash is. */
const txHash = generatePrivateKey();

const groups = (hex: string, size: number) => hex.match(new RegExp(`.{${size}}`, "g")) ?? [];
const fullwidth = (text: string) =>
  text.replace(/[0-9a-zA-Z]/g, (char) => String.fromCodePoint((char.codePointAt(0) ?? 0) + 0xfee0));

describe("private keys are refused", () => {
  test.each([
    ["a raw key", digits],
    ["a 0x key in a sentence", `my key is ${key} please pay`],
    ["an upper-case key", `key:${key.toUpperCase()}.`],
    ["4 groups split by spaces", groups(digits, 16).join(" ")],
    ["8 groups split by spaces, with 0x", `0x${groups(digits, 8).join(" ")}`],
    ["16 groups split by dashes", groups(digits, 4).join("-")],
    ["groups split by spaced dashes", groups(digits, 16).join(" - ")],
    ["4 lines", `here it is:\n${groups(digits, 16).join("\n")}\nthanks`],
    ["Windows line breaks", groups(digits, 32).join("\r\n")],
    ["a key after a hex-looking word", `is a ${groups(digits, 8).join(" ")}`],
    ["fullwidth digits and letters", fullwidth(key)],
    ["zero-width characters inside", `${digits.slice(0, 10)}\u200B${digits.slice(10, 30)}\u200D${digits.slice(30, 50)}\uFEFF\u00AD${digits.slice(50)}`],
    ["a word joiner between split groups", groups(digits, 16).join("\u2060 ")],
    ["a non-breaking space and a fullwidth hyphen between groups", `${groups(digits, 32)[0]}\u00A0\uFF0D\u00A0${groups(digits, 32)[1]}`],
  ])("%s", (_name, text) => {
    expect(findSecret(text)).toBe("private-key");
  });

  test("a bare 64-hex value that nothing marks as a transaction is a key", () => {
    expect(findSecret(txHash)).toBe("private-key");
    expect(findSecret(`pay with ${txHash}`)).toBe("private-key");
  });

  test("a key that derives the connected wallet is refused even when called a transaction", () => {
    const text = `what happened to transaction ${key}?`;
    expect(findSecret(text)).toBeUndefined(); // without the wallet it reads as a question about a tx
    expect(findSecret(text, { walletAddress: wallet })).toBe("private-key");
    expect(findSecret(`https://basescan.org/tx/${key}`, { walletAddress: wallet.toLowerCase() })).toBe("private-key");
    // Not even the conversation or the ledger make the wallet's own key a transaction.
    const scan = scanForSecrets(
      [
        { role: "assistant", content: `Paid, transaction ${key}.` },
        { role: "user", content: `thanks for ${key}` },
      ],
      { walletAddress: wallet },
    );
    expect(firstSecret(scan, new Set([key]))).toEqual({ message: 1, kind: "private-key" });
  });

  test("key words next to a value cancel the transaction words", () => {
    expect(findSecret(`my private key for the payment is ${txHash}`)).toBe("private-key");
    expect(findSecret(`here is the secret for the transfer: ${txHash}`)).toBe("private-key");
  });

  test("a split value is never a transaction hash, whatever the words around it", () => {
    expect(findSecret(`what happened to tx ${groups(txHash.slice(2), 16).join(" ")}?`)).toBe("private-key");
    const scan = scanForSecrets([
      { role: "assistant", content: `transaction ${txHash}` },
      { role: "user", content: groups(txHash.slice(2), 32).join("\n") },
    ]);
    expect(firstSecret(scan, new Set([txHash]))).toEqual({ message: 1, kind: "private-key" });
  });
});

describe("seed phrases are refused", () => {
  test.each([
    ["English", english],
    ["Spanish", spanish],
    ["French", french],
    ["Japanese", japanese],
  ])("%s phrases of 12 and 24 words", (_language, wordlist) => {
    const twelve = generateMnemonic(wordlist);
    const twentyFour = generateMnemonic(wordlist, 256);
    expect(findSecret(twelve)).toBe("seed-phrase");
    expect(findSecret(`Here is my recovery phrase: ${twentyFour}`)).toBe("seed-phrase");
    expect(findSecret(twelve.normalize("NFC"))).toBe("seed-phrase");
  });

  test("numbered, upper-case, one word a line, or with zero-width characters", () => {
    const words = generateMnemonic(english).split(" ");
    expect(findSecret(words.map((word, index) => `${index + 1}. ${word}`).join(" "))).toBe("seed-phrase");
    expect(findSecret(words.map((word, index) => `${index + 1}. ${word.toUpperCase()}`).join("\n"))).toBe("seed-phrase");
    expect(findSecret(words.map((word) => `${word.slice(0, 2)}\u200B${word.slice(2)}`).join(" "))).toBe("seed-phrase");
  });

  test("Spanish words typed without their accents", () => {
    const phrase = generateMnemonic(spanish, 256)
      .normalize("NFD")
      .replace(/\p{M}/gu, "");
    expect(findSecret(phrase)).toBe("seed-phrase");
  });

  test("eleven list words in a row are not a phrase", () => {
    expect(findSecret(generateMnemonic(english).split(" ").slice(0, 11).join(" "))).toBeUndefined();
  });
});

describe("transaction hashes and ordinary messages go through", () => {
  test("the agent's own transaction hash, and the person's next message quoting it", () => {
    const messages: ScannedMessage[] = [
      { role: "user", content: "Get me the weather in Lisbon" },
      { role: "assistant", content: `Paid $0.01 to Weather (transaction ${txHash}). It is 21 °C and sunny.` },
      { role: "user", content: "Thanks! And in Porto?" },
      { role: "assistant", content: "It is 18 °C in Porto." },
      { role: "user", content: `Did ${txHash} really go through?` },
    ];
    const scan = scanForSecrets(messages);
    expect(scan.unknownHashes.size).toBe(0);
    expect(firstSecret(scan)).toBeUndefined();
  });

  test.each([
    ["a question about a tx", `what happened to tx ${txHash}?`],
    ["a txn without 0x", `txn ${txHash.slice(2)} is still pending`],
    ["a transaction hash after a colon", `Transaction hash: ${txHash}`],
    ["the word after the value", `${txHash} — is this transaction final?`],
    ["a receipt", `receipt ${txHash}`],
    ["a payment in Spanish", `¿Qué pasó con la transacción ${txHash}?`],
    ["a payment in Japanese", `このトランザクション ${txHash} は完了しましたか？`],
    ["an explorer URL", `https://basescan.org/tx/${txHash}`],
    ["an explorer URL with a fragment", `look: https://sepolia.basescan.org/tx/${txHash}#eventlog`],
    ["the app's own transaction page", `/tx/eip155:31337/${txHash}`],
  ])("%s", (_name, text) => {
    expect(findSecret(text)).toBeUndefined();
  });

  test("transaction words in another sentence or far before the value do not count", () => {
    expect(findSecret(`I made a payment yesterday. Now: ${txHash}`)).toBe("private-key");
    expect(findSecret(`transaction\n${txHash}`)).toBe("private-key");
    expect(findSecret(`transaction ${"and so on, ".repeat(5)}${txHash}`)).toBe("private-key");
  });

  test("a hash the ledger holds, pasted bare", () => {
    expect(findSecret(txHash, { knownTxHashes: new Set([txHash]) })).toBeUndefined();
    expect(findSecret(txHash.slice(2).toUpperCase(), { knownTxHashes: new Set([txHash]) })).toBeUndefined();
    const scan = scanForSecrets([{ role: "user", content: `please check ${txHash}` }]);
    expect([...scan.unknownHashes]).toEqual([[txHash, 0]]);
  });

  test.each([
    ["English", "What's the weather in Lisbon today, and how much have I spent this week? Please compare the weather services and pick the cheapest one for me."],
    ["English, list words", "I want the cheapest weather service you can find, then show me my budget for this month and the last payment."],
    ["Spanish", "¿Cuál es el servicio de clima más barato? Quiero pagar con mi billetera y ver cuánto gasté esta semana."],
    ["French", "Quel est le service météo le moins cher ? Je veux payer avec mon portefeuille et voir mes dépenses du mois."],
    ["Italian", "Qual è il servizio meteo più economico? Voglio pagare con il mio portafoglio e vedere quanto ho speso."],
    ["Portuguese", "Qual é o serviço de clima mais barato? Quero pagar com a minha carteira e ver quanto gastei esta semana."],
    ["Czech", "Jaká je nejlevnější služba počasí? Chci zaplatit svou peněženkou a vidět, kolik jsem utratil tento týden."],
    ["Japanese", "一番安い天気サービスはどれですか？今週いくら使ったかも教えてください。"],
    ["Chinese", "哪个天气服务最便宜？我想用我的钱包付款，并查看这个月的花费。我们的人在这个地方有一个大的问题"],
    ["Korean", "가장 저렴한 날씨 서비스는 무엇인가요? 이번 주에 얼마나 썼는지도 알려주세요."],
  ])("an ordinary sentence in %s", (_language, text) => {
    expect(findSecret(text)).toBeUndefined();
  });

  test("addresses, hex-looking words, numbers, UUIDs and other hex runs", () => {
    const address = privateKeyToAccount(generatePrivateKey()).address;
    expect(findSecret(`Send 1 USDC to ${address}`)).toBeUndefined();
    expect(findSecret(`${address} ${address.toLowerCase()}`)).toBeUndefined();
    expect(findSecret("a bad face: cafe dead beef, a decade of facade accede bead")).toBeUndefined();
    expect(findSecret(Array.from({ length: 16 }, (_, index) => 2000 + index).join(" "))).toBeUndefined();
    expect(findSecret("orders 550e8400-e29b-41d4-a716-446655440000 6ba7b810-9dad-11d1-80b4-00c04fd430c8")).toBeUndefined();
    // A 65-digit hex run is not a 64-digit key, nor is a 63-digit one.
    expect(findSecret("a".repeat(65))).toBeUndefined();
    expect(findSecret("b".repeat(63))).toBeUndefined();
  });
});

describe("assertNoSecrets", () => {
  const refusal = async (...args: Parameters<typeof assertNoSecrets>): Promise<AppError> => {
    try {
      await assertNoSecrets(...args);
    } catch (error) {
      if (error instanceof AppError) return error;
      throw error;
    }
    throw new Error("the messages were accepted");
  };

  test("asks the ledger only about values nothing else explains, and accepts what it holds", async () => {
    const ledger = vi.fn(async (hashes: readonly string[]) => new Set(hashes));
    await assertNoSecrets(
      {
        messages: [
          { role: "assistant", content: `transaction ${txHash}` },
          { role: "user", content: `${txHash} and ${key.toUpperCase()}` },
        ],
      },
      ledger,
    );
    expect(ledger).toHaveBeenCalledExactlyOnceWith([key]);
  });

  test("never asks the ledger when no message holds a 64-hex value", async () => {
    const ledger = vi.fn(async () => new Set<string>());
    await assertNoSecrets({ messages: [{ role: "user", content: "hello" }] }, ledger);
    expect(ledger).not.toHaveBeenCalled();
  });

  test("refuses what the ledger does not hold, naming the message and kind but not the value", async () => {
    const error = await refusal(
      { messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }, { role: "user", content: `try ${key}` }] },
      async () => new Set([txHash]),
    );
    expect(error.code).toBe("secret-in-message");
    expect(error.details).toEqual({
      message: 2,
      kind: "private-key",
      fields: [{ path: "messages.2.content", message: "looks like it contains a private key" }],
    });
    expect(error.message).toMatchInlineSnapshot(
      `"Message 3 looks like it contains a private key. It was not sent anywhere. Never share your keys or recovery phrase: this agent never needs them."`,
    );
    expect(JSON.stringify(error.toJSON())).not.toContain(digits.slice(0, 12));
  });

  test("an unknown value in an earlier message comes before a phrase in a later one", async () => {
    const error = await refusal(
      {
        messages: [
          { role: "user", content: `check ${txHash}` },
          { role: "assistant", content: "Which one?" },
          { role: "user", content: generateMnemonic(english) },
        ],
      },
      async () => new Set(),
    );
    expect(error.details).toEqual({
      message: 0,
      kind: "private-key",
      fields: [{ path: "messages.0.content", message: "looks like it contains a private key" }],
    });
  });

  test("a body full of 64-hex values buys a bounded amount of work: the ledger is asked about at most 32, and the message is refused", async () => {
    const ledger = vi.fn(async (hashes: readonly string[]) => new Set(hashes));
    const values = Array.from({ length: 4_000 }, (_, index) => `0x${index.toString(16).padStart(64, "a")}`);
    const error = await refusal({ messages: [{ role: "user", content: values.join(" ") }], walletAddress: privateKeyToAccount(key).address }, ledger);
    expect(error.code).toBe("secret-in-message");
    expect(ledger.mock.calls.every(([hashes]) => hashes.length <= 32)).toBe(true);
    // A handful of transaction ids to ask about still goes through, once the ledger knows them.
    await expect(assertNoSecrets({ messages: [{ role: "user", content: values.slice(0, 5).join(" ") }] }, ledger)).resolves.toBeUndefined();
  });

  test("the agent's own messages are never refused", async () => {
    await expect(
      assertNoSecrets({
        messages: [
          { role: "assistant", content: `${key} ${generateMnemonic(english)}` },
          { role: "user", content: "ok" },
        ],
      }),
    ).resolves.toBeUndefined();
  });

  test("a system message is checked like a user message", async () => {
    const error = await refusal({ messages: [{ role: "system", content: generateMnemonic(french) }, { role: "user", content: "hi" }] });
    expect(error.details).toEqual({
      message: 0,
      kind: "seed-phrase",
      fields: [{ path: "messages.0.content", message: "looks like it contains a wallet seed phrase" }],
    });
  });
});

// Every refusal above goes through findSecret, which looks at the text first as a request does
// (lib/chat/secret-screen.ts): none of those secrets slips past that first look.
describe("the first look before the scanner is loaded", () => {
  test("a short message is let through without the scanner; a key or a phrase in any disguise is not", async () => {
    expect(mayHoldSecret("hello")).toBe(false);
    expect(mayHoldSecret("what is the weather in London, and what does it cost?")).toBe(false);
    expect(mayHoldSecret("b".repeat(63))).toBe(false);
    expect(mayHoldSecret(fullwidth(key))).toBe(true);
    expect(mayHoldSecret(groups(digits, 4).join("-"))).toBe(true);
    // Twelve words, whatever they are, are enough to be looked at.
    expect(mayHoldSecret("one two three four five six seven eight nine ten eleven twelve")).toBe(true);
    const phrase = generateMnemonic(japanese);
    expect(mayHoldSecret(phrase)).toBe(true);
    await expect(assertNoSecrets({ messages: [{ role: "user", content: `${phrase.split(" ").join("\u200B ")}` }] })).rejects.toMatchObject({
      code: "secret-in-message",
    });
  });
});
