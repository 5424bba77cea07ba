// Recognises secrets a person might paste by mistake: a raw private key (64 hex digits) or a
// BIP-39 seed phrase (12 to 24 words of the English list). Such a message is refused before its
// text reaches the model or a log.
import { english } from "viem/accounts";

const bip39Words = new Set(english);

// 64 hex digits not part of a longer hex run, with or without 0x.
const privateKeyPattern = /(?<![0-9a-fA-F])(?:0x)?[0-9a-fA-F]{64}(?![0-9a-fA-F])/;

const MIN_PHRASE_WORDS = 12;

export type SecretKind = "private-key" | "seed-phrase";

export function findSecret(text: string): SecretKind | undefined {
  if (privateKeyPattern.test(text)) return "private-key";
  if (longestBip39Run(text) >= MIN_PHRASE_WORDS) return "seed-phrase";
  return undefined;
}

/**
 * The longest run of consecutive words that are all on the BIP-39 list. Numbers and
 * punctuation between words ("1. abandon 2. ability") do not break a run; any other word does.
 */
function longestBip39Run(text: string): number {
  let longest = 0;
  let run = 0;
  for (const [word] of text.matchAll(/[A-Za-z]+/g)) {
    if (bip39Words.has(word.toLowerCase())) {
      run += 1;
      if (run > longest) longest = run;
    } else {
      run = 0;
    }
  }
  return longest;
}
