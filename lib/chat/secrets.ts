// Recognises secrets a person might paste by mistake (docs/contract.md, section 2): a private key (64 hex
// digits that are not a transaction hash) or a BIP-39 seed phrase (12 to 24 words of any
// BIP-39 word list). Such a message is refused before its text reaches the model or a log.
//
// A 64-hex value is also what a transaction hash looks like, and after the first payment the
// conversation is full of them. The rule for a whole 64-hex value in a user or system message:
//   1. it is a key, whatever the words around it, if it derives the connected wallet's address;
//   2. else it is a transaction hash if an earlier agent message holds it, if the person asks
//      about it (transaction words just before or after it, or an explorer URL with /tx/), or
//      if the ledger holds it;
//   3. else it is a key.
// A key split into groups (spaces, dashes, line breaks) is always a key: a pasted transaction
// hash arrives whole. Everything here is pure; the ledger's answer is passed in.
import type { Hex } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { MIN_PHRASE_WORDS, mayHoldSecret, normalizeForSecrets, wordPattern } from "./secret-screen";
import {
  czech,
  english,
  french,
  italian,
  japanese,
  korean,
  portuguese,
  simplifiedChinese,
  spanish,
  traditionalChinese,
} from "viem/accounts";

export type SecretKind = "private-key" | "seed-phrase";

export type SecretFinding = { message: number; kind: SecretKind };

export type ScannedMessage = { role: "user" | "assistant" | "system"; content: string };

export type ScanForSecretsParameters = {
  /** The connected wallet: a value that derives it is a key, whatever surrounds it. */
  walletAddress?: string | undefined;
};

export type SecretScan = {
  /** The first message that holds a secret whatever the ledger says, if any. */
  found: SecretFinding | undefined;
  /**
   * Whole 64-hex values (`0x` + lowercase) that are transaction hashes only if the ledger holds
   * them, each with the first message it appears in (only messages before `found`).
   */
  unknownHashes: ReadonlyMap<string, number>;
};

/**
 * Scans user and system messages for secrets. What is certain is in `found`; values that only
 * the ledger can tell apart from a key are in `unknownHashes`, for `firstSecret` to decide.
 */
export function scanForSecrets(
  messages: readonly ScannedMessage[],
  { walletAddress }: ScanForSecretsParameters = {},
): SecretScan {
  const agentHashes = new Set<string>();
  const unknownHashes = new Map<string, number>();
  const derivesWallet = walletDeriver(walletAddress);
  for (const [index, message] of messages.entries()) {
    const text = normalizeForSecrets(message.content);
    if (message.role === "assistant") {
      for (const { hex } of wholeHexValues(text)) agentHashes.add(hex);
      continue;
    }
    let tooMany = false;
    const unknown = (hex: string) => {
      if (unknownHashes.has(hex)) return;
      // More values than any person pastes to ask about: the ledger is not asked about each, and
      // the message is refused like one holding a key.
      if (unknownHashes.size >= MAX_UNKNOWN_HASHES) tooMany = true;
      else unknownHashes.set(hex, index);
    };
    const kind = certainSecret(text, { agentHashes, derivesWallet, unknown }) ?? (tooMany ? "private-key" : undefined);
    if (kind) {
      // Values first seen in this message or later cannot come before this finding.
      for (const [hex, at] of unknownHashes) if (at >= index) unknownHashes.delete(hex);
      return { found: { message: index, kind }, unknownHashes };
    }
  }
  return { found: undefined, unknownHashes };
}

/** The first message holding a secret, once the ledger has said which unknown hashes it holds. */
export function firstSecret(scan: SecretScan, knownTxHashes: ReadonlySet<string> = new Set()): SecretFinding | undefined {
  let first = scan.found;
  for (const [hex, index] of scan.unknownHashes) {
    if (knownTxHashes.has(hex)) continue;
    if (!first || index < first.message) first = { message: index, kind: "private-key" };
  }
  return first;
}

/** One person's text on its own: the kind of secret it holds, if any. */
export function findSecret(
  text: string,
  { walletAddress, knownTxHashes }: ScanForSecretsParameters & { knownTxHashes?: ReadonlySet<string> } = {},
): SecretKind | undefined {
  if (!mayHoldSecret(text)) return undefined;
  return firstSecret(scanForSecrets([{ role: "user", content: text }], { walletAddress }), knownTxHashes)?.kind;
}

type CertainSecretContext = {
  agentHashes: ReadonlySet<string>;
  derivesWallet: (hex: string) => boolean;
  unknown: (hex: string) => void;
};

function certainSecret(text: string, context: CertainSecretContext): SecretKind | undefined {
  for (const value of wholeHexValues(text)) {
    if (context.derivesWallet(value.hex)) return "private-key";
    if (context.agentHashes.has(value.hex) || isAskedAbout(text, value)) continue;
    context.unknown(value.hex);
  }
  if (hasSplitKey(text)) return "private-key";
  if (longestPhraseRun(text) >= MIN_PHRASE_WORDS) return "seed-phrase";
  return undefined;
}

// --- Whole 64-hex values ---------------------------------------------------------------------

type HexValue = { hex: string; start: number; end: number };

// 64 hex digits not part of a longer hex run, with or without 0x.
const wholeHexPattern = /(?<![0-9a-fA-F])(?:0[xX])?([0-9a-fA-F]{64})(?![0-9a-fA-F])/g;

function wholeHexValues(text: string): HexValue[] {
  return [...text.matchAll(wholeHexPattern)].map((match) => ({
    hex: `0x${(match[1] ?? "").toLowerCase()}`,
    start: match.index,
    end: match.index + match[0].length,
  }));
}

/**
 * How many distinct 64-hex values of one request get the checks that cost (deriving an address,
 * a secp256k1 multiplication each; the ledger's lookup), so that a body full of them cannot buy
 * thousands of either. A person pastes a handful.
 */
const MAX_DERIVED_VALUES = 32;
const MAX_UNKNOWN_HASHES = 32;

function walletDeriver(walletAddress: string | undefined): (hex: string) => boolean {
  if (!walletAddress) return () => false;
  const wallet = walletAddress.toLowerCase();
  const seen = new Map<string, boolean>();
  return (hex) => {
    let derives = seen.get(hex);
    // Past the bound a value is no longer derived; it still meets every other rule (unexplained, it is a key).
    if (derives === undefined && seen.size >= MAX_DERIVED_VALUES) return false;
    if (derives === undefined) {
      try {
        derives = privateKeyToAddress(hex as Hex).toLowerCase() === wallet;
      } catch {
        derives = false; // zero or above the curve order: not a usable key
      }
      seen.set(hex, derives);
    }
    return derives;
  };
}

// --- "The person asks about it" --------------------------------------------------------------

const CONTEXT_BEFORE = 40;
const CONTEXT_AFTER = 24;

// Words that make a 64-hex value a transaction the person is asking about, in the languages of
// the BIP-39 lists. Latin words must start a word; CJK words are matched anywhere.
const transactionWords = new RegExp(
  [
    String.raw`(?<!\p{L})(?:tx(?:n|id|s|hash)?(?!\p{L})|transa[cçkz]\p{L}*|hash\p{L}*|receipt\p{L}*|recibo|reçu|ricevuta|quittung`,
    String.raw`explorer\p{L}*|explorador|explorateur|etherscan|basescan|arbiscan|polygonscan|snowtrace|blockscout`,
    String.raw`payment\p{L}*|paid|pago|pagad[oa]|paiement|pagamento|zahlung|transfer\p{L}*|virement|převod\p{L}*|platb\p{L}*)`,
    String.raw`交易|哈希|转账|轉帳|付款|支付|收据|收據|取引|トランザクション|ハッシュ|送金|支払|決済|거래|해시|결제|송금|영수증`,
  ].join("|"),
  "iu",
);

// Words that say the value is a key after all: they cancel the transaction words (never the
// conversation's or the ledger's knowledge).
const keyWords = /(?<!\p{L})(?:private|priv|privkey|pk|secret\p{L}*|seed|mnemonic|recovery|keys?|clave|cl[ée]|chiave|schlüssel|klíč|chave|priva[dt]\p{L}*|privé\p{L}*|soukrom\p{L}*)(?!\p{L})|私钥|私鑰|秘密鍵|秘密キー|助记词|助記詞|개인\s*키|비밀\s*키/iu;

// Where a sentence or line ends: the words of another sentence are not about this value.
// CJK full stops need no space after them.
const sentenceEnd = /[.!?](?=\s|$)|[。！？\n]/g;

function isAskedAbout(text: string, value: HexValue): boolean {
  // An explorer link: the URL the value sits in has /tx/ in its path.
  const token = /\S*$/.exec(text.slice(Math.max(0, value.start - 300), value.start))?.[0] ?? "";
  if (/\/tx\//i.test(token)) return true;
  const before = sameSentenceBefore(text.slice(Math.max(0, value.start - CONTEXT_BEFORE), value.start));
  const after = sameSentenceAfter(text.slice(value.end, value.end + CONTEXT_AFTER));
  const around = `${before} ${after}`;
  return transactionWords.test(around) && !keyWords.test(around);
}

function sameSentenceBefore(window: string): string {
  let cut = 0;
  for (const match of window.matchAll(sentenceEnd)) cut = match.index + match[0].length;
  return window.slice(cut);
}

function sameSentenceAfter(window: string): string {
  const [match] = window.matchAll(sentenceEnd);
  return match ? window.slice(0, match.index) : window;
}

// --- Keys split into groups --------------------------------------------------------------------

// Hex groups separated by a few spaces or tabs, a dash, or a line break; the first may carry 0x.
// Groups are whole words: "cafe" counts, "cafeteria" does not.
// The dash or line break comes first so that splitting a run takes " - " as one separator.
const groupSeparator = String.raw`(?:[ \t]{0,3}(?:[-\u2010-\u2015\u2212]|\r?\n)[ \t]{0,3}|[ \t]{1,3})`;
const groupRunPattern = new RegExp(
  String.raw`(?<![0-9A-Za-z])(?:0[xX])?[0-9a-fA-F]+(?:${groupSeparator}[0-9a-fA-F]+)*(?![0-9A-Za-z])`,
  "g",
);
const groupSeparatorPattern = new RegExp(`(${groupSeparator})`);

/**
 * Two or more consecutive groups of one run that add up to exactly 64 hex digits, with both
 * digits and letters among them (a random key has both; a list of years or a word like "decade"
 * does not). UUIDs and addresses inside a run are not key pieces.
 */
function hasSplitKey(text: string): boolean {
  for (const [run] of text.matchAll(groupRunPattern)) {
    if (!groupSeparatorPattern.test(run)) continue;
    for (const piece of keyPieces(run)) {
      for (let first = 0; first < piece.length; first += 1) {
        let digits = 0;
        for (let last = first; last < piece.length && digits < 64; last += 1) {
          digits += piece[last]?.length ?? 0;
          if (digits === 64 && last > first) {
            const joined = piece.slice(first, last + 1).join("");
            if (/[0-9]/.test(joined) && /[a-f]/i.test(joined)) return true;
          }
        }
      }
    }
  }
  return false;
}

/** A run's groups (without 0x), cut into pieces where a UUID or an address stands. */
function keyPieces(run: string): string[][] {
  const parts = run.split(groupSeparatorPattern);
  const groups: string[] = [];
  const separators: string[] = [];
  parts.forEach((part, index) => (index % 2 === 0 ? groups : separators).push(part));
  const pieces: string[][] = [[]];
  for (let index = 0; index < groups.length; index += 1) {
    const group = groups[index] ?? "";
    if (/^0x[0-9a-f]{40}$/i.test(group)) {
      pieces.push([]);
      continue;
    }
    if (isUuidAt(groups, separators, index)) {
      pieces.push([]);
      index += 4;
      continue;
    }
    pieces.at(-1)?.push(group.replace(/^0x/i, ""));
  }
  return pieces.filter((piece) => piece.length > 1);
}

function isUuidAt(groups: readonly string[], separators: readonly string[], index: number): boolean {
  const lengths = [8, 4, 4, 4, 12];
  return lengths.every(
    (length, offset) =>
      groups[index + offset]?.length === length && (offset === 0 || separators[index + offset - 1] === "-"),
  );
}

// --- Seed phrases --------------------------------------------------------------------------------

const wordLists = [
  { words: english, latin: true },
  { words: czech, latin: true },
  { words: french, latin: true },
  { words: italian, latin: true },
  { words: portuguese, latin: true },
  { words: spanish, latin: true },
  { words: japanese, latin: false },
  { words: korean, latin: false },
  { words: simplifiedChinese, latin: false },
  { words: traditionalChinese, latin: false },
] as const;

const withoutAccents = (word: string) => word.normalize("NFD").replace(/\p{M}/gu, "").normalize("NFC");

// Each word, as the normalized text spells it, with a bit per list it belongs to. Latin lists
// also match without accents: wallets accept "abaco" for "ábaco".
let listsByWord: Map<string, number> | undefined;
function listsOf(word: string): number {
  if (!listsByWord) {
    const map = new Map<string, number>();
    wordLists.forEach(({ words, latin }, bit) => {
      for (const listed of words) {
        const normalized = listed.normalize("NFKC");
        for (const form of latin ? [normalized, withoutAccents(normalized)] : [normalized]) {
          map.set(form, (map.get(form) ?? 0) | (1 << bit));
        }
      }
    });
    listsByWord = map;
  }
  return listsByWord.get(word) ?? 0;
}

/**
 * The longest run of consecutive words that are all on one BIP-39 list. Numbers and
 * punctuation between words ("1. abandon 2. ability") do not break a run; any other word does.
 * Chinese words count only when separated like words, so ordinary Chinese prose is no phrase.
 * A change of script ends a word: Latin words written against Japanese or Chinese text with no
 * space ("秘密鍵はabandon ... abandonです") are still words.
 */
function longestPhraseRun(text: string): number {
  const runs = new Array<number>(wordLists.length).fill(0);
  let longest = 0;
  for (const [word] of text.toLowerCase().matchAll(wordPattern)) {
    const lists = listsOf(word);
    for (let bit = 0; bit < runs.length; bit += 1) {
      const run = lists & (1 << bit) ? (runs[bit] ?? 0) + 1 : 0;
      runs[bit] = run;
      if (run > longest) longest = run;
    }
  }
  return longest;
}
