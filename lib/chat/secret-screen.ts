// The first, cheap look at a message before the secret scanner (lib/chat/secrets.ts) reads it:
// a private key is 64 hex digits, whole or in groups, and a seed phrase is at least 12 words, so
// a message with fewer of both holds neither. Only a message that passes this screen loads the
// scanner, with its BIP-39 word lists and the curve that derives an address from a key: a
// "hello" never waits for them (cold start, bench/RESULTS.md). The scanner reads the text as
// normalized here, with the same word pattern, so that whatever it would find passes the screen.

/** The fewest words of a seed phrase. */
export const MIN_PHRASE_WORDS = 12;

// Zero-width space, non-joiner and joiner, word joiner and invisible operators, BOM, soft
// hyphen, Mongolian vowel separator: invisible, so they can hide inside a key or a word.
const invisible = /[\u200B-\u200D\u2060-\u2064\uFEFF\u00AD\u180E]/g;

/** The text as the checks read it: NFKC (fullwidth digits become digits) without invisible characters. */
export function normalizeForSecrets(text: string): string {
  // Invisible characters go first, so that a letter and its accent they separated compose again.
  return text.replace(invisible, "").normalize("NFKC");
}

/**
 * A word as the seed-phrase check counts them: a run of Latin letters, or a run of letters of
 * another script. A change of script ends a word.
 */
export const wordPattern = /[\p{Script=Latin}\p{M}]+|(?:(?!\p{Script=Latin})[\p{L}\p{M}])+/gu;

const KEY_DIGITS = 64;

/** Whether the text has enough hex digits for a key or enough words for a seed phrase. */
export function mayHoldSecret(text: string): boolean {
  const normalized = normalizeForSecrets(text);
  if (normalized.replace(/[^0-9a-fA-F]/g, "").length >= KEY_DIGITS) return true;
  let words = 0;
  for (const _ of normalized.toLowerCase().matchAll(wordPattern)) {
    words += 1;
    if (words >= MIN_PHRASE_WORDS) return true;
  }
  return false;
}
